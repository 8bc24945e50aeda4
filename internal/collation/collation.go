// Package collation is utf8mb4_unicode_520_ci, WordPress' text collation, as MariaDB applies it:
// comparison (Compare, Equal), LIKE (LikeMatch) and the folding that makes LIKE '%term%' a substring
// test (LikeFold). The SQLite store registers it as its collation and LIKE; the event index compares
// and searches with it; both so answer as MariaDB does.
package collation

import (
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// utf8mb4_unicode_520_ci, the collation of every WordPress text column, for the SQLite store and the event index.
//
// MariaDB compares such text by the primary weights of the Unicode Collation Algorithm 5.2.0: each
// character has zero or more 16-bit weights (letters in any case and with any accent share theirs,
// controls and combining marks have none); characters the table leaves out get "implicit" weights
// computed from the code point. uca520.txt holds MariaDB's table, read back through WEIGHT_STRING
// (see TestCollationTableMatchesMariaDB, which also regenerates it), so the SQLite store equates,
// orders and matches LIKE patterns exactly as MariaDB does.

//go:embed uca520.txt
var uca520Text string

// spaceWeight is the weight of " ": PAD SPACE compares a string's tail with it.
const spaceWeight = 0x020A

type ucaRange struct {
	first, last rune
	base        uint16
}

// ucaTable holds the listed code points' weights in one pool, indexed by a flat array for the Basic
// Multilingual Plane and a sorted list above it. Parsing it is on the path of every SQLite store's
// first comparison (each start of calendard serve): a map of a slice per code point (tens of
// thousands of them) would make it, and its garbage, a large part of a small calendar's start.
// Here the bulk holds no pointers for the collector to follow (bmp comes last, after every pointer
// field, so it is not even scanned).
type ucaTable struct {
	ascii [utf8.RuneSelf][]uint16 // the weights of ASCII, most of any text, one load away
	// ascii1 is an ASCII character's weight when it has exactly one, non-zero (0: it has none or
	// several): Compare's fast path, which needs neither the scanner nor a slice.
	ascii1   [utf8.RuneSelf]uint16
	sup      []ucaSup   // listed code points above U+FFFF, sorted
	pool     []uint16   // the weights the entries point into
	implicit []ucaRange // base weights of implicit ranges other than the default 0xFBC0, sorted
	bmp      [0x10000]ucaEntry
}

// ucaEntry locates a listed code point's weights in the pool: ucaListed | offset<<8 | count; 0 is
// a code point the table leaves out.
type ucaEntry uint32

const ucaListed = 1 << 31

type ucaSup struct {
	r rune
	e ucaEntry
}

var uca520 = sync.OnceValue(func() *ucaTable {
	t, err := parseUCATable(uca520Text)
	if err != nil {
		panic("collation: uca520.txt: " + err.Error())
	}
	return t
})

// parseUCATable reads uca520.txt. Lines: "CP W..." (hex; "-" for no weight), "CP-CP W..." (every
// code point of the range has the weights), "CP-CP W+" (one weight, growing by one per code point)
// and "implicit CP-CP BASE".
func parseUCATable(text string) (*ucaTable, error) {
	t := &ucaTable{}
	hex := func(s string) (int, error) {
		n, err := strconv.ParseUint(s, 16, 32)
		return int(n), err
	}
	span := func(s string) (rune, rune, error) {
		a, b, isRange := strings.Cut(s, "-")
		first, err := hex(a)
		if err != nil {
			return 0, 0, err
		}
		last := first
		if isRange {
			if last, err = hex(b); err != nil {
				return 0, 0, err
			}
		}
		return rune(first), rune(last), nil
	}
	for n, line := range strings.Split(text, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		bad := func() error { return fmt.Errorf("line %d: %q", n+1, line) }
		if f[0] == "implicit" {
			if len(f) != 3 {
				return nil, bad()
			}
			first, last, err := span(f[1])
			base, err2 := hex(f[2])
			if err != nil || err2 != nil {
				return nil, bad()
			}
			t.implicit = append(t.implicit, ucaRange{first, last, uint16(base)})
			continue
		}
		first, last, err := span(f[0])
		if err != nil || len(f) < 2 {
			return nil, bad()
		}
		step := false
		var ws []uint16
		if f[1] != "-" {
			for _, w := range f[1:] {
				if strings.HasSuffix(w, "+") {
					step = true
					w = strings.TrimSuffix(w, "+")
				}
				v, err := hex(w)
				if err != nil {
					return nil, bad()
				}
				ws = append(ws, uint16(v))
			}
		}
		if step && len(ws) != 1 {
			return nil, bad()
		}
		if len(t.pool)+int(last-first)+len(ws) >= 1<<23 || len(ws) > 0xFF {
			return nil, bad()
		}
		// Every code point of a range shares its weights, but for W+ ranges, whose weights are
		// consecutive numbers.
		off := len(t.pool)
		if !step {
			t.pool = append(t.pool, ws...)
		}
		for r := first; r <= last; r++ {
			e := ucaEntry(ucaListed | off<<8 | len(ws))
			if step {
				e = ucaEntry(ucaListed | len(t.pool)<<8 | 1)
				t.pool = append(t.pool, ws[0]+uint16(r-first))
			}
			if r >= 0 && r < 0x10000 {
				t.bmp[r] = e
			} else if k := len(t.sup); k > 0 && t.sup[k-1].r >= r {
				return nil, fmt.Errorf("line %d: code points above U+FFFF out of order", n+1)
			} else {
				t.sup = append(t.sup, ucaSup{r, e})
			}
		}
	}
	var buf [2]uint16
	for r := range t.ascii {
		if w, listed := t.weightsOf(rune(r), &buf); listed {
			t.ascii[r] = w
			if len(w) == 1 {
				t.ascii1[r] = w[0]
			}
		}
	}
	sort.Slice(t.implicit, func(i, j int) bool { return t.implicit[i].first < t.implicit[j].first })
	return t, nil
}

// weightsOf returns the primary weights of a character and whether the table lists it (otherwise
// they are the implicit weights of its code point).
func (t *ucaTable) weightsOf(r rune, buf *[2]uint16) ([]uint16, bool) {
	if r >= 0 && r < utf8.RuneSelf && t.ascii[r] != nil {
		return t.ascii[r], true
	}
	var e ucaEntry
	if r >= 0 && r < 0x10000 {
		e = t.bmp[r]
	} else if i, ok := slices.BinarySearchFunc(t.sup, r, func(s ucaSup, r rune) int { return int(s.r - r) }); ok {
		e = t.sup[i].e
	}
	if e != 0 {
		off, n := int(e>>8&(1<<23-1)), int(e&0xFF)
		return t.pool[off : off+n : off+n], true
	}
	base := uint16(0xFBC0)
	i := sort.Search(len(t.implicit), func(i int) bool { return t.implicit[i].last >= r })
	if i < len(t.implicit) && t.implicit[i].first <= r {
		base = t.implicit[i].base
	}
	buf[0], buf[1] = base+uint16(r>>15), uint16(r&0x7FFF)|0x8000
	return buf[:], false
}

// each calls f with every listed code point and its weights, in code point order.
func (t *ucaTable) each(f func(r rune, w []uint16)) {
	var buf [2]uint16
	for r := range t.bmp {
		if t.bmp[r] != 0 {
			w, _ := t.weightsOf(rune(r), &buf)
			f(rune(r), w)
		}
	}
	for _, s := range t.sup {
		w, _ := t.weightsOf(s.r, &buf)
		f(s.r, w)
	}
}

// listed is the number of code points the table lists.
func (t *ucaTable) listed() int {
	n := len(t.sup)
	for _, e := range t.bmp {
		if e != 0 {
			n++
		}
	}
	return n
}

// ucaScanner yields the non-zero weights of a string one by one (my_uca_scanner_next).
type ucaScanner struct {
	t       *ucaTable
	s       string
	pending []uint16
	buf     [2]uint16
}

// next returns the next weight, or -1 at the end of the string.
func (sc *ucaScanner) next() int {
	for {
		for len(sc.pending) > 0 {
			w := sc.pending[0]
			sc.pending = sc.pending[1:]
			if w != 0 {
				return int(w)
			}
		}
		if sc.s == "" {
			return -1
		}
		r, size := utf8.DecodeRuneInString(sc.s)
		sc.s = sc.s[size:]
		sc.pending, _ = sc.t.weightsOf(r, &sc.buf)
	}
}

// Compare compares two strings as utf8mb4_unicode_520_ci does (my_strnncollsp_uca, PAD SPACE):
// weight by weight; when one string ends, the rest of the other compares against the space weight,
// so trailing spaces never matter. The result is negative, zero or positive.
//
// It is SQLite's collation of every indexed text column, so it runs for nearly every key
// comparison of an index seek: equal strings and ASCII, most keys, take a fast path that gives
// the scan's result without it. The scan has no contractions (one character's weights never depend
// on its neighbours), so an identical prefix ending on a character boundary compares equal and can
// be skipped.
func Compare(a, b string) int {
	if a == b {
		return 0
	}
	t := uca520()
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] && a[i] < utf8.RuneSelf {
		i++
	}
	for ; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca >= utf8.RuneSelf || cb >= utf8.RuneSelf {
			break
		}
		wa, wb := t.ascii1[ca], t.ascii1[cb]
		if wa == 0 || wb == 0 {
			break
		}
		if wa != wb {
			return int(wa) - int(wb)
		}
	}
	return t.compareScan(a[i:], b[i:])
}

// compareScan is Compare weight by weight through the scanners.
func (t *ucaTable) compareScan(a, b string) int {
	sa, sb := ucaScanner{t: t, s: a}, ucaScanner{t: t, s: b}
	x, y := sa.next(), sb.next()
	for x == y && x > 0 {
		x, y = sa.next(), sb.next()
	}
	switch {
	case x > 0 && y < 0:
		for ; x > 0; x = sa.next() {
			if x != spaceWeight {
				return x - spaceWeight
			}
		}
		return 0
	case x < 0 && y > 0:
		for ; y > 0; y = sb.next() {
			if y != spaceWeight {
				return spaceWeight - y
			}
		}
		return 0
	}
	return x - y
}

// SameChar reports whether two characters are equal for LIKE, which compares character by
// character (my_uca_charcmp): the same weights (characters without weights are all equal), or the
// same code point for characters with implicit weights.
func SameChar(a, b rune) bool {
	if a == b {
		return true
	}
	t := uca520()
	var ba, bb [2]uint16
	wa, listedA := t.weightsOf(a, &ba)
	wb, listedB := t.weightsOf(b, &bb)
	if !listedA || !listedB {
		return false
	}
	if len(wa) != len(wb) {
		return false
	}
	for i := range wa {
		if wa[i] != wb[i] {
			return false
		}
	}
	return true
}

// likeFolds maps every character the table lists to one representative of its LIKE class (the
// smallest character with the same weights), so that LIKE '%t%' under the collation becomes a plain
// substring test on folded text: SameChar(a, b) exactly when fold(a) == fold(b).
var likeFolds = sync.OnceValue(func() map[rune]rune {
	t := uca520()
	rep := map[string]rune{}
	key := func(w []uint16) string {
		var b strings.Builder
		for _, x := range w {
			b.WriteString(strconv.FormatUint(uint64(x), 16) + ".")
		}
		return b.String()
	}
	consider := func(r rune, w []uint16) {
		k := key(w)
		if cur, ok := rep[k]; !ok || r < cur {
			rep[k] = r
		}
	}
	t.each(consider)
	folds := make(map[rune]rune, t.listed())
	t.each(func(r rune, w []uint16) { folds[r] = rep[key(w)] })
	return folds
})

// LikeFold returns s with every character replaced by its LIKE class representative. Characters
// with implicit weights equal only themselves and stay as they are; invalid UTF-8 reads as U+FFFD.
func LikeFold(s string) string {
	return string(LikeFoldAppend(make([]byte, 0, len(s)), s))
}

// LikeFoldAppend appends LikeFold(s) to dst. ASCII, most of any text, folds through a table: a
// map lookup per character would be most of the cost of folding a calendar's text.
func LikeFoldAppend(dst []byte, s string) []byte {
	folds, ascii := likeFolds(), likeFoldsASCII()
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			dst = utf8.AppendRune(dst, ascii[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:]) // invalid UTF-8: U+FFFD, one byte, as range does
		if f, ok := folds[r]; ok {
			r = f
		}
		dst = utf8.AppendRune(dst, r)
		i += size
	}
	return dst
}

// likeFoldsASCII is likeFolds for the ASCII characters.
var likeFoldsASCII = sync.OnceValue(func() *[utf8.RuneSelf]rune {
	folds := likeFolds()
	var t [utf8.RuneSelf]rune
	for c := range t {
		t[c] = rune(c)
		if f, ok := folds[rune(c)]; ok {
			t[c] = f
		}
	}
	return &t
})

// LikeMatch matches a LIKE pattern against a value (my_wildcmp_uca): _ is one character, % any run,
// the escape character makes the next pattern character literal (a trailing one is literal itself),
// and characters compare under the collation.
func LikeMatch(p, v []rune, esc rune) bool {
	for len(p) > 0 {
		switch {
		case p[0] == esc && len(p) > 1:
			if len(v) == 0 || !SameChar(v[0], p[1]) {
				return false
			}
			p, v = p[2:], v[1:]
		case p[0] == '%':
			for len(p) > 0 && p[0] == '%' {
				p = p[1:]
			}
			if len(p) == 0 {
				return true
			}
			for i := 0; i <= len(v); i++ {
				if LikeMatch(p, v[i:], esc) {
					return true
				}
			}
			return false
		case p[0] == '_':
			if len(v) == 0 {
				return false
			}
			p, v = p[1:], v[1:]
		default:
			if len(v) == 0 || !SameChar(v[0], p[0]) {
				return false
			}
			p, v = p[1:], v[1:]
		}
	}
	return len(v) == 0
}

// Equal is equality under the collation (exact text first, the common case).
func Equal(a, b string) bool { return a == b || Compare(a, b) == 0 }

// Sample is text that exercises the collation, for the tests of this package and of code built on
// it: case, accents, letters the table equates
// without a decomposition (ø, ł, đ, ſ), width and kana variants, digits in other scripts,
// expansions (æ, ß, ligatures), characters without weights (soft hyphen, zero-width space,
// combining marks), controls that do weigh (tab), trailing spaces, punctuation, CJK, Hangul and
// emoji (implicit weights).
var Sample = []string{"a", "A", "á", "Á", "ä", "å", "æ", "ae", "AE", "ø", "o", "ö", "ł", "l", "đ", "d", "ð", "ß", "ss",
	"ſ", "s", "ı", "i", "İ", "ĳ", "ij", "œ", "oe", "þ", "th", "ŋ", "n", "ñ", "ç", "c", "Café", "cafe", "CAFE ", "cafe  ",
	"a b", "ab", "a-b", "a_b", "a\tb", "a\tb", "a\u00adb", "a\u200bb", "ﬁ", "fi", "Ａ", "ａ", "①", "1", "١", "²", "2", "½",
	"日本語", "にほんご", "ニホンゴ", "한국어", "😀", "😁", "🎉", "x😀", "Ω", "ω", "Ω", "µ", "μ", "K", "k", "…", "...", "“", "\"",
	"’", "'", "&amp;", "&", "—", "-", "–", "", " ", "  ", "Z", "z", "10", "9", "a\\b", "%", "_", "x%y", "x_y", "Ǆ", "ǆ", "dž",
	"ŉ", "ʼn", "ẞ", "ǳ", "dz", "ｶ", "カ", "か", "\u0301", "e\u0301", "é", "ﬀ", "ff", "a\x00", "\u00a0", "a\u00a0"}
