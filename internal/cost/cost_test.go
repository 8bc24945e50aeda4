package cost

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// createState applies Stored the way a REST create writes it and returns the
// resulting meta: _EventCost rows, and symbol/position ("" when no row).
func createState(st Stored) (rows []string, symbol, position string) {
	if st.SkipOnCreate {
		return nil, "", ""
	}
	if st.SymbolSet {
		symbol = st.Symbol
	}
	if st.PositionSet {
		position = st.Position
	}
	return st.Rows, symbol, position
}

// TestVerifiedTable encodes every row of spec §18.2: each cost is created
// through ForWrite and read back through Display, Values and OfferPrice.
func TestVerifiedTable(t *testing.T) {
	type row struct {
		sent     []string
		list     bool
		cost     string
		values   []string
		symbol   string // stored _EventCurrencySymbol ("" = no row)
		position string // stored _EventCurrencyPosition ("" = no row)
		nothing  bool   // no meta row at all
		offer    string // JSON-LD price where §18.2 lists it ("" = not asserted)
	}
	one := func(s string) []string { return []string{s} }
	tests := []row{
		{sent: one("25"), cost: "$25", values: []string{"25"}},
		{sent: one("0"), cost: "", values: []string{}, nothing: true},
		{sent: one(""), cost: "", values: []string{}, nothing: true},
		{sent: one("Free"), cost: "Free", values: []string{"free"}, offer: "0"},
		{sent: one("free"), cost: "free", values: []string{"free"}, offer: "0"},
		{sent: one("0.00"), cost: "Free", values: []string{"0.00"}, offer: "0"},
		{sent: one("0,00"), cost: "Free", values: []string{"0.00"}},
		{sent: one("$0"), cost: "Free", values: []string{"0"}, symbol: "$", position: "prefix"},
		{sent: one("1,000"), cost: "$1,000", values: []string{"1000"}},
		{sent: one("1.000"), cost: "$1.000", values: []string{"1.000"}},
		{sent: one("20,000"), cost: "$20,000", values: []string{"20000"}},
		{sent: one("20.000"), cost: "$20.000", values: []string{"20.000"}},
		{sent: one("1,000.50"), cost: "$.50", values: []string{".50", "1000"}, offer: ".50"},
		{sent: one("1.000,50"), cost: "$1.000", values: []string{".50", "1.000"}},
		{sent: one("€ 1.234,56"), cost: "$1.234", values: []string{".56", "1.234"}},
		{sent: one("1 000"), cost: "Free – $1", values: []string{"000", "1"}, offer: "Free – 1"},
		{sent: one("1,234,567"), cost: "Free", values: []string{"567", "1234"}},
		{sent: one("1.234.567"), cost: "$.567 – $1.234", values: []string{".567", "1.234"}},
		{sent: one("12345"), cost: "$12345", values: []string{"12345"}},
		{sent: one("10,5"), cost: "$10,5", values: []string{"10.5"}},
		{sent: one("1,5"), cost: "$1,5", values: []string{"1.5"}},
		{sent: one("25,55"), cost: "$25,55", values: []string{"25.55"}},
		{sent: one("10.5"), cost: "$10.5", values: []string{"10.5"}},
		{sent: one(".5"), cost: "$.5", values: []string{".5"}},
		{sent: one("$10"), cost: "$10", values: []string{"10"}, symbol: "$", position: "prefix"},
		{sent: one("€10"), cost: "€10", values: []string{"10"}, symbol: "€", position: "prefix"},
		{sent: one("£7.50"), cost: "£7.50", values: []string{"7.50"}, symbol: "£", position: "prefix"},
		{sent: one("¥1000"), cost: "¥1000", values: []string{"1000"}, symbol: "¥", position: "prefix"},
		{sent: one("USD10"), cost: "USD10", values: []string{"10"}, symbol: "USD", position: "prefix"},
		{sent: one("10$"), cost: "10$", values: []string{"10"}, symbol: "$", position: "postfix"},
		{sent: one("10€"), cost: "10€", values: []string{"10"}, symbol: "€", position: "postfix"},
		{sent: one("10 €"), cost: "10€", values: []string{"10"}, symbol: "€", position: "postfix"},
		{sent: one("10 EUR"), cost: "10EUR", values: []string{"10"}, symbol: "EUR", position: "postfix"},
		{sent: one("10 USD"), cost: "10USD", values: []string{"10"}, symbol: "USD", position: "postfix"},
		{sent: one("EUR 10"), cost: "EUR10", values: []string{"10"}, symbol: "EUR", position: "prefix"},
		{sent: one("$10 - $20"), cost: "$10 – $20", values: []string{"10", "20"}},
		{sent: one("10-20"), cost: "$10 – $20", values: []string{"10", "20"}, offer: "10 – 20"},
		{sent: one("10 - 20"), cost: "$10 – $20", values: []string{"10", "20"}},
		{sent: one("10 to 20"), cost: "$10 – $20", values: []string{"10", "20"}},
		{sent: one("$10 to $20"), cost: "$10 – $20", values: []string{"10", "20"}},
		{sent: one("5 or 10"), cost: "$5 – $10", values: []string{"5", "10"}},
		{sent: one("10.50-20.75"), cost: "$10.50 – $20.75", values: []string{"10.50", "20.75"}},
		{sent: one("10,50 - 20,75"), cost: "Free", values: []string{"10.50", "20.75"}},
		{sent: one("$1,000 - $2,000"), cost: "Free", values: []string{"1000", "2000"}},
		{sent: one("10, 20, 30"), cost: "$30", values: []string{"10.", "20.", "30"}},
		{sent: one("Adults 20, kids 10"), cost: "$10", values: []string{"10", "20."}},
		{sent: one("20$ - 30€"), cost: "$20 – $30", values: []string{"20", "30"}},
		{sent: one("3 - 3"), cost: "3-", values: []string{"3"}, symbol: "-", position: "postfix"},
		{sent: one("-5"), cost: "-5", values: []string{"5"}, symbol: "-", position: "prefix"},
		{sent: one("Free - $10"), cost: "Free - $10", values: []string{"10"}, symbol: "Free - $", position: "prefix"},
		{sent: one("Tickets from 15"), cost: "Tickets from15", values: []string{"15"}, symbol: "Tickets from", position: "prefix"},
		{sent: one("Free entry, donations 5"), cost: "donations5", values: []string{"5"}, symbol: "donations", position: "prefix"},
		{sent: one("Donation"), cost: "Donation", values: []string{"donation"}},
		{sent: one("Pay what you want"), cost: "Pay what you want", values: []string{"pay-what-you-want"}},
		{sent: []string{"10", "20"}, list: true, cost: "$10 – $20", values: []string{"10", "20"}},
		{sent: []string{"0$", "20$", "30$"}, list: true, cost: "Free – 30$", values: []string{"0", "20", "30"}, symbol: "$", position: "postfix", offer: "Free – 30"},
		{sent: []string{"Free", "10"}, list: true, cost: "$10", values: []string{"free", "10"}},
		{sent: []string{"$5", "€10"}, list: true, cost: "$5 – $10", values: []string{"5", "10"}},
		{sent: []string{"10,5", "20"}, list: true, cost: "$20", values: []string{"10.5", "20"}},
	}
	s := DefaultSettings()
	for _, tc := range tests {
		name := fmt.Sprintf("%q displays %q with values %q", tc.sent, tc.cost, tc.values)
		if tc.list {
			name = "list " + name
		}
		t.Run(name, func(t *testing.T) {
			st := ForWrite(tc.sent, tc.list)
			rows, symbol, position := createState(st)
			if tc.nothing {
				if len(rows) != 0 || symbol != "" || position != "" {
					t.Fatalf("create stores rows %q symbol %q position %q, want nothing", rows, symbol, position)
				}
			} else if !slices.Equal(rows, tc.sent) {
				t.Fatalf("create stores rows %q, want %q", rows, tc.sent)
			}
			if symbol != tc.symbol || position != tc.position {
				t.Fatalf("create stores symbol/position %q/%q, want %q/%q", symbol, position, tc.symbol, tc.position)
			}
			if got := Display(rows, symbol, position, s); got != tc.cost {
				t.Errorf("Display = %q, want %q", got, tc.cost)
			}
			if got := Values(rows); !slices.Equal(got, tc.values) {
				t.Errorf("Values = %q, want %q", got, tc.values)
			}
			price, ok := OfferPrice(rows, symbol, position, s)
			if ok != (tc.cost != "") {
				t.Errorf("OfferPrice ok = %v for cost %q", ok, tc.cost)
			}
			if tc.offer != "" && price != tc.offer {
				t.Errorf("OfferPrice = %q, want %q", price, tc.offer)
			}
		})
	}
}

func TestDisplay(t *testing.T) {
	def := DefaultSettings()
	reversed := Settings{DefaultSymbol: "€", ReversePosition: true, DefaultCode: "EUR"}
	tests := []struct {
		name     string
		rows     []string
		symbol   string
		position string
		s        Settings
		want     string
	}{
		{"no rows is empty", nil, "", "", def, ""},
		{"empty rows are ignored", []string{"", ""}, "$", "prefix", def, ""},
		{"an empty row beside a cost is ignored", []string{"", "12"}, "", "", def, "$12"},
		{"reverse option puts the default symbol after", []string{"10"}, "", "", reversed, "10€"},
		{"reverse option decorates both ends of a range", []string{"10-20"}, "", "", reversed, "10€ – 20€"},
		{"event symbol overrides the default", []string{"10"}, "kr", "", def, "kr10"},
		{"event symbol 0 is empty and falls back to the default", []string{"10"}, "0", "prefix", def, "$10"},
		{"position prefix wins over the reverse option", []string{"10"}, "", "prefix", reversed, "€10"},
		{"position suffix puts the symbol after", []string{"15,50"}, "£", "suffix", def, "15,50£"},
		{"any non-prefix position puts the symbol after", []string{"5"}, "$", "whatever", def, "5$"},
		{"position 0 is empty and the option decides", []string{"5"}, "$", "0", reversed, "5$"},
		{"Free is never decorated", []string{"0"}, "€", "prefix", def, "Free"},
		{"0.004 rounds to Free", []string{"0.004"}, "", "", def, "Free"},
		{"0.005 rounds up and is not Free", []string{"0.005"}, "", "", def, "$0.005"},
		{"rows are merged and the range spans them", []string{"5", "50", "20"}, "", "", def, "$5 – $50"},
		{"a key seen in an earlier row keeps that row's text", []string{"10", "10.0"}, "", "", def, "$10.0"},
		{"text rows are kept whole", []string{"Pay what you want"}, "", "", def, "Pay what you want"},
		{"a lone text row beside a number is dropped", []string{"Donation", "25"}, "", "", def, "$25"},
		{"ampersands are escaped", []string{"Free & easy"}, "", "", def, "Free &amp; easy"},
		{"existing entities are not double-escaped", []string{"Free &amp; easy"}, "", "", def, "Free &amp; easy"},
		{"quotes and angle brackets are escaped", []string{`"Kids" <free> 'today'`}, "", "", def, "&quot;Kids&quot; &lt;free&gt; &#039;today&#039;"},
		{"the symbol is escaped with the number", []string{"5"}, "<b>", "prefix", def, "&lt;b&gt;5"},
		{"invalid UTF-8 text escapes to nothing", []string{"Gratis \xff"}, "", "", def, ""},
		{"a two-separator fragment is decorated when its digits are", []string{".5."}, "", "", def, "$.5."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Display(tc.rows, tc.symbol, tc.position, tc.s); got != tc.want {
				t.Errorf("Display(%q, %q, %q) = %q, want %q", tc.rows, tc.symbol, tc.position, got, tc.want)
			}
		})
	}
}

func TestValues(t *testing.T) {
	tests := []struct {
		name string
		rows []string
		want string // JSON of DetailValues
	}{
		{"no cost is an empty list", nil, `[]`},
		{"only empty rows is an empty list", []string{""}, `[]`},
		{"text is its slug", []string{"Gratis für Kinder"}, `["gratis-fur-kinder"]`},
		{"accented text is transliterated", []string{"Entrée libre"}, `["entree-libre"]`},
		{"euro sign transliterates to e", []string{"€ at the door"}, `["e-at-the-door"]`},
		{"slug of a fragment with two separators is an integer", []string{".5."}, `[5]`},
		{"slug of a fragment with two separators keeps dashes", []string{".5.5"}, `["5-5"]`},
		{"free sorts with zero before numbers", []string{"10", "Free"}, `["free","10"]`},
		{"equal numbers keep row order", []string{"10", "10.0"}, `["10","10.0"]`},
		{"rows merge in numeric order", []string{"30", "5", "100"}, `["5","30","100"]`},
		{"a comma fragment not three digits long is a decimal", []string{"1.234,5"}, `[".5","1.234"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(DetailValues(tc.rows))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("DetailValues(%q) = %s, want %s", tc.rows, got, tc.want)
			}
			if len(Values(tc.rows)) != len(DetailValues(tc.rows)) {
				t.Errorf("Values and DetailValues disagree in length")
			}
		})
	}
}

// TestZendSortOrder covers keys PHP cannot order consistently (an integer
// compares numerically with numbers but as text with slugs like "5-1000"):
// only PHP's own zend_sort reproduces the order, which shows in the values of
// equal numeric weight. Expected outputs were produced by PHP 8.2 running the
// same TEC/WordPress logic.
func TestZendSortOrder(t *testing.T) {
	long := "9 0500 3 .9. 10 7 .9. 1.5.5 9 .100 .9. .9. .7.7 0500 9 0500 .7.7 7 10 ,05, .5.5 12 7 1.5.5 .9. " +
		".7.7 100 .7.7 .25.25 0500 3 .3. .5.5 0500 .9. .100 1.5.5 100 12 100"
	tests := []struct {
		name   string
		row    string
		cost   string
		values string
	}{
		{"a slug between cyclic integer keys keeps PHP's insertion-sort place", "10,1 5 .5.1000",
			"$5", `["5-1000","5","10.1"]`},
		{"more than sixteen fragments follow PHP's quicksort", long,
			"$.100 – $0500", `[".100",".5","1.5",3,"3","05","5-5","7","7-7",9,"9","10","12","25-25","100","0500"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows := []string{tc.row}
			if got := Display(rows, "", "", DefaultSettings()); got != tc.cost {
				t.Errorf("Display = %q, want %q", got, tc.cost)
			}
			got, _ := json.Marshal(DetailValues(rows))
			if string(got) != tc.values {
				t.Errorf("values = %s, want %s", got, tc.values)
			}
		})
	}
}

func TestOfferPrice(t *testing.T) {
	def := DefaultSettings()
	tests := []struct {
		name   string
		rows   []string
		symbol string
		want   string
		ok     bool
	}{
		{"no cost has no offer", nil, "", "", false},
		{"an empty row has no offer", []string{""}, "", "", false},
		{"a plain number is kept", []string{"12.99"}, "", "12.99", true},
		{"comma decimals are kept as typed", []string{"15,50"}, "£", "15,50", true},
		{"the event symbol is left out", []string{"$15"}, "USD", "15", true},
		{"a range keeps its en dash", []string{"5 - 50"}, "", "5 – 50", true},
		{"Free becomes 0", []string{"0"}, "", "0", true},
		{"free in any case becomes 0", []string{"FREE"}, "", "0", true},
		{"Free inside a range stays", []string{"0", "30"}, "", "Free – 30", true},
		{"other text is kept", []string{"Donation"}, "", "Donation", true},
		{"text is escaped like the cost", []string{"Free & easy"}, "", "Free &amp; easy", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := OfferPrice(tc.rows, tc.symbol, "", def)
			if got != tc.want || ok != tc.ok {
				t.Errorf("OfferPrice(%q) = %q, %v; want %q, %v", tc.rows, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestPriceCurrency(t *testing.T) {
	def := DefaultSettings()
	tests := []struct {
		name, code, want string
	}{
		{"event code wins", "GBP", "GBP"},
		{"missing code uses the site default", "", "USD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := PriceCurrency(tc.code, def); got != tc.want {
				t.Errorf("PriceCurrency(%q) = %q, want %q", tc.code, got, tc.want)
			}
		})
	}
}

func TestValueMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"a string value is quoted", Value{Text: "10.5"}, `"10.5"`},
		{"an integer key is bare", Value{Text: "5", Int: true}, `5`},
		{"special characters are JSON-escaped", Value{Text: `a"b`}, `"a\"b"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.v)
			if err != nil || string(got) != tc.want {
				t.Errorf("Marshal = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestForWrite(t *testing.T) {
	tests := []struct {
		name  string
		costs []string
		list  bool
		want  Stored
	}{
		{"a string is one single row", []string{"10"}, false,
			Stored{Rows: []string{"10"}, Single: true}},
		{"an empty string skips create but keeps a row on update", []string{""}, false,
			Stored{Rows: []string{""}, Single: true, SkipOnCreate: true}},
		{"no string at all counts as empty", nil, false,
			Stored{Rows: []string{""}, Single: true, SkipOnCreate: true}},
		{"the string 0 skips create", []string{"0"}, false,
			Stored{Rows: []string{"0"}, Single: true, SkipOnCreate: true}},
		{"an empty list skips create and clears on update", nil, true,
			Stored{SkipOnCreate: true}},
		{"a one-item list is single", []string{"0"}, true,
			Stored{Rows: []string{"0"}, Single: true}},
		{"a longer list is stored row by row", []string{"5", "10"}, true,
			Stored{Rows: []string{"5", "10"}}},
		{"a string is split on commas for the symbol", []string{"10 €, 20 €"}, false,
			Stored{Rows: []string{"10 €, 20 €"}, Single: true, Symbol: "€", Position: "postfix", SymbolSet: true, PositionSet: true}},
		{"a list item is not split on commas", []string{"10 €, 20 €"}, true,
			Stored{Rows: []string{"10 €, 20 €"}, Single: true}},
		{"a bare number derives an empty symbol and no position", []string{"7"}, false,
			Stored{Rows: []string{"7"}, Single: true}},
		{"mixed positions leave the position unset", []string{"$5", "10$"}, true,
			Stored{Rows: []string{"$5", "10$"}, Symbol: "$", SymbolSet: true}},
		{"text without numbers derives nothing", []string{"Donation"}, false,
			Stored{Rows: []string{"Donation"}, Single: true}},
		{"two numbers in one component disagree", []string{"$10 - $20"}, false,
			Stored{Rows: []string{"$10 - $20"}, Single: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ForWrite(tc.costs, tc.list)
			if !storedEqual(got, tc.want) {
				t.Errorf("ForWrite(%q, %v) = %+v, want %+v", tc.costs, tc.list, got, tc.want)
			}
		})
	}
}

func TestForWriteDoesNotAliasInput(t *testing.T) {
	in := []string{"5", "10"}
	st := ForWrite(in, true)
	in[0] = "changed"
	if st.Rows[0] != "5" {
		t.Errorf("Rows follow the caller's slice: %q", st.Rows)
	}
}

func storedEqual(a, b Stored) bool {
	return slices.Equal(a.Rows, b.Rows) && a.Single == b.Single && a.SkipOnCreate == b.SkipOnCreate &&
		a.Symbol == b.Symbol && a.Position == b.Position && a.SymbolSet == b.SymbolSet && a.PositionSet == b.PositionSet
}
