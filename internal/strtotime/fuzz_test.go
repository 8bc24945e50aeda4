package strtotime

import (
	"math"
	"testing"
	"time"
)

// fuzzZones are the zones FuzzParseAt parses in: the handlers' UTC, zones with odd offsets and
// transitions, and fixed offsets as sites without a zone name have them.
var fuzzZones = []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kathmandu",
	"Pacific/Kiritimati", "America/St_Johns", "Pacific/Chatham", "Africa/Casablanca", "Antarctica/Troll"}

// FuzzParseAt extends FuzzParse (fixed clock, New York) to any clock, including the int64 extremes
// a frozen CALENDAR_NOW cannot reach but arithmetic can, and zones with unusual offsets and
// transitions: no panic, the same answer twice, and an answer in the zone asked for unless the text
// names its own. Under plain `go test` only the seeds run.
func FuzzParseAt(f *testing.F) {
	seeds := []string{
		"now", "today", "tomorrow 23:59", "yesterday 23:59", "+24 months", "last day of next month", "first monday of",
		"2026-03-29 02:30", "2026-10-25 02:30 Europe/Berlin", "@0", "@-1", "@9223372036854775807", "2027-01-01T10:00",
		"2027-01-01 10:00:00.999999 +14:00", "next year -1 sec", "midnight", "noon +1 week", "24:00", "0000-00-00 00:00:00",
		"9999-12-31 23:59:59", "-292277022657-01-27", "+9999999999999 days", "1 fortnight ago", "back of 7pm", "front of 0",
		"weekday", "+1 weekdays", "-1000000 weekdays", "tuesday this week", "last sat of July 2008", "2008W27-3", "1978.177",
		"Sat, 02 Jan 2027 10:00:00 GMT", "2027-02-30", "eighth day of", "ISO8601", "\x00", "\xff", "",
	}
	for i, s := range seeds {
		f.Add(s, int64(1795321762)+int64(i)*86399, uint8(i))
	}
	f.Add("now", int64(math.MaxInt64), uint8(0))
	f.Add("+1 year", int64(math.MinInt64), uint8(1))
	f.Add("last day of", int64(-62135596800), uint8(3))
	f.Add("2027-01-01", int64(253402300799), uint8(5))
	f.Fuzz(func(t *testing.T, s string, base int64, zone uint8) {
		loc, err := time.LoadLocation(fuzzZones[int(zone)%len(fuzzZones)])
		if err != nil {
			t.Skip(err) // the test machine's zone database lacks it
		}
		now := time.Unix(base, 0)
		a, errA := Parse(s, now, loc)
		b, errB := Parse(s, now, loc)
		if (errA == nil) != (errB == nil) || !a.Equal(b) || a.Location().String() != b.Location().String() {
			t.Fatalf("Parse(%q) at %d in %s is not deterministic: %v %v / %v %v", s, base, loc, a, errA, b, errB)
		}
		if s == "" && errA == nil {
			t.Fatalf("Parse(\"\") succeeded")
		}
		if errA == nil {
			_ = a.Format("2006-01-02 15:04:05")
			_ = a.UTC().Unix()
		}
		if z, err := ParseTimezone(s); err == nil && z == nil {
			t.Fatalf("ParseTimezone(%q) gave no zone and no error", s)
		}
	})
}
