package php

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzScalars runs the PHP value semantics every request parameter goes through (is_numeric, the
// casts, empty(), list_to_array, urldecode, FILTER_VALIDATE_URL) over any text, as a string and as a
// JSON number: no panic, and the functions agree with each other. Under plain `go test` only the
// seeds run.
func FuzzScalars(f *testing.F) {
	for _, s := range []string{
		"", "0", "-0", "1", "+1", "-1", " 12 ", "\t\n1\v\f", "1.", ".5", ".", "1e5", "1e", "1e+", "-1.5E-3", "0x1A",
		"9223372036854775807", "9223372036854775808", "-9223372036854775809", "99999999999999999999999", "1e400",
		"-1e400", "NaN", "INF", "1,2, 3 ,,4", " , ", "%2C", "a%20b+c", "%", "%%41", "%4", "%zz", "%ff%fe", "+",
		"true", "false", "null", "1 2", "١٢", "http://example.com/a?b#c", "mailto:a@b", "//x", "http://[::1]:80/",
		"http://user:pw@host:99999/", "javascript:alert(1)", strings.Repeat("9", 400), "0." + strings.Repeat("0", 400) + "1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		numeric := IsNumericString(s)
		if IsNumeric(s) != numeric {
			t.Fatalf("IsNumeric(%q) != IsNumericString", s)
		}
		fl, n := Float(s), Int(s)
		if numeric {
			want, err := strconv.ParseFloat(strings.Trim(s, " \t\n\r\v\f"), 64)
			if err != nil && !math.IsInf(want, 0) && want != 0 {
				t.Fatalf("%q is numeric but does not parse: %v", s, err)
			}
			if err == nil && fl != want {
				t.Fatalf("Float(%q) = %v, want %v", s, fl, want)
			}
			if i, err := strconv.ParseInt(strings.Trim(s, " \t\n\r\v\f"), 10, 64); err == nil && n != i {
				t.Fatalf("Int(%q) = %d, want %d", s, n, i)
			}
		}
		_ = LooseEqualsInt(s)
		_ = Empty(s)
		_ = FormatFloat(fl)
		if str, ok := String(s); !ok || str != s {
			t.Fatalf("String(%q) = %q, %v", s, str, ok)
		}
		if numeric {
			// A JSON number holds only what json_decode accepts, a subset of numeric strings.
			num := json.Number(strings.Trim(s, " \t\n\r\v\f"))
			_, _ = Int(num), Float(num)
			_ = LooseEqualsInt(num)
			_ = Empty(num)
			if _, ok := String(num); !ok {
				t.Fatalf("String(json.Number(%q)) failed", num)
			}
		}
		for _, it := range ListToArray(s) {
			switch x := it.(type) {
			case json.Number:
				if !IsNumericString(string(x)) {
					t.Fatalf("ListToArray(%q) made the number %q of a non-numeric item", s, x)
				}
			case string:
				if x == "" {
					t.Fatalf("ListToArray(%q) kept an empty item", s)
				}
			default:
				t.Fatalf("ListToArray(%q) gave a %T", s, it)
			}
		}
		d := URLDecode(s)
		if len(d) > len(s) {
			t.Fatalf("URLDecode(%q) = %q is longer", s, d)
		}
		if !strings.ContainsAny(s, "%+") && d != s {
			t.Fatalf("URLDecode(%q) = %q changed text without escapes", s, d)
		}
		_ = FilterValidateURL(s)
		if low := StrToLower(s); len(low) != len(s) {
			t.Fatalf("StrToLower(%q) changed the length", s)
		}
	})
}
