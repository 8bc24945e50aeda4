package strtotime

import (
	"math"
	"time"
)

// This file ports the parts of timelib's tm2unixtime.c, dow.c and
// parse_date.re (timelib_fill_holes) that turn a parsed time plus "now" into a
// Unix timestamp: relative offsets, weekday and "first/last day of" handling,
// PHP's overflowing normalisation, and local-time-to-UTC conversion.

const (
	secsPerDay       = 86400
	daysPerEra       = 146097
	yearsPerEra      = 400
	hinnantEpochDays = 719468
)

// fillHoles is timelib_fill_holes(parsed, now, TIMELIB_NO_CLONE).
func (t *ptime) fillHoles(now *ptime) {
	if t.haveDate && t.haveTime == 0 {
		t.h, t.i, t.s, t.us = 0, 0, 0, 0
	}
	if t.y != unset || t.m != unset || t.d != unset || t.h != unset || t.i != unset || t.s != unset {
		if t.us == unset {
			t.us = 0
		}
	} else if t.us == unset {
		t.us = now.us
	}
	fill := func(f *int64, v int64) {
		if *f == unset {
			*f = v
		}
	}
	fill(&t.y, now.y)
	fill(&t.m, now.m)
	fill(&t.d, now.d)
	fill(&t.h, now.h)
	fill(&t.i, now.i)
	fill(&t.s, now.s)
	if t.loc == nil {
		t.loc = now.loc
		fill(&t.z, now.z)
		fill(&t.dst, now.dst)
		if t.tzAbbr == "" {
			t.tzAbbr = now.tzAbbr
		}
	}
	if t.zoneType == zoneNone && now.zoneType != zoneNone {
		t.zoneType = now.zoneType
	}
}

// doRangeLimit is do_range_limit: brings *a into [start, end) carrying into *b.
func doRangeLimit(start, end, adj int64, a, b *int64) {
	if *a < start {
		aPlus1 := *a + 1
		*b -= (start-aPlus1)/adj + 1
		*a += adj * ((start - aPlus1) / adj)
		*a += adj
	}
	if *a >= end {
		*b += *a / adj
		*a -= adj * (*a / adj)
	}
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// dec  jan  feb  mar  apr  may  jun  jul  aug  sep  oct  nov  dec
var daysInMonthLeap = [13]int64{31, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
var daysInMonth = [13]int64{31, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// doRangeLimitDays is do_range_limit_days: moves whole months between d and m.
func doRangeLimitDays(y, m, d *int64) bool {
	// can jump an entire leap year period quickly
	if *d >= daysPerEra || *d <= -daysPerEra {
		*y += yearsPerEra * (*d / daysPerEra)
		*d -= daysPerEra * (*d / daysPerEra)
	}
	doRangeLimit(1, 13, 12, m, y)
	if *m < 1 || *m > 12 {
		// Only reachable after int64 overflow (C would index out of bounds);
		// stop rather than panic.
		return false
	}

	table := &daysInMonth
	if isLeap(*y) {
		table = &daysInMonthLeap
	}
	changed := false
	for *d <= 0 && *m > 0 {
		prevMonth, prevYear := *m-1, *y
		if prevMonth < 1 {
			prevMonth += 12
			prevYear--
		}
		if isLeap(prevYear) {
			*d += daysInMonthLeap[prevMonth]
		} else {
			*d += daysInMonth[prevMonth]
		}
		*m--
		changed = true
	}
	for *d > 0 && *m <= 12 && *d > table[*m] {
		*d -= table[*m]
		*m++
		changed = true
	}
	return changed
}

// magicDateCalc is magic_date_calc: a fast path for days counted from the epoch.
func magicDateCalc(t *ptime) {
	// The algorithm doesn't work before the year 1
	if t.d < -719498 {
		return
	}
	g := t.d + hinnantEpochDays - 1
	y := (10000*g + 14780) / 3652425
	ddd := g - (365*y + y/4 - y/100 + y/400)
	if ddd < 0 {
		y--
		ddd = g - (365*y + y/4 - y/100 + y/400)
	}
	mi := (100*ddd + 52) / 3060
	mm := (mi+2)%12 + 1
	y += (mi + 2) / 12
	dd := ddd - (mi*306+5)/10 + 1
	t.y, t.m, t.d = y, mm, dd
}

// normalize is timelib_do_normalize.
func (t *ptime) normalize() {
	if t.us != unset {
		doRangeLimit(0, 1000000, 1000000, &t.us, &t.s)
	}
	if t.s != unset {
		doRangeLimit(0, 60, 60, &t.s, &t.i)
		doRangeLimit(0, 60, 60, &t.i, &t.h)
		doRangeLimit(0, 24, 24, &t.h, &t.d)
	}
	doRangeLimit(1, 13, 12, &t.m, &t.y)

	// Short cut if we're doing things against the Epoch
	if t.y == 1970 && t.m == 1 && t.d != 1 {
		magicDateCalc(t)
	}
	for doRangeLimitDays(&t.y, &t.m, &t.d) {
	}
	doRangeLimit(1, 13, 12, &t.m, &t.y)
}

// epochDays is timelib_epoch_days_from_time (days since 1970-01-01).
func epochDays(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if y < 0 {
		era = y - 399
	}
	era /= yearsPerEra
	yoe := y - era*yearsPerEra
	mp := m - 3
	if m <= 2 {
		mp = m + 9
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*daysPerEra + doe - hinnantEpochDays
}

// dayOfWeek is timelib_day_of_week (0 = Sunday); like timelib's table-based
// formula it is linear in d, so d may lie outside the month.
func dayOfWeek(y, m, d int64) int64 {
	dow := (epochDays(y, m, d) + 4) % 7
	if dow < 0 {
		dow += 7
	}
	return dow
}

// dayNrFromWeekNr is timelib_daynr_from_weeknr: the offset from January 1st
// of ISO week iw, day id (1 = Monday) of year iy.
func dayNrFromWeekNr(iy, iw, id int64) int64 {
	// Figure out the dayofweek for y-1-1
	dow := dayOfWeek(iy, 1, 1)
	// then use that to figure out the offset for day 1 of week 1
	day := -dow
	if dow > 4 {
		day = -(dow - 7)
	}
	// Add weeks and days
	return day + (iw-1)*7 + id
}

// adjustForWeekday is do_adjust_for_weekday.
func (t *ptime) adjustForWeekday() {
	r := &t.rel
	currentDow := dayOfWeek(t.y, t.m, t.d)
	if r.weekdayBehavior == 2 {
		// To make "this week" work, where the current DOW is a "sunday"
		if currentDow == 0 && r.weekday != 0 {
			r.weekday -= 7
		}
		// To make "sunday this week" work, where the current DOW is not a "sunday"
		if r.weekday == 0 && currentDow != 0 {
			r.weekday = 7
		}
		t.d -= currentDow
		t.d += r.weekday
		return
	}
	difference := r.weekday - currentDow
	if (r.d < 0 && difference < 0) || (r.d >= 0 && difference <= -int64(r.weekdayBehavior)) {
		difference += 7
	}
	if r.weekday >= 0 {
		t.d += difference
	} else {
		w := r.weekday
		if w < 0 {
			w = -w
		}
		t.d -= 7 - (w - currentDow)
	}
	r.haveWeekdayRelative = false
}

// adjustRelative is do_adjust_relative.
func (t *ptime) adjustRelative() {
	if t.rel.haveWeekdayRelative {
		t.adjustForWeekday()
	}
	t.normalize()
	if t.haveRelative {
		t.us += t.rel.us
		t.s += t.rel.s
		t.i += t.rel.i
		t.h += t.rel.h
		t.d += t.rel.d
		t.m += t.rel.m
		t.y += t.rel.y
	}
	switch t.rel.firstLastDayOf {
	case specialFirstDayOfMonth:
		t.d = 1
	case specialLastDayOfMonth:
		t.d = 0
		t.m++
	}
	t.normalize()
}

// adjustSpecialWeekday is do_adjust_special_weekday ("N weekdays").
func (t *ptime) adjustSpecialWeekday() {
	count := t.rel.specialAmount
	dow := dayOfWeek(t.y, t.m, t.d)

	// Add increments of 5 weekdays as a week, leaving the DOW unchanged.
	t.d += (count / 5) * 7

	// Deal with the remainder.
	rem := count % 5
	if count > 0 {
		if rem == 0 {
			// Head back to Friday if we stop on the weekend.
			if dow == 0 {
				t.d -= 2
			} else if dow == 6 {
				t.d--
			}
		} else if dow == 6 {
			// We ended up on Saturday, but there's still work to do, so move
			// to Sunday and continue from there.
			t.d++
		} else if dow+rem > 5 {
			// We're on a weekday, but we're going past Friday, so skip right
			// over the weekend.
			t.d += 2
		}
	} else {
		// Completely mirror the forward direction. This also covers the 0
		// case, since if we start on the weekend, we want to move forward as
		// if we stopped there while going backwards.
		if rem == 0 {
			if dow == 6 {
				t.d += 2
			} else if dow == 0 {
				t.d++
			}
		} else if dow == 0 {
			t.d--
		} else if dow+rem < 1 {
			t.d -= 2
		}
	}
	t.d += rem
}

// adjustSpecial is do_adjust_special.
func (t *ptime) adjustSpecial() {
	if t.rel.haveSpecialRelative && t.rel.specialType == specialWeekday {
		t.adjustSpecialWeekday()
	}
	t.normalize()
	t.rel.specialType, t.rel.specialAmount = 0, 0
}

// adjustSpecialEarly is do_adjust_special_early.
func (t *ptime) adjustSpecialEarly() {
	if t.rel.haveSpecialRelative {
		switch t.rel.specialType {
		case specialDayOfWeekInMonth:
			t.d = 1
			t.m += t.rel.m
			t.rel.m = 0
		case specialLastDayOfWeekInMonth:
			t.d = 1
			t.m += t.rel.m + 1
			t.rel.m = 0
		}
	}
	switch t.rel.firstLastDayOf {
	case specialFirstDayOfMonth:
		t.d = 1
	case specialLastDayOfMonth:
		t.d = 0
		t.m++
	}
	t.normalize()
}

// offsetInfo is timelib_get_time_zone_offset_info: the UTC offset in force
// at Unix time ts, the start of that offset period (math.MinInt64 when it has
// been in force since the beginning of the zone data), and whether it is DST.
func offsetInfo(loc *time.Location, ts int64) (offset, transition int64, isDST bool) {
	t := time.Unix(ts, 0).In(loc)
	_, off := t.Zone()
	start, _ := t.ZoneBounds()
	transition = math.MinInt64
	if !start.IsZero() {
		transition = start.Unix()
	}
	return int64(off), transition, t.IsDST()
}

// localToUTC is the zone-identifier branch of do_adjust_timezone: it turns a
// wall-clock time (sse computed as if it were UTC) into a real timestamp,
// resolving skipped and repeated hours the way timelib does.
func localToUTC(sse int64, loc *time.Location, haveZone bool, dst int64) int64 {
	if loc == nil {
		return sse
	}
	currentOffset, currentTransition, currentIsDST := offsetInfo(loc, sse)
	_ = currentTransition
	afterOffset, afterTransition, _ := offsetInfo(loc, sse-currentOffset)
	actualOffset, actualTransition := afterOffset, afterTransition
	if currentOffset == afterOffset && haveZone {
		// Make sure we're not missing a DST change because we don't know the actual offset yet
		if currentOffset >= 0 && dst != 0 && !currentIsDST {
			// Timezone or its DST at or east of UTC, so the local time,
			// interpreted as UTC, leaves DST (as defined in the actual
			// timezone) before the actual local time
			earlierOffset, earlierTransition, _ := offsetInfo(loc, sse-currentOffset-7200)
			if earlierOffset != afterOffset && sse-earlierOffset < afterTransition {
				// Looking behind a bit clarified the actual offset to use
				actualOffset, actualTransition = earlierOffset, earlierTransition
			}
		} else if currentOffset <= 0 && currentIsDST && dst == 0 {
			// Timezone west of UTC, so the local time, interpreted as UTC,
			// leaves DST (as defined in the actual timezone) after the actual
			// local time
			laterOffset, laterTransition, _ := offsetInfo(loc, sse-currentOffset+7200)
			if laterOffset != afterOffset && sse-laterOffset >= laterTransition {
				// Looking ahead a bit clarified the actual offset to use
				actualOffset, actualTransition = laterOffset, laterTransition
			}
		}
	}
	inTransition := actualTransition != math.MinInt64 &&
		sse-actualOffset >= actualTransition+(currentOffset-actualOffset) &&
		sse-actualOffset < actualTransition
	if currentOffset != actualOffset && !inTransition {
		return sse - actualOffset
	}
	return sse - currentOffset
}

// updateTS is timelib_update_ts: resolves relative parts and returns the Unix
// timestamp (microseconds stay in t.us).
func (t *ptime) updateTS(defaultLoc *time.Location) int64 {
	t.adjustSpecialEarly()
	t.adjustRelative()
	t.adjustSpecial()

	days := epochDays(t.y, t.m, t.d)
	sse := t.h*3600 + t.i*60 + t.s
	sse += days * (secsPerDay / 2)
	sse += days * (secsPerDay / 2)

	switch t.zoneType {
	case zoneOffset:
		return sse - t.z
	case zoneAbbr:
		return sse - t.z - t.dst*3600
	case zoneID:
		return localToUTC(sse, t.loc, t.haveZone != 0, t.dst)
	default:
		return localToUTC(sse, defaultLoc, t.haveZone != 0, t.dst)
	}
}
