package calendard

import (
	"testing"
	"time"
)

func TestZoneAbbr(t *testing.T) {
	tests := []struct {
		name, zone, at, want string
	}{
		{"named zone in summer", "America/New_York", "2027-07-04 10:00:00", "EDT"},
		{"named zone in winter", "America/New_York", "2027-01-04 10:00:00", "EST"},
		{"offset zones are their own abbreviation", "UTC+5:30", "2027-01-04 10:00:00", "UTC+5:30"},
		{"half-hour zone", "Australia/Adelaide", "2027-05-10 10:00:00", "ACST"},
		{"numeric abbreviations become PHP's first listed one", "America/Argentina/Buenos_Aires", "2027-05-10 10:00:00", "CMT"},
		{"abbreviation zones keep their name", "EST", "2027-07-04 10:00:00", "EST"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := EventZone(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			if got := ZoneAbbr(tc.zone, loc, tc.at); got != tc.want {
				t.Errorf("ZoneAbbr(%q, %q) = %q, want %q", tc.zone, tc.at, got, tc.want)
			}
		})
	}
}

func TestEventZoneOffsets(t *testing.T) {
	tests := []struct {
		zone   string
		offset int // seconds east of UTC
		ok     bool
	}{
		{"UTC+5:30", 19800, true},
		{"UTC-3", -10800, true},
		{"UTC+5.5", 19800, true},
		{"UTC", 0, true},
		{"utc", 0, true},
		{"america/new_york", -18000, true}, // PHP matches identifiers case-insensitively (January offset)
		{"+02:00", 7200, true},
		{"UTCfoo", 0, true}, // TEC reads the rest as a number of hours: 0
		{"Invalid/Zone", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.zone, func(t *testing.T) {
			loc, err := EventZone(tc.zone)
			if (err == nil) != tc.ok {
				t.Fatalf("EventZone(%q) error %v, want ok=%v", tc.zone, err, tc.ok)
			}
			if !tc.ok {
				return
			}
			_, off := time.Date(2027, 1, 10, 12, 0, 0, 0, loc).Zone()
			if off != tc.offset {
				t.Errorf("offset %d, want %d", off, tc.offset)
			}
		})
	}
}

func TestTECEventRowValidity(t *testing.T) {
	tests := []struct {
		name                                     string
		start, end, zone, duration, startU, endU string
		ok                                       bool
		wantDuration                             int64
	}{
		{"consistent timed event", "2027-05-10 10:00:00", "2027-05-10 12:00:00", "America/New_York", "7200", "2027-05-10 14:00:00", "2027-05-10 16:00:00", true, 7200},
		{"empty duration is the elapsed time", "2027-05-10 10:00:00", "2027-05-10 12:00:00", "UTC", "", "2027-05-10 10:00:00", "2027-05-10 12:00:00", true, 7200},
		{"all-day keeps a shorter stored duration", "2027-09-02 00:00:00", "2027-09-02 23:59:59", "America/New_York", "28800", "2027-09-02 04:00:00", "2027-09-03 03:59:59", true, 28800},
		{"end before start is refused", "2027-05-10 12:00:00", "2027-05-10 12:00:00", "America/New_York", "0", "2027-05-10 16:00:00", "2027-05-10 14:00:00", false, 0},
		{"UTC copies of another zone are refused", "2027-05-10 10:00:00", "2027-05-10 12:00:00", "America/New_York", "7200", "2027-05-10 00:30:00", "2027-05-10 02:30:00", false, 0},
		{"a duration longer than the event is refused", "2027-05-10 10:00:00", "2027-05-10 12:00:00", "UTC", "9000", "2027-05-10 10:00:00", "2027-05-10 12:00:00", false, 0},
		{"an unknown zone is refused", "2027-05-10 10:00:00", "2027-05-10 12:00:00", "Mars/Olympus", "7200", "2027-05-10 10:00:00", "2027-05-10 12:00:00", false, 0},
		{"offset zones convert arithmetically", "2027-05-10 10:00:00", "2027-05-10 12:00:00", "UTC+5:30", "7200", "2027-05-10 04:30:00", "2027-05-10 06:30:00", true, 7200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			row, ok := tecEventRow(7, tc.start, tc.end, tc.zone, tc.duration, tc.startU, tc.endU)
			if ok != tc.ok {
				t.Fatalf("valid = %v, want %v", ok, tc.ok)
			}
			if ok && row.Duration != tc.wantDuration {
				t.Errorf("duration %d, want %d", row.Duration, tc.wantDuration)
			}
		})
	}
}

func TestOccurrenceHashMatchesThePlugin(t *testing.T) {
	// Recorded: events/create/minimal.
	o := &OccurrenceRow{PostID: 208, StartDate: "2027-05-10 10:00:00", EndDate: "2027-05-10 12:00:00",
		StartDateUTC: "2027-05-10 14:00:00", EndDateUTC: "2027-05-10 16:00:00", Duration: 7200}
	if got := OccurrenceHash(o); got != "09cb4b94b8c3e528005684a9a9aabef4b74e8fde" {
		t.Errorf("hash %s", got)
	}
}

func TestShiftDayAppliesTheMultiDayCutoff(t *testing.T) {
	tests := []struct {
		v, clock string
		cut      time.Duration
		want     string
	}{
		{"2027-08-01 14:00:00", "00:00:00", 0, "2027-08-01 00:00:00"},
		{"2027-08-01", "23:59:59", 0, "2027-08-01 23:59:59"},
		{"2027-08-01 14:00:00", "00:00:00", 4 * time.Hour, "2027-08-01 04:00:00"},
		{"2027-08-01 14:00:00", "23:59:59", 4 * time.Hour, "2027-08-02 03:59:59"},
	}
	for _, tc := range tests {
		if got := shiftDay(tc.v, tc.clock, tc.cut); got != tc.want {
			t.Errorf("shiftDay(%q, %q, %v) = %q, want %q", tc.v, tc.clock, tc.cut, got, tc.want)
		}
	}
}
