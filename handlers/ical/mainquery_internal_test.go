package ical

import (
	"net/url"
	"slices"
	"testing"
)

// The query redirect_canonical keeps on its target: parse_str of what is left, rawurlencode_deep
// of names and values, then add_query_arg, which drops the "=" of an empty value.
func TestQueryTailIsRedirectCanonicals(t *testing.T) {
	notCategory := func(name string) bool { return name != "tribe_events_cat" }
	for _, tc := range []struct {
		pairs [][2]string
		want  string
	}{
		{[][2]string{{"post_type", "tribe_events"}, {"ical", "1"}, {"eventDisplay", "list"}, {"tribe_events_cat", "music"}},
			"post_type=tribe_events&ical=1&eventDisplay=list"},
		// A space is %20 (rawurlencode), not "+"; a plus sign is %2B; "~" stays.
		{[][2]string{{"tribe_events_cat", "music"}, {"s", "jazz night"}, {"x y", "a+b~c"}}, "s=jazz%20night&x%20y=a%2Bb~c"},
		// A repeated name keeps its first place and its last value.
		{[][2]string{{"a", "1"}, {"b", "2"}, {"a", "3"}}, "a=3&b=2"},
		// An empty value leaves the name bare, and the name asked without "=" too.
		{[][2]string{{"ical", ""}, {"b", "2"}}, "ical&b=2"},
		{[][2]string{{"é", "ü/&="}}, "%C3%A9=%C3%BC%2F%26%3D"},
		{[][2]string{{"tribe_events_cat", "music"}}, ""},
	} {
		if got := queryTail(tc.pairs, notCategory); got != tc.want {
			t.Errorf("queryTail(%q) = %q, want %q", tc.pairs, got, tc.want)
		}
	}
}

// The query is decoded as PHP decodes it: "+" and %20 are spaces, a malformed escape stays as
// written (url.QueryUnescape would fail and leave the name or value empty).
func TestRequestQueryDecodesAsPHP(t *testing.T) {
	r := parseRequest(&url.URL{Path: "/events/", RawQuery: "s=jazz+night%21&bad=%zz&half=50%&%7Ename=x%2"})
	want := [][2]string{{"s", "jazz night!"}, {"bad", "%zz"}, {"half", "50%"}, {"~name", "x%2"}}
	if !slices.Equal(r.order, want) {
		t.Fatalf("pairs %q, want %q", r.order, want)
	}
	if got := queryTail(r.order, func(string) bool { return true }); got != "s=jazz%20night%21&bad=%25zz&half=50%25&~name=x%252" {
		t.Errorf("their redirect tail %q", got)
	}
}
