package compattests

import (
	"encoding/json"
	"testing"
)

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The runner's rules loosen only what the set's README allows; everything else must differ.
func TestCompareJSONLoosensOnlyTheREADMERules(t *testing.T) {
	changed := &compareOpts{changedIDs: map[string]bool{"7": true}}
	cases := []struct {
		name      string
		want, got string
		opts      *compareOpts
		equal     bool
	}{
		{"key order is free", `{"a":1,"b":2}`, `{"b":2,"a":1}`, nil, true},
		{"array order is not", `[1,2]`, `[2,1]`, nil, false},
		{"an int is not a float", `{"n":1}`, `{"n":1.0}`, nil, false},
		{"large integers compare digit for digit", `{"n":9007199254740993}`, `{"n":9007199254740992}`, nil, false},
		{"a missing key fails", `{"a":1,"b":2}`, `{"a":1}`, nil, false},
		{"an extra key fails", `{"a":1}`, `{"a":1,"b":2}`, nil, false},
		{"json_ld emails compare decoded", `{"json_ld":{"email":"a&#64;b.c"}}`, `{"json_ld":{"email":"&#x61;@b.c"}}`, nil, true},
		{"an empty json_ld email is not null", `{"json_ld":{"email":""}}`, `{"json_ld":{"email":null}}`, nil, false},
		{"emails outside json_ld compare as written", `{"email":"a&#64;b.c"}`, `{"email":"a@b.c"}`, nil, false},
		{"dates of a changed record need only be well-formed", `{"id":7,"date":"2026-01-01 00:00:00"}`, `{"id":7,"date":"2026-11-22 08:00:01"}`, changed, true},
		{"a changed record's date must still be a date", `{"id":7,"date":"2026-01-01 00:00:00"}`, `{"id":7,"date":"yesterday"}`, changed, false},
		{"dates of other records compare by value", `{"id":8,"date":"2026-01-01 00:00:00"}`, `{"id":8,"date":"2026-11-22 08:00:01"}`, changed, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var diffs []Diff
			compareJSON("body", mustDecode(t, c.want), mustDecode(t, c.got), c.opts, &diffs)
			if (len(diffs) == 0) != c.equal {
				t.Errorf("equal = %v, want %v (diffs %v)", len(diffs) == 0, c.equal, diffs)
			}
		})
	}
}

// Only answers one second late, and nothing else, are retried at now-1s.
func TestClockSkewOnlyAcceptsJustTheRecordingSecond(t *testing.T) {
	cases := []struct {
		name  string
		diffs []Diff
		want  bool
	}{
		{"a datetime one second late is skew", []Diff{{"body.date", "2026-11-21 23:30:21", "2026-11-21 23:30:22"}}, true},
		{"skew inside a URL, across a minute", []Diff{{"body.rest_url", "x?end_date=2028-11-22 04:29:59&p=1", "x?end_date=2028-11-22 04:30:00&p=1"}}, true},
		{"dates from the request stay as they are", []Diff{{"body.rest_url", "x?start_date=2026-11-21 18:59:00&end_date=2028-11-22 04:29:40", "x?start_date=2026-11-21 18:59:00&end_date=2028-11-22 04:29:41"}}, true},
		{"text around the dates must match", []Diff{{"body.rest_url", "x?end_date=2028-11-22 04:29:40&page=1", "x?end_date=2028-11-22 04:29:41&page=2"}}, false},
		{"a string without dates is not skew", []Diff{{"body.title", "A", "B"}}, false},
		{"every difference must be skew", []Diff{
			{"body.date", "2026-11-21 23:30:21", "2026-11-21 23:30:22"},
			{"body.title", "A", "B"},
		}, false},
		{"a datetime one second early is not skew", []Diff{{"body.date", "2026-11-21 23:30:22", "2026-11-21 23:30:21"}}, false},
		{"two seconds late is not skew", []Diff{{"body.date", "2026-11-21 23:30:20", "2026-11-21 23:30:22"}}, false},
		{"a non-string difference is not skew", []Diff{{"body.total", json.Number("1"), json.Number("2")}}, false},
		{"no difference is nothing to retry", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := clockSkewOnly(c.diffs); got != c.want {
				t.Errorf("clockSkewOnly = %v, want %v", got, c.want)
			}
		})
	}
}
