package tribe

import (
	"math"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/strtotime"
)

// The plugin runs with PHP's default timezone set to UTC (WordPress forces it), so every bare
// strtotime()/date() call below works in UTC; the site zone only enters through localize_date.

// isTimestamp is Tribe__Date_Utils::is_timestamp: a numeric value whose integer part round-trips.
// (int)$v == $v holds only for integral values: "1.5" is a date string, "1e3" the timestamp 1000.
func isTimestamp(v string) (int64, bool) {
	if !php.IsNumericString(v) {
		return 0, false
	}
	f := php.Float(v)
	if f != math.Trunc(f) || math.Abs(f) >= 1<<62 {
		return 0, false
	}
	return int64(f), true
}

// phpStrtotime is strtotime($s) with PHP's default zone UTC; ok is false when PHP returns false.
func phpStrtotime(s string, now time.Time) (time.Time, bool) {
	t, err := strtotime.Parse(s, now, time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// isTime is Tribe__Validator__Base::is_time: numeric, or a string strtotime() accepts with a
// non-zero result (strtotime returning 0 is falsy in PHP).
func isTime(v any, now time.Time) bool {
	if php.IsNumeric(v) {
		return true
	}
	s, ok := v.(string)
	if !ok {
		return false
	}
	t, ok := phpStrtotime(s, now)
	return ok && t.Unix() != 0
}

// localizeDate is Tribe__Timezones::localize_date(DB format, $date): timestamps are UTC instants,
// strings are parsed by DateTime in UTC (or their own offset), then shown in the site zone.
func localizeDate(v string, site *calendard.Site, now time.Time) (string, bool) {
	var t time.Time
	if ts, ok := isTimestamp(v); ok {
		t = time.Unix(ts, 0)
	} else {
		var err error
		if t, err = strtotime.Parse(v, now, time.UTC); err != nil {
			return "", false
		}
	}
	return t.In(handlers.PluginSiteZone(site)).Format(calendard.DBDateTime), true
}

// dayStart returns the Unix time the day-rounding helpers start from: the value itself for
// timestamps, strtotime() otherwise (false, PHP's 0, for unparsable strings).
func dayStart(v string, now time.Time) time.Time {
	if ts, ok := isTimestamp(v); ok {
		return time.Unix(ts, 0).UTC()
	}
	t, ok := phpStrtotime(v, now)
	if !ok {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC()
}

// beginningOfDay is tribe_beginning_of_day($date): midnight (UTC calendar day) plus the multi-day
// cutoff; an empty value means today.
func beginningOfDay(v string, site *calendard.Site, now time.Time) string {
	var t time.Time
	if v == "" || v == "0" {
		t = now.UTC()
	} else {
		t = dayStart(v, now)
	}
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Add(site.CutoffOffset())
	return d.Format(calendard.DBDateTime)
}

// endOfDay is tribe_end_of_day($date): one second before the next day's cutoff.
func endOfDay(v string, site *calendard.Site, now time.Time) string {
	var t time.Time
	if v == "" || v == "0" {
		t = now.UTC()
	} else {
		t = dayStart(v, now)
	}
	d := time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC).Add(site.CutoffOffset() - time.Second)
	return d.Format(calendard.DBDateTime)
}

// defaultStartDate is the list's start_date default: localize_date("yesterday 23:59"), the UTC
// moment shown in the plugin's site zone.
func defaultStartDate(site *calendard.Site, now time.Time) string {
	u := now.UTC()
	y := time.Date(u.Year(), u.Month(), u.Day()-1, 23, 59, 0, 0, time.UTC)
	return y.In(handlers.PluginSiteZone(site)).Format(calendard.DBDateTime)
}

// defaultEndDate is date(DB, strtotime('+24 months')): the UTC clock two years ahead, PHP overflow rules.
func defaultEndDate(now time.Time) string {
	u := now.UTC()
	return time.Date(u.Year(), u.Month()+24, u.Day(), u.Hour(), u.Minute(), u.Second(), 0, time.UTC).Format(calendard.DBDateTime)
}

// strictDates is filter_var($v, FILTER_VALIDATE_BOOLEAN) for strict_dates.
func strictDates(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}
