package tribe

import (
	"testing"
	"time"

	"github.com/calendard/calendard"
)

func nySite(t *testing.T, cutoff string) *calendard.Site {
	t.Helper()
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	return &calendard.Site{Location: loc, TimezoneString: "America/New_York", MultiDayCutoff: cutoff}
}

var recordedNow = time.Date(2026, 11, 22, 4, 29, 21, 0, time.UTC)

func TestTECDateHelpers(t *testing.T) {
	site := nySite(t, "00:00")
	tests := []struct {
		name, got, want string
	}{
		{"default start is yesterday 23:59 UTC in site time", defaultStartDate(site, recordedNow), "2026-11-21 18:59:00"},
		{"default end is the UTC clock 24 months ahead", defaultEndDate(recordedNow), "2028-11-22 04:29:21"},
		{"beginning of day of a date", beginningOfDay("2027-01-01", site, recordedNow), "2027-01-01 00:00:00"},
		{"beginning of day keeps the UTC calendar day", beginningOfDay("2027-03-03 23:30 -05:00", site, recordedNow), "2027-03-04 00:00:00"},
		{"beginning of day of the default start", beginningOfDay("2026-11-21 18:59:00", site, recordedNow), "2026-11-21 00:00:00"},
		{"timestamps are UTC instants", beginningOfDay("1798761600", site, recordedNow), "2027-01-01 00:00:00"},
		{"zero means today", beginningOfDay("0", site, recordedNow), "2026-11-22 00:00:00"},
		{"end of day", endOfDay("2028-11-22 04:29:21", site, recordedNow), "2028-11-22 23:59:59"},
		{"relative words", endOfDay("tomorrow", site, recordedNow), "2026-11-23 23:59:59"},
		{"strict mode reads strings as UTC (EST until 2am local)", mustLocalize(t, "2027-03-14", site), "2027-03-13 19:00:00"},
		{"strict mode honours an explicit offset", mustLocalize(t, "2027-03-03T10:00:00+02:00", site), "2027-03-03 03:00:00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

func TestDayRoundingHonoursMultiDayCutoff(t *testing.T) {
	site := nySite(t, "04:00")
	if got := beginningOfDay("2027-01-01", site, recordedNow); got != "2027-01-01 04:00:00" {
		t.Errorf("beginning = %s", got)
	}
	if got := endOfDay("2027-01-01", site, recordedNow); got != "2027-01-02 03:59:59" {
		t.Errorf("end = %s", got)
	}
}

func mustLocalize(t *testing.T, v string, site *calendard.Site) string {
	t.Helper()
	s, ok := localizeDate(v, site, recordedNow)
	if !ok {
		t.Fatalf("localizeDate(%q) failed", v)
	}
	return s
}

func TestIsTime(t *testing.T) {
	for v, want := range map[string]bool{"2027-01-01": true, "next monday": true, "1798761600": true, "garbage": false,
		"2027-13-45": false, "": false, "1970-01-01 00:00:00": false} {
		if got := isTime(v, recordedNow); got != want {
			t.Errorf("isTime(%q) = %v, want %v", v, got, want)
		}
	}
}
