package handlers

import (
	"testing"

	"github.com/calendard/calendard"
)

func TestAddQueryArg(t *testing.T) {
	kv := func(pairs ...any) []calendard.KV {
		var out []calendard.KV
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, calendard.KV{Key: pairs[i].(string), Value: pairs[i+1]})
		}
		return out
	}
	tests := []struct {
		name, url string
		args      []calendard.KV
		want      string
	}{
		{"values are appended raw to a bare URL", "http://s/wp-json/ns/events/",
			kv("page", int64(1), "start_date", "2026-11-21 00:00:00"),
			"http://s/wp-json/ns/events/?page=1&start_date=2026-11-21 00:00:00"},
		{"existing query is re-encoded when adding", "http://s/e/?start_date=2026-11-21 00:00:00&status=publish",
			kv("venue", "10,11"), "http://s/e/?start_date=2026-11-21+00%3A00%3A00&status=publish&venue=10,11"},
		{"false removes a key", "http://s/e/?page=2&per_page=10", kv("page", false), "http://s/e/?per_page=10"},
		{"true becomes 1 and nil is skipped", "http://s/e/", kv("a", true, "b", nil), "http://s/e/?a=1"},
		{"empty value drops its equals sign", "http://s/e/", kv("a", "", "b", "x"), "http://s/e/?a&b=x"},
		{"existing key keeps its position", "http://s/e/?a=1&b=2", kv("a", "3"), "http://s/e/?a=3&b=2"},
		{"arrays use bracket keys", "http://s/e/", kv("include", []any{int64(34), int64(36)}),
			"http://s/e/?include%5B0%5D=34&include%5B1%5D=36"},
		{"fragment is kept", "http://s/e/#top", kv("a", "1"), "http://s/e/?a=1#top"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := AddQueryArg(tc.url, tc.args); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestRemoveQueryArgEncodesTheRest(t *testing.T) {
	got := RemoveQueryArg("http://s/e/?page=1&per_page=10&start_date=2026-11-21 00:00:00", "page")
	want := "http://s/e/?per_page=10&start_date=2026-11-21+00%3A00%3A00"
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestURLEncodeMatchesPHP(t *testing.T) {
	for in, want := range map[string]string{"a b": "a+b", "a~b": "a%7Eb", "é": "%C3%A9", "a-_.b": "a-_.b", "1,2": "1%2C2"} {
		if got := urlencode(in); got != want {
			t.Errorf("urlencode(%q) = %q, want %q", in, got, want)
		}
	}
}
