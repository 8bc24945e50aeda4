package wpdb

import "testing"

// A position is reached domain by domain, whatever server wrote the transaction; merge keeps the
// higher sequence number of each domain.
func TestGTIDPositionsCompareByDomain(t *testing.T) {
	p, ok := parseGTIDPos("0-1-100,1-2-5")
	if !ok {
		t.Fatal("unparsed")
	}
	for _, c := range []struct {
		q    string
		want bool
	}{{"", true}, {"0-1-100", true}, {"0-3-99", true}, {"0-1-101", false}, {"1-2-5,0-1-1", true}, {"2-1-1", false}} {
		q, ok := parseGTIDPos(c.q)
		if !ok {
			t.Fatalf("%q unparsed", c.q)
		}
		if got := p.covers(q); got != c.want {
			t.Errorf("%s covers %q = %v, want %v", p, c.q, got, c.want)
		}
	}
	q, _ := parseGTIDPos("0-1-90,2-1-7")
	if got := p.merge(q).String(); got != "0-1-100,1-2-5,2-1-7" {
		t.Errorf("merge: %s", got)
	}
	if _, ok := parseGTIDPos("0-1"); ok {
		t.Error("a GTID without its sequence number parsed")
	}
}
