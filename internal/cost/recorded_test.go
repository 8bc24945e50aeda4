package cost

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
)

// recorded.json is extracted from compat-tests/testdata/site-a by
// testdata/gen/extract.py: the cost meta of every event record the reference
// returned, with what it answered, and the meta every cost write left.
type recordedFile struct {
	Reads []struct {
		Case     string           `json:"case"`
		Event    int              `json:"event"`
		Rows     []string         `json:"rows"`
		Symbol   string           `json:"symbol"`
		Position string           `json:"position"`
		Code     *string          `json:"code"`
		Cost     string           `json:"cost"`
		Values   json.RawMessage  `json:"values"`
		Offer    *json.RawMessage `json:"offer"`    // present for single-event GETs with json_ld
		Currency *json.RawMessage `json:"currency"` // offers.priceCurrency alongside offer
	} `json:"reads"`
	Writes []struct {
		Case     string          `json:"case"`
		Create   bool            `json:"create"`
		Sent     json.RawMessage `json:"sent"`
		List     bool            `json:"list"`
		Before   []string        `json:"before"`
		Rows     []string        `json:"rows"`
		Symbol   *string         `json:"symbol"`
		Position *string         `json:"position"`
	} `json:"writes"`
}

func loadRecorded(t *testing.T) recordedFile {
	t.Helper()
	data, err := os.ReadFile("testdata/recorded.json")
	if err != nil {
		t.Fatal(err)
	}
	var f recordedFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Reads) == 0 || len(f.Writes) == 0 {
		t.Fatal("recorded.json holds no cases")
	}
	return f
}

func TestRecordedReads(t *testing.T) {
	s := DefaultSettings()
	for _, r := range loadRecorded(t).Reads {
		name := fmt.Sprintf("%s event %d rows %q displays %q", r.Case, r.Event, r.Rows, r.Cost)
		t.Run(name, func(t *testing.T) {
			if got := Display(r.Rows, r.Symbol, r.Position, s); got != r.Cost {
				t.Errorf("Display = %q, want %q", got, r.Cost)
			}
			got, err := json.Marshal(DetailValues(r.Rows))
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, r.Values) {
				t.Errorf("values = %s, want %s", got, r.Values)
			}
			if r.Offer == nil { // not a single-event GET with json_ld
				return
			}
			var want *string
			if err := json.Unmarshal(*r.Offer, &want); err != nil {
				t.Fatal(err)
			}
			price, ok := OfferPrice(r.Rows, r.Symbol, r.Position, s)
			if want == nil {
				if ok {
					t.Errorf("OfferPrice = %q, want no offers", price)
				}
				return
			}
			if !ok || price != *want {
				t.Errorf("OfferPrice = %q, %v; want %q", price, ok, *want)
			}
			var currency string
			if err := json.Unmarshal(*r.Currency, &currency); err != nil {
				t.Fatal(err)
			}
			if got := PriceCurrency(*r.Code, s); got != currency {
				t.Errorf("PriceCurrency(%q) = %q, want %q", *r.Code, got, currency)
			}
		})
	}
}

func TestRecordedWrites(t *testing.T) {
	for _, w := range loadRecorded(t).Writes {
		var sent []string
		if w.List {
			if err := json.Unmarshal(w.Sent, &sent); err != nil {
				t.Fatal(err)
			}
		} else {
			var one string
			if err := json.Unmarshal(w.Sent, &one); err != nil {
				t.Fatal(err)
			}
			sent = []string{one}
		}
		name := fmt.Sprintf("%s stores rows %q", w.Case, w.Rows)
		t.Run(name, func(t *testing.T) {
			st := ForWrite(sent, w.List)
			var rows []string
			var symbol, position *string
			if w.Create {
				r, sym, pos := createState(st)
				rows = r
				if st.SymbolSet {
					symbol = &sym
				}
				if st.PositionSet {
					position = &pos
				}
			} else {
				rows = updateRows(w.Before, st)
				symbol, position = &st.Symbol, &st.Position
			}
			if !slices.Equal(rows, w.Rows) && (len(rows) != 0 || len(w.Rows) != 0) {
				t.Errorf("rows = %q, want %q", rows, w.Rows)
			}
			if !ptrEqual(symbol, w.Symbol) || !ptrEqual(position, w.Position) {
				t.Errorf("symbol/position = %s/%s, want %s/%s", show(symbol), show(position), show(w.Symbol), show(w.Position))
			}
		})
	}
}

// updateRows applies Stored to the rows an update finds, as documented.
func updateRows(before []string, st Stored) []string {
	if !st.Single {
		return st.Rows
	}
	if len(before) == 0 {
		return []string{st.Rows[0]}
	}
	out := make([]string, len(before))
	for i := range out {
		out[i] = st.Rows[0]
	}
	return out
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

func ptrEqual(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func show(p *string) string {
	if p == nil {
		return "<no row>"
	}
	return fmt.Sprintf("%q", *p)
}
