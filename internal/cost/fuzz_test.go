package cost

import (
	"encoding/json"
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
