package collation

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Compare's fast path (equal strings, a shared ASCII prefix, ASCII characters of one weight) gives
// exactly what the weight-by-weight scan gives: the same sign and the same value, on strings that
// share prefixes and mix ASCII with characters of no weight, of several weights, with implicit
// weights, invalid UTF-8 and trailing spaces.
func TestCompareFastPathIsTheScan(t *testing.T) {
	pieces := []string{"a", "A", "b", "z", "Z", "0", "9", "_", "-", " ", "  ", ".", "\x00", "\x01", "\t", "\x7f",
		"é", "É", "e\u0301", "ß", "ss", "æ", "ﬁ", "中", "文", "\U0001F600", "\xc3", "\xff", "Ö", "o", "ø", "ǅ"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	tab := uca520()
	check := func(a, b string) {
		t.Helper()
		if got, want := Compare(a, b), tab.compareScan(a, b); got != want {
			t.Fatalf("Compare(%q, %q) = %d, the scan gives %d", a, b, got, want)
		}
	}
	for range 200000 {
		prefix := word()
		a, b := prefix+word(), prefix+word()
		check(a, b)
		check(b, a)
		check(a, a)
	}
	for _, p := range [][2]string{{"_EventStartDate", "_EventStartDateUTC"}, {"_EventStartDate ", "_EventStartDate"},
		{"abc", "ABC"}, {"abc", "abd"}, {"a\x01b", "ab"}, {"", " "}, {"", "a"}, {"post-1", "post_1"}, {"straße", "STRASSE"}} {
		check(p[0], p[1])
		check(p[1], p[0])
	}
}
