package cost

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestIsNumeric(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"10", true}, {"10.", true}, {".5", true}, {"0.00", true}, {" 5", true}, {"5 ", true},
		{"-5", true}, {"+5", true}, {"1e5", true}, {"1.5E-3", true},
		{"", false}, {".", false}, {"1,000", false}, {"10,", false}, {".5.", false}, {"1e", false},
		{"0x1A", false}, {"5-5", false}, {"free", false}, {"inf", false},
	}
	for _, tc := range tests {
		name := "rejects " + tc.in
		if tc.want {
			name = "accepts " + tc.in
		}
		t.Run(name, func(t *testing.T) {
			if got := isNumeric(tc.in); got != tc.want {
				t.Errorf("isNumeric(%q) = %v", tc.in, got)
			}
		})
	}
}

func TestNumericStringOverflow(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		kind  numKind
		oflow int
	}{
		{"int64 max stays an integer", "9223372036854775807", numLong, 0},
		{"one past int64 max overflows upward", "9223372036854775808", numDouble, 1},
		{"a large negative overflows downward", "-99999999999999999999", numDouble, -1},
		{"a fraction is a double without overflow", "99999999999999999999.5", numDouble, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kind, _, _, oflow := numericString(tc.in)
			if kind != tc.kind || oflow != tc.oflow {
				t.Errorf("numericString(%q) = kind %d oflow %d, want %d %d", tc.in, kind, oflow, tc.kind, tc.oflow)
			}
		})
	}
}

func TestNumberFormat(t *testing.T) {
	tests := []struct {
		name string
		f    float64
		dec  int
		want string
	}{
		{"pads decimals", 1, 3, "1.000"},
		{"groups thousands", 1234567.891, 2, "1,234,567.89"},
		{"rounds half up on the decimal value", 0.285, 2, "0.29"},
		{"rounds 0.5 to 1 at no decimals", 0.5, 0, "1"},
		{"rounds 0.004 down to zero", 0.004, 2, "0.00"},
		{"carries into a new digit", 999.995, 2, "1,000.00"},
		{"keeps negative sign", -1.5, 1, "-1.5"},
		{"drops the sign of a negative that rounds to zero", -0.001, 2, "0.00"},
		{"prints exact binary digits of huge numbers", 12345678901234567890, 0, "12,345,678,901,234,567,168"},
		{"prints infinity as PHP does", math.Inf(1), 2, "inf"},
		{"negative decimals count as zero", 7.6, -2, "8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := numberFormat(tc.f, tc.dec); got != tc.want {
				t.Errorf("numberFormat(%v, %d) = %q, want %q", tc.f, tc.dec, got, tc.want)
			}
		})
	}
}

func TestCompareKeys(t *testing.T) {
	tests := []struct {
		name string
		a, b key
		want int
	}{
		{"integers compare numerically", makeKey("9"), makeKey("10"), -1},
		{"an integer and a numeric string compare numerically", makeKey("1000"), makeKey("0500"), 1},
		{"an integer and a slug compare as strings", makeKey("10"), makeKey("free"), -1},
		{"a slug and an integer compare as strings", makeKey("5-5"), makeKey("10"), 1},
		{"numeric strings compare numerically", makeKey("0500"), makeKey("0567"), -1},
		{"overflowing digit strings compare numerically", makeKey("99999999999999999999"), makeKey("200000000000000000000"), -1},
		{"overflowing strings equal as doubles compare as bytes even against magnitude", makeKey("99999999999999999999"), makeKey("100000000000000000001"), 1},
		{"equal overflowing doubles fall back to bytes", makeKey("100000000000000000000"), makeKey("100000000000000000001"), -1},
		{"slugs compare as bytes", makeKey("donation"), makeKey("free"), -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := compareKeys(tc.a, tc.b); got != tc.want {
				t.Errorf("compareKeys(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
			if got := compareKeys(tc.b, tc.a); got != -tc.want {
				t.Errorf("reversed compareKeys = %d, want %d", got, -tc.want)
			}
		})
	}
}

func TestMakeKey(t *testing.T) {
	tests := []struct {
		in    string
		isInt bool
	}{
		{"0", true}, {"10", true}, {"-5", true}, {"9223372036854775807", true},
		{"0500", false}, {"-0", false}, {"", false}, {"9223372036854775808", false}, {"free", false}, {"1-2", false},
	}
	for _, tc := range tests {
		name := tc.in + " stays a string key"
		if tc.isInt {
			name = tc.in + " becomes an integer key"
		}
		t.Run(name, func(t *testing.T) {
			k := makeKey(tc.in)
			if k.isInt != tc.isInt || k.text() != tc.in {
				t.Errorf("makeKey(%q) = %+v", tc.in, k)
			}
		})
	}
}

func TestStrtodPrefix(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"10.", 10}, {".50", 0.5}, {"000", 0}, {"free", 0}, {"5-5", 5}, {"", 0}, {"1e3x", 1000}, {"-2", -2},
	}
	for _, tc := range tests {
		t.Run(tc.in+" sorts as its leading number", func(t *testing.T) {
			if got := strtodPrefix(tc.in); got != tc.want {
				t.Errorf("strtodPrefix(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseSeparators(t *testing.T) {
	// Cases from tribe-common's own test data set plus the three-digit rule.
	tests := []struct {
		in        string
		dec, thou string
	}{
		{"", ".", ","}, {"Free", ".", ","}, {"23", ".", ","}, {"23.89", ".", ","},
		{"23,892", ".", ","}, {"23,892.4", ".", ","}, {"23.892,4", ",", "."}, {"23,89", ",", "."},
		{"1.000", ".", ","}, {",567", ".", ","}, {"10,", ",", "."},
	}
	for _, tc := range tests {
		t.Run(tc.in+" uses "+tc.dec+" as decimal", func(t *testing.T) {
			dec, thou := parseSeparators(tc.in)
			if dec != tc.dec || thou != tc.thou {
				t.Errorf("parseSeparators(%q) = %q, %q; want %q, %q", tc.in, dec, thou, tc.dec, tc.thou)
			}
		})
	}
}

func TestParseCostRange(t *testing.T) {
	tests := []struct {
		name   string
		costs  []string
		sorted bool
		want   []string // values in map order
	}{
		{"fragments sort by value", []string{"$30 or $5 or $12"}, true, []string{"5", "12", "30"}},
		{"unsorted keeps text order", []string{"$30 or $5"}, false, []string{"30", "5"}},
		{"a repeated value keeps its first place with the last text", []string{"3 - 3.0"}, true, []string{"3.0"}},
		{"rounding to the widest decimals merges fragments", []string{"1 or .5"}, true, []string{".5"}},
		{"text without digits stays whole", []string{"Free entry"}, true, []string{"Free entry"}},
		{"one separator per fragment", []string{"1,000.50"}, true, []string{".50", "1,000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseCostRange(tc.costs, tc.sorted).values(); !slices.Equal(got, tc.want) {
				t.Errorf("parseCostRange(%q) = %q, want %q", tc.costs, got, tc.want)
			}
		})
	}
}

func TestZendSortMatchesStableSortForConsistentOrders(t *testing.T) {
	type item struct{ v, pos int }
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 40, 1100} {
		t.Run(fmt.Sprintf("%d elements sort ascending and stable", n), func(t *testing.T) {
			a := make([]item, n)
			for i := range a {
				a[i] = item{v: (i*7919 + 13) % 11, pos: i}
			}
			want := slices.Clone(a)
			slices.SortStableFunc(want, func(x, y item) int { return x.v - y.v })
			zendSort(a, func(x, y item) int {
				if x.v != y.v {
					return x.v - y.v
				}
				return x.pos - y.pos
			})
			if !slices.Equal(a, want) {
				t.Errorf("zendSort = %v, want %v", a, want)
			}
		})
	}
}
