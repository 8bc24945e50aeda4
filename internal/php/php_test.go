package php

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/phpjson"
)

func TestIsNumericString(t *testing.T) {
	for in, want := range map[string]bool{
		"5": true, "05": true, "+5": true, " 5": true, "5 ": true, "-1": true, "2.5": true, ".5": true, "5.": true,
		"1e3": true, "1E-2": true, "": false, " ": false, "abc": false, "7abc": false, "0x1A": false, "1e": false,
		"--1": false, ".": false, "1 2": false,
	} {
		if got := IsNumericString(in); got != want {
			t.Errorf("IsNumericString(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestIntCastsLikePHP(t *testing.T) {
	tests := []struct {
		in   any
		want int64
	}{
		{"12", 12}, {" 12", 12}, {"12abc", 12}, {"abc", 0}, {"2.9", 2}, {"-2.9", -2}, {"1e3", 1000},
		{json.Number("7"), 7}, {true, 1}, {nil, 0}, {3.7, 3}, {[]any{1}, 1}, {[]any{}, 0},
		// Integer strings are read exactly and saturate (is_numeric_string, zend_dval_to_lval_cap).
		{"922337203685477580", 922337203685477580}, {"9223372036854775807", math.MaxInt64},
		{"9223372036854775808", math.MaxInt64}, {"99999999999999999999999", math.MaxInt64},
		{"-99999999999999999999999", math.MinInt64}, {"1e30", math.MaxInt64}, {"+9007199254740993", 9007199254740993},
		{"1e999", 0}, {"5.", 5}, {".5", 0}, {"1e", 1}, {"-.5e1x", -5},
		// A JSON integer that fits is exact; json_decode makes a larger one a double.
		{json.Number("9007199254740993"), 9007199254740993}, {json.Number("1e2"), 100},
	}
	for _, tc := range tests {
		if got := Int(tc.in); got != tc.want {
			t.Errorf("Int(%#v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// The numeric prefix of a long string is found in one pass (a quadratic scan would make an 8 MB
// body value cost hours of CPU: what this guards against).
func TestNumericPrefixIsLinear(t *testing.T) {
	long := strings.Repeat("1", 2<<20) + strings.Repeat("x", 2<<20)
	start := time.Now()
	if Float(long) == 0 || Int(long) != math.MaxInt64 || Int("1x"+strings.Repeat(" ", 4<<20)) != 1 {
		t.Error("wrong value")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestEmpty(t *testing.T) {
	for _, v := range []any{nil, false, "", "0", 0, int64(0), 0.0, json.Number("0"), []any{}, phpjson.NewObject()} {
		if !Empty(v) {
			t.Errorf("Empty(%#v) = false, want true", v)
		}
	}
	for _, v := range []any{true, "a", "0.0", " ", 1, json.Number("0.5"), []any{nil}} {
		if Empty(v) {
			t.Errorf("Empty(%#v) = true, want false", v)
		}
	}
}

func TestLooseEqualsInt(t *testing.T) {
	for in, want := range map[string]bool{"5": true, "05": true, "+5": true, " 5": true, "2.5": false, "7abc": false, "1e3": true, "5.0": true} {
		if got := LooseEqualsInt(in); got != want {
			t.Errorf("LooseEqualsInt(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestListToArray(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want []any
	}{
		{"csv with spaces around commas", "music, 5 ,jazz", []any{"music", json.Number("5"), "jazz"}},
		{"url-encoded csv is decoded", "10%2C11", []any{json.Number("10"), json.Number("11")}},
		{"empty items are dropped", "1,,2,", []any{json.Number("1"), json.Number("2")}},
		{"outer whitespace is kept", " a ", []any{" a "}},
		{"arrays pass through", []any{"3", "x"}, []any{json.Number("3"), "x"}},
		{"empty string is empty", "", nil},
		{"zero string counts as empty", "0", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ListToArray(tc.in); !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("ListToArray(%#v) = %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
}

func TestRawURLEncode(t *testing.T) {
	for in, want := range map[string]string{"a b": "a%20b", "a+b": "a%2Bb", "-_.~AZaz09": "-_.~AZaz09",
		"café/?&=#%": "caf%C3%A9%2F%3F%26%3D%23%25", "\x00\xff": "%00%FF", "": ""} {
		if got := RawURLEncode(in); got != want {
			t.Errorf("RawURLEncode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestURLDecode(t *testing.T) {
	for in, want := range map[string]string{"a+b": "a b", "%41%62": "Ab", "%zz": "%zz", "%4": "%4", "caf%C3%A9": "café"} {
		if got := URLDecode(in); got != want {
			t.Errorf("URLDecode(%q) = %q, want %q", in, got, want)
		}
	}
}
