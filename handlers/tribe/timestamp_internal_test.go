package tribe

import "testing"

// isTimestamp is Tribe__Date_Utils::is_timestamp: is_numeric($v) && (int)$v == $v && date('U', $v) == $v.
func TestIsTimestampIsPHPs(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1804000000", 1804000000, true},
		{"-5", -5, true},
		{" 42", 42, true},   // PHP 8 numeric strings may lead with blanks
		{"1e3", 1000, true}, // (int)"1e3" is 1000, equal to "1e3" numerically
		{"1.0", 1, true},    // integral
		{"1.5", 0, false},   // (int)1.5 != 1.5: parsed as a date string instead
		{"2027-05-10", 0, false},
		{"", 0, false},
		{"12abc", 0, false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, ok := isTimestamp(c.in)
			if ok != c.ok || got != c.want {
				t.Errorf("isTimestamp(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
			}
		})
	}
}
