package cost

import (
	"github.com/calendard/calendard/internal/wptext"
	"regexp"
	"strconv"
	"strings"
)

// costRe is Tribe__Cost_Utils::get_cost_regex(): an optional separator,
// digits, an optional separator, optional digits. Only one separator fits
// between two digit groups, so "1,000.50" yields "1,000" and ".50". Group 2
// (digits after the inner separator) sets the number of decimals for the
// sortable index.
var costRe = regexp.MustCompile(`[,.]?([0-9]+)[,.]?([0-9]*)`)

// key is a PHP array key: numeric strings in canonical integer form become
// integers, everything else stays a string. The distinction matters for
// ordering (PHP 8 compares int and string keys differently) and for
// cost_details.values, where a key is emitted as-is.
type key struct {
	isInt bool
	i     int64
	s     string
}

// makeKey applies ZEND_HANDLE_NUMERIC_STR to an index string.
func makeKey(s string) key {
	if canonicalInt(s) {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return key{isInt: true, i: v}
		}
	}
	return key{s: s}
}

// canonicalInt reports whether s is "0" or an optionally negative decimal
// without leading zeros (and not "-0").
func canonicalInt(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if d == "" || (d[0] == '0' && (len(d) > 1 || len(s) > 1)) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

func (k key) text() string {
	if k.isInt {
		return strconv.FormatInt(k.i, 10)
	}
	return k.s
}

// isNumeric is is_numeric() on the key as PHP sees it.
func (k key) isNumeric() bool { return k.isInt || isNumeric(k.s) }

// compareKeys is PHP 8's key comparison (ksort SORT_REGULAR, min()/max() of
// array_keys()).
func compareKeys(a, b key) int {
	switch {
	case a.isInt && b.isInt:
		return cmpInt(a.i, b.i)
	case !a.isInt && !b.isInt:
		return smartStrcmp(a.s, b.s)
	case a.isInt:
		return compareLongToString(a.i, b.s)
	}
	return -compareLongToString(b.i, a.s)
}

type entry struct {
	k key
	v string
}

// costMap is an insertion-ordered PHP array of index => token.
type costMap struct {
	entries []entry
	pos     map[key]int
}

func newCostMap() *costMap { return &costMap{pos: map[key]int{}} }

// set is $map[$k] = $v: an existing key keeps its place and takes the value.
func (m *costMap) set(k key, v string) {
	if i, ok := m.pos[k]; ok {
		m.entries[i].v = v
		return
	}
	m.pos[k] = len(m.entries)
	m.entries = append(m.entries, entry{k, v})
}

// union is $map += $other: only keys not present yet are appended.
func (m *costMap) union(o *costMap) {
	for _, e := range o.entries {
		if _, ok := m.pos[e.k]; !ok {
			m.set(e.k, e.v)
		}
	}
}

func (m *costMap) values() []string {
	out := make([]string, len(m.entries))
	for i, e := range m.entries {
		out[i] = e.v
	}
	return out
}

// sepsToDot is str_replace([',', '.'], '.', $s).
func sepsToDot(s string) string { return sepToDot.Replace(s) }

// dropSeps is str_replace([',', '.'], "", $s).
func dropSeps(s string) string { return sepDropper.Replace(s) }

var (
	sepToDot   = strings.NewReplacer(",", ".")
	sepDropper = strings.NewReplacer(",", "", ".", "")
)

// parseCostRange is Tribe__Cost_Utils::parse_cost_range(): every cost string
// is split into number-like tokens (a string without digits stays whole), each
// token is indexed by its value formatted to the largest decimal count seen
// (separators dropped) or, when not numeric, by its slug, and the index map is
// optionally key-sorted.
func parseCostRange(costs []string, sortKeys bool) *costMap {
	m := newCostMap()
	if len(costs) == 0 {
		return m
	}
	maxDec := 0
	var tokens []string
	for _, c := range costs {
		found := costRe.FindAllStringSubmatchIndex(c, -1)
		if len(found) == 0 {
			tokens = append(tokens, c)
			continue
		}
		for _, f := range found {
			tokens = append(tokens, c[f[0]:f[1]])
			if d := f[5] - f[4]; d > maxDec {
				maxDec = d
			}
		}
	}
	for _, t := range tokens {
		m.set(indexFor(t, maxDec), t)
	}
	if sortKeys {
		m.ksort()
	}
	return m
}

// ksort is PHP ksort() (SORT_REGULAR): zend_sort with the key comparison,
// ties (impossible between distinct keys, kept for fidelity) broken by the
// original position.
func (m *costMap) ksort() {
	type ranked struct {
		e   entry
		pos int
	}
	r := make([]ranked, len(m.entries))
	for i, e := range m.entries {
		r[i] = ranked{e, i}
	}
	zendSort(r, func(a, b ranked) int {
		if c := compareKeys(a.e.k, b.e.k); c != 0 {
			return c
		}
		return cmpInt(int64(a.pos), int64(b.pos))
	})
	for i, x := range r {
		m.entries[i] = x.e
		m.pos[x.e.k] = i
	}
}

// indexFor builds the "well balanced index" of one token.
func indexFor(token string, decimals int) key {
	numeric := sepsToDot(token)
	if isNumeric(numeric) {
		return makeKey(dropSeps(numberFormat(toFloat(numeric), decimals)))
	}
	return makeKey(wptext.SanitizeTitle(numeric))
}

// eventCosts is Tribe__Events__Cost_Utils::get_event_costs(): each non-empty
// _EventCost row is parsed and sorted on its own, then merged with `+=`, so a
// key seen in an earlier row wins.
func eventCosts(rows []string) *costMap {
	all := newCostMap()
	for _, r := range rows {
		if r == "" {
			continue
		}
		all.union(parseCostRange([]string{r}, true))
	}
	return all
}

// costByFunc is Tribe__Cost_Utils::get_cost_by_func() for "min" or "max".
// The int 0 PHP returns for "nothing numeric" is represented as "0", which
// every later step treats identically.
func costByFunc(tokens []string, wantMax bool) string {
	m := parseCostRange(tokens, true)
	if len(m.entries) == 1 && !isNumeric(m.entries[0].v) {
		return m.entries[0].v // a lone non-numeric cost ("Free", "1,000") is kept as typed
	}
	var best *entry
	for i := range m.entries {
		e := &m.entries[i]
		if !isNumeric(e.v) {
			continue
		}
		if best == nil {
			best = e
			continue
		}
		c := compareKeys(best.k, e.k)
		if (wantMax && c < 0) || (!wantMax && c > 0) {
			best = e
		}
	}
	if best == nil || phpEmpty(best.v) {
		return "0"
	}
	return best.v
}

// sepRunRe finds runs of separators for parse_separators().
var sepRunRe = regexp.MustCompile(`[.,]+`)

// en_US number format, the reference site's locale.
const (
	localeDecimal   = "."
	localeThousands = ","
)

// parseSeparators is Tribe__Cost_Utils::parse_separators(): with both kinds
// of separator the last one is decimal; with one kind it is decimal unless
// exactly three characters follow its last occurrence, in which case the
// locale decides.
func parseSeparators(v string) (dec, thou string) {
	dec, thou = localeDecimal, localeThousands
	runs := sepRunRe.FindAllString(v, -1)
	if len(runs) == 0 {
		return
	}
	last := runs[len(runs)-1]
	mixed := false // count(array_unique($runs)) > 1
	for _, r := range runs[1:] {
		if r != runs[0] {
			mixed = true
			break
		}
	}
	if mixed {
		return last, runs[0]
	}
	frags := strings.Split(v, last)
	if len(frags[len(frags)-1]) != 3 {
		dec = last
		if dec == localeDecimal {
			thou = localeThousands
		} else {
			thou = localeDecimal
		}
	}
	return
}

// phpReplace is str_replace() with one search string; an empty search
// leaves the subject alone as in PHP 8.
func phpReplace(s, search, with string) string {
	if search == "" {
		return s
	}
	return strings.ReplaceAll(s, search, with)
}
