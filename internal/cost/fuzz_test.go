package cost

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDisplay checks that no input makes the read or write side panic and
// that the outputs stay coherent. Under plain `go test` only the seeds run.
func FuzzDisplay(f *testing.F) {
	seeds := []string{
		"", "0", "25", "Free", "1,000.50", "1.000,50", "€ 1.234,56", "1 000", "1,234,567", "1.234.567",
		"10,50 - 20,75", "10, 20, 30", "3 - 3", "-5", "Free entry, donations 5", ".5.", ",05,", "1e5",
		"99999999999999999999999999999999", strings.Repeat("9", 400), "0." + strings.Repeat("0", 400) + "1",
		"<b>Free</b> &amp; easy", "Gratis \xff", "日本 10", "&#0;", "\x00", ".,.,", "%e2%80%93",
	}
	for i, s := range seeds {
		f.Add(s, seeds[(i+5)%len(seeds)], "$", "prefix", i%2 == 0)
	}
	f.Add("10", "20", "\xff", "", false)
	f.Fuzz(func(t *testing.T, row1, row2, symbol, position string, reverse bool) {
		s := DefaultSettings()
		s.ReversePosition = reverse
		rows := []string{row1, row2}
		got := Display(rows, symbol, position, s)
		if !utf8.ValidString(got) {
			t.Fatalf("Display(%q) is not valid UTF-8: %q", rows, got)
		}
		if again := Display(rows, symbol, position, s); again != got {
			t.Fatalf("Display is not deterministic: %q then %q", got, again)
		}
		price, ok := OfferPrice(rows, symbol, position, s)
		if ok != (price != "") {
			t.Fatalf("OfferPrice = %q, %v", price, ok)
		}
		if utf8.ValidString(symbol) && (got != "") != ok {
			t.Fatalf("Display %q but OfferPrice %q, %v", got, price, ok)
		}
		vals := DetailValues(rows)
		if len(Values(rows)) != len(vals) {
			t.Fatalf("Values and DetailValues differ in length")
		}
		if _, err := json.Marshal(vals); err != nil {
			t.Fatalf("DetailValues(%q) does not marshal: %v", rows, err)
		}
		for _, list := range []bool{false, true} {
			st := ForWrite(rows[:1], list)
			if len(st.Rows) != 1 || st.Rows[0] != row1 {
				t.Fatalf("ForWrite(%q, %v).Rows = %q", row1, list, st.Rows)
			}
			if st.PositionSet && st.Position != "prefix" && st.Position != "postfix" {
				t.Fatalf("ForWrite(%q) position %q", row1, st.Position)
			}
		}
	})
}

// FuzzParsePrimitives holds the PHP primitives the cost parser is built on to what sorting and
// min()/max() need of them: comparisons that are antisymmetric (PHP 8's rules for numeric and
// other strings and keys), is_numeric and the float conversion agreeing, number_format for every
// value and decimal count, and the range parser keeping only tokens of its input. Under plain
// `go test` only the seeds run.
func FuzzParsePrimitives(f *testing.F) {
	seeds := []string{
		"", "0", "-0", "00", "1", "01", "-1", " 1", "1 ", "1.", ".5", "1e3", "1e", "1E+2 ", "9223372036854775807",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999", "1e400", "-1e400", "inf", "NaN",
		"1,000", "1.000,50", "1,000.50", "10,50 - 20,75", "Free", "free", "abc", "a1", "1a", "\t1", "..", ",,",
	}
	for i, s := range seeds {
		f.Add(s, seeds[(i*7+3)%len(seeds)], int16(i%5))
	}
	f.Add("0.285", "0.29", int16(2))
	f.Add("1e308", "-1e308", int16(400))
	f.Add("5e-324", "1", int16(-3))
	f.Fuzz(func(t *testing.T, a, b string, dec int16) {
		if c1, c2 := smartStrcmp(a, b), smartStrcmp(b, a); sign(c1) != -sign(c2) {
			t.Fatalf("smartStrcmp(%q, %q) = %d but reversed %d", a, b, c1, c2)
		}
		ka, kb := makeKey(a), makeKey(b)
		if c1, c2 := compareKeys(ka, kb), compareKeys(kb, ka); sign(c1) != -sign(c2) {
			t.Fatalf("compareKeys(%q, %q) = %d but reversed %d", a, b, c1, c2)
		}
		if ka.isInt && ka.text() != a {
			t.Fatalf("makeKey(%q) is the integer %d", a, ka.i)
		}
		kind, l, d, _ := numericString(a)
		if (kind != notNumeric) != isNumeric(a) {
			t.Fatalf("numericString and isNumeric disagree on %q", a)
		}
		if kind == numLong && float64(l) != d {
			t.Fatalf("numericString(%q) = %d and %v", a, l, d)
		}
		_ = strtodPrefix(a)
		_ = compareLongToString(l, b)
		_ = phpTrim(a)
		for _, x := range []float64{toFloat(a), d, math.Copysign(0, -1)} {
			out := numberFormat(x, int(dec))
			if out == "" {
				t.Fatalf("numberFormat(%v, %d) is empty", x, dec)
			}
			r := phpRound(x, int(dec))
			if !math.IsNaN(x) && math.IsNaN(r) {
				t.Fatalf("phpRound(%v, %d) is NaN", x, dec)
			}
		}
		ds, ts := parseSeparators(a)
		if ds == "" || ts == "" {
			t.Fatalf("parseSeparators(%q) = %q, %q", a, ds, ts)
		}
		for _, sorted := range []bool{false, true} {
			m := parseCostRange([]string{a, b}, sorted)
			for _, v := range m.values() {
				if !strings.Contains(a, v) && !strings.Contains(b, v) {
					t.Fatalf("parseCostRange(%q, %q) made up the token %q", a, b, v)
				}
			}
		}
		_ = costByFunc([]string{a, b}, true)
		_ = costByFunc([]string{a, b}, false)
		_ = eventCosts([]string{a, b})
	})
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}
