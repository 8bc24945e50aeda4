package mysqlcast

import "testing"

func TestUnpackDateIsPackDatesInverse(t *testing.T) {
	for _, s := range []string{"2026-11-25 21:38:17", "0000-00-00 00:00:00", "9999-12-31 23:59:59", "2024-02-29 00:00:01"} {
		n, ok := Pack(s)
		if !ok || Unpack(n) != s {
			t.Errorf("Unpack(Pack(%q)) = %q (%v)", s, Unpack(n), ok)
		}
	}
}
