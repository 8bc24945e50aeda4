// Package cost reproduces The Events Calendar's event cost semantics
// (TEC 6.17.2 / tribe-common): the formatted `cost` string and
// `cost_details.values` of REST event records, the JSON-LD `offers.price`,
// and what a REST create/update stores for a `cost` parameter.
//
// TEC does not parse a cost into a number: every _EventCost row is scanned
// for number-like fragments (an optional "," or ".", digits, an optional
// separator, optional digits), the fragments are indexed and sorted, and the
// smallest and largest fragment that PHP's is_numeric() accepts become the
// displayed range. Many quirks follow from that and are kept on purpose
// (spec §4.3, §7.7 and the verified table §18.2): "1,000.50" displays
// "$.50", "1 000" displays "Free – $1", "10,50 - 20,75" displays "Free".
//
// The locale is the reference site's en_US: decimal point ".", thousands
// separator ",", the word "Free".
package cost

import (
	"encoding/json"
	"github.com/calendard/calendard/internal/wptext"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Settings are the TEC options the cost output depends on. Fields are used as
// given: a stored empty defaultCurrencySymbol really yields no symbol, so
// start from DefaultSettings when the site never changed them.
type Settings struct {
	DefaultSymbol   string // TEC option defaultCurrencySymbol, default "$"
	ReversePosition bool   // TEC option reverseCurrencyPosition (true => symbol after the number)
	DefaultCode     string // TEC option defaultCurrencyCode, default "USD" (JSON-LD priceCurrency)
}

// DefaultSettings are TEC's defaults, which the reference site uses.
func DefaultSettings() Settings {
	return Settings{DefaultSymbol: "$", DefaultCode: "USD"}
}

// rangeSeparator is TEC's "Cost range separator" (space, EN DASH, space).
const rangeSeparator = " \u2013 "

// freeWord is the translated "Free" (en_US).
const freeWord = "Free"

// Display returns the event record's `cost`: the formatted cost from all
// `_EventCost` meta rows in stored (meta_id) order, decorated with the event's
// `_EventCurrencySymbol` / `_EventCurrencyPosition` meta ("" when absent), and
// HTML-escaped as esc_html() does. It is "" when there is no non-empty row.
func Display(rows []string, symbol, position string, s Settings) string {
	return formatted(rows, symbol, position, s, true)
}

// OfferPrice returns the JSON-LD `offers.price`: the cost formatted without
// currency symbols (tribe_get_cost() without symbol: "Free – 1", "10 – 20",
// "15,50"), or "0" when the whole text is "Free" (any case, surrounding
// whitespace allowed). ok is false when there is no cost; `offers` is then
// omitted. The site's monetary decimal point is PHP's C-locale "", so no
// further normalisation happens (recorded: "15,50" stays "15,50").
func OfferPrice(rows []string, symbol, position string, s Settings) (price string, ok bool) {
	p := formatted(rows, symbol, position, s, false)
	if p == "" {
		return "", false
	}
	if freeOfferRe.MatchString(p) {
		return "0", true
	}
	return p, true
}

// freeOfferRe is normalize_price()'s /^\s*free\s*$/i.
var freeOfferRe = regexp.MustCompile(`(?i)^[\t\n\v\f\r ]*free[\t\n\v\f\r ]*$`)

// PriceCurrency returns the JSON-LD `offers.priceCurrency`: the event's
// `_EventCurrencyCode` meta when non-empty, else the defaultCurrencyCode
// option. The REST API never writes that meta, so API-made events always show
// the site default.
func PriceCurrency(code string, s Settings) string {
	if code != "" {
		return code
	}
	return s.DefaultCode
}

// formatted is Tribe__Events__Cost_Utils::get_formatted_event_cost().
func formatted(rows []string, symbol, position string, s Settings, withSymbol bool) string {
	costs := eventCosts(rows)
	if len(costs.entries) == 0 {
		return ""
	}
	tokens := costs.values()
	if phpEmpty(position) {
		position = "prefix"
		if s.ReversePosition {
			position = "suffix"
		}
	}
	ends := [2]string{costByFunc(tokens, false), costByFunc(tokens, true)}
	for i, c := range ends {
		c = replaceWithFree(c)
		if withSymbol {
			c = formatWithCurrency(c, symbol, position, s)
		}
		ends[i] = wptext.EscHTML(c)
	}
	if smartStrcmp(ends[0], ends[1]) == 0 { // PHP `==` on the two strings
		return ends[0]
	}
	return ends[0] + rangeSeparator + ends[1]
}

// replaceWithFree is maybe_replace_cost_with_free(): a numeric cost (either
// separator taken as the decimal point) that rounds to 0.00 becomes "Free".
func replaceWithFree(c string) string {
	p := sepsToDot(c)
	if isNumeric(p) && numberFormat(toFloat(p), 2) == "0.00" {
		return freeWord
	}
	return c
}

// formatWithCurrency is maybe_format_with_currency() + tribe_format_currency():
// only a cost made of digits once separators are removed gets the symbol (the
// event's, or the default when empty), with no space; position "prefix" puts
// it in front, any other value after.
func formatWithCurrency(c, symbol, position string, s Settings) string {
	if !isNumeric(dropSeps(c)) {
		return c
	}
	if phpEmpty(symbol) {
		symbol = s.DefaultSymbol
	}
	if position == "prefix" {
		return symbol + c
	}
	return c + symbol
}

// Value is one entry of `cost_details.values`. TEC emits strings, except in
// one corner: a fragment that is not a number but whose slug is a canonical
// integer (".5." slugs to "5") is emitted as its PHP array key, a JSON
// integer. Int marks that case; MarshalJSON writes it accordingly.
type Value struct {
	Text string
	Int  bool
}

// MarshalJSON writes the value as TEC's json_encode() would.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Int {
		return []byte(v.Text), nil
	}
	return json.Marshal(v.Text)
}

// Values returns `cost_details.values` from the `_EventCost` rows (stored
// order) as strings; see DetailValues for the exact JSON types.
func Values(rows []string) []string {
	vs := DetailValues(rows)
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Text
	}
	return out
}

// DetailValues returns `cost_details.values`: one entry per indexed fragment,
// its thousands separator removed and decimal separator turned into "."
// (parse_separators()), or the fragment's index (e.g. the slug "free") when
// that is not numeric; sorted numerically (stable, PHP SORT_NUMERIC). It is
// empty, never nil, when there is no cost.
func DetailValues(rows []string) []Value {
	costs := eventCosts(rows)
	out := make([]Value, 0, len(costs.entries))
	for _, e := range costs.entries {
		dec, thou := parseSeparators(e.v)
		v := phpReplace(phpReplace(e.v, thou, ""), dec, ".")
		if isNumeric(v) {
			out = append(out, Value{Text: v})
		} else {
			out = append(out, Value{Text: e.k.text(), Int: e.k.isInt})
		}
	}
	slices.SortStableFunc(out, func(a, b Value) int {
		return cmpFloat(a.number(), b.number())
	})
	return out
}

// number is zval_get_double() of the value, what SORT_NUMERIC compares.
func (v Value) number() float64 {
	if v.Int {
		n, _ := strconv.ParseInt(v.Text, 10, 64)
		return float64(n)
	}
	return strtodPrefix(v.Text)
}

// Stored describes what a REST create or update stores for a `cost`
// parameter (spec §7.7).
//
// Create: when SkipOnCreate is set nothing cost-related is written (PHP's
// array_filter() drops "", "0" and an empty list); otherwise Rows are added as
// _EventCost rows in order. _EventCurrencySymbol / _EventCurrencyPosition rows
// are added only when SymbolSet / PositionSet (the reference inserts them
// before the _EventCost rows).
//
// Update: _EventCurrencySymbol and _EventCurrencyPosition are always written
// (Symbol / Position, "" when not derived; rows are created when missing).
// When Single, the value goes through update_metadata(): every existing
// _EventCost row takes Rows[0], or one row is added when there is none (so
// `cost: ""` keeps one row holding ""). Otherwise all _EventCost rows are
// deleted and Rows added in order. An update without `cost` (not handled
// here) deletes every _EventCost row and sets symbol and position to "".
type Stored struct {
	Rows         []string // _EventCost values, raw as sent
	Single       bool     // stored with update_metadata() (a string or one-element list)
	SkipOnCreate bool     // PHP-falsy parameter: a create stores no cost rows at all
	Symbol       string   // derived currency symbol ("" when none)
	Position     string   // "prefix" or "postfix" ("" when none)
	SymbolSet    bool     // Symbol is PHP-truthy; a create writes it only then
	PositionSet  bool     // Position was derived; a create writes it only then
}

// ForWrite computes what is stored for a `cost` parameter. list tells whether
// the parameter was a list (JSON array or repeated form field): a string is
// split on commas to find the currency symbol, a list is not. For a string,
// costs holds that one string (extra entries are ignored, none means "").
// Non-string JSON scalars should be passed as PHP prints them (12 → "12").
//
// The symbol is the text left around the numbers once they are removed,
// trimmed, when every comma-separated component (every list item) agrees; the
// position is "prefix" when that text starts every component containing it,
// "postfix" when it follows. Rows are stored as sent (the reference's
// sanitising of single string values was not observed to change any
// recorded input).
func ForWrite(costs []string, list bool) Stored {
	var st Stored
	if list {
		if len(costs) > 0 {
			st.Rows = slices.Clone(costs)
		}
		st.Single = len(costs) == 1
		st.SkipOnCreate = len(costs) == 0
	} else {
		v := ""
		if len(costs) > 0 {
			v = costs[0]
		}
		costs = []string{v}
		st.Rows = costs
		st.Single = true
		st.SkipOnCreate = phpEmpty(v)
	}
	if st.SkipOnCreate {
		return st // parse_currency_symbol()/position() bail out on empty()
	}
	parts := costs
	if !list {
		parts = commaSplitRe.Split(costs[0], -1)
	}
	sym, ok := currencySymbol(parts)
	if !ok {
		return st
	}
	st.Symbol = sym
	st.SymbolSet = !phpEmpty(sym)
	if pos, ok := currencyPosition(parts, sym); ok {
		st.Position, st.PositionSet = pos, true
	}
	return st
}

// commaSplitRe is preg_split('/\s*,\s*/').
var commaSplitRe = regexp.MustCompile(`[\t\n\v\f\r ]*,[\t\n\v\f\r ]*`)

// currencySymbol is Tribe__Cost_Utils::parse_currency_symbol() on the split
// components. Its quirk is kept: the i-th numeric index is matched against the
// i-th component, so several numbers in one component make the symbols
// disagree ("$10 - $20" gives none).
func currencySymbol(parts []string) (string, bool) {
	costs := parseCostRange(parts, false)
	if len(costs.entries) == 0 {
		return "", false
	}
	var syms []string
	for i, e := range costs.entries {
		if !e.k.isNumeric() {
			continue
		}
		orig := ""
		if i < len(parts) {
			orig = parts[i]
		}
		syms = append(syms, phpTrim(phpReplace(orig, e.v, "")))
		if syms[len(syms)-1] != syms[0] {
			return "", false
		}
	}
	if len(syms) == 0 {
		return "", false
	}
	return syms[0], true
}

// currencyPosition is Tribe__Cost_Utils::parse_currency_position().
func currencyPosition(parts []string, sym string) (string, bool) {
	if phpEmpty(sym) {
		return "", false
	}
	first := ""
	for _, p := range parts {
		at := strings.Index(phpTrim(p), sym)
		if at < 0 {
			continue
		}
		pos := "postfix"
		if at == 0 {
			pos = "prefix"
		}
		if first == "" {
			first = pos
		} else if pos != first {
			return "", false
		}
	}
	return first, first != ""
}
