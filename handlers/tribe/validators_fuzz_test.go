package tribe

import (
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// FuzzPluginValidators: the plugin's is_positive_int, is_string, is_time and list validators accept
// or refuse any value without panic, and refuse with the plain "invalid" answer.
func FuzzPluginValidators(f *testing.F) {
	for _, s := range []string{
		"", "0", "1", "-1", "1.0", "1.5", "1e3", "9223372036854775808", "1e400", " 5", "5 ", "0x10", "true", "FALSE",
		"on", "null", "[]", "{}", "[1,2]", `["1","x"]`, `{"a":1}`, `[[1]]`, "1,2,3", "1,,x", `"5"`, "2026-13-45",
		"tomorrow", "@123", "now", "next monday 25:00", "\xff", "1,2%2C3", `{"0":"a","1":"b"}`, "-0", "00",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 22, 4, 29, 22, 0, time.UTC)
	req := &handlers.Request{Now: now}
	f.Fuzz(func(t *testing.T, s string) {
		vals := []any{s, php.ListToArray(s)}
		if v, err := phpjson.Decode([]byte(s)); err == nil {
			vals = append(vals, v)
		}
		for _, v := range vals {
			if isPositiveInt(v) && php.Int(v) <= 0 {
				t.Fatalf("isPositiveInt(%#v) but (int) is %d", v, php.Int(v))
			}
			for _, fn := range []func(*handlers.Request, any) error{validPositiveInt, validString, validTime, validPositiveIntList} {
				if err := fn(req, v); err != nil && err != handlers.ErrInvalid {
					t.Fatalf("validator failed on %#v with %v", v, err)
				}
			}
		}
	})
}

// FuzzDates: the date parameters (start_date, end_date, starts_before …) go through is_time,
// localize_date and the day-rounding helpers for any text, any clock and any site zone and
// multi-day cutoff without panic, giving database-format datetimes.
func FuzzDates(f *testing.F) {
	for i, s := range []string{
		"", "0", "now", "today", "2026-11-22", "2026-11-22 10:00:00", "2026-11-22T10:00:00+14:00", "@-1", "-1",
		"1795321762", "1795321762.5", "99999999999999999999", "-99999999999999999999", "+1000000000 years",
		"9999-12-31 23:59:59", "0000-00-00", "last day of february", "yesterday 23:59", "tomorrow", "1e5", " 12 ", "\x00",
	} {
		f.Add(s, int64(1795321762+i*3600), "America/New_York", "00:00")
	}
	f.Add("2026-03-08 02:30", int64(1772900000), "America/New_York", "02:30")
	f.Add("today", int64(-62135596800), "UTC", "23:59")
	f.Add("now", int64(253402300799), "Pacific/Kiritimati", "-1:99")
	f.Fuzz(func(t *testing.T, v string, clock int64, zone, cutoff string) {
		loc, err := time.LoadLocation(zone)
		if err != nil || zone == "" || zone == "Local" {
			loc = time.UTC
		}
		site := &calendard.Site{Location: loc, MultiDayCutoff: cutoff}
		now := time.Unix(clock, 0).UTC()
		_, _ = isTimestamp(v)
		_ = isTime(v, now)
		_ = strictDates(v)
		if s, ok := localizeDate(v, site, now); ok && s == "" {
			t.Fatalf("localizeDate(%q) is empty", v)
		}
		for _, s := range []string{beginningOfDay(v, site, now), endOfDay(v, site, now), defaultStartDate(site, now), defaultEndDate(now)} {
			if len(s) < len("2006-01-02 15:04:05") {
				t.Fatalf("%q gave the date %q", v, s)
			}
		}
	})
}
