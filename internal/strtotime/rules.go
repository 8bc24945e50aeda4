package strtotime

import (
	"regexp"
	"strings"
)

// This file transcribes the re2c grammar of timelib's parse_date.re (the
// scanner behind PHP's strtotime/date_create). Each re2c definition becomes a
// Go regexp fragment and each scanner rule one regexp. The scanner emulates
// re2c (see dfa.go): at every position the longest match over all rules wins
// and ties go to the rule listed first, which is why ruleDefs must stay in the
// order of the .re file.

// ruleID names the scanner rules (the actions in parse_date.re).
type ruleID int

const (
	rYesterday ruleID = iota
	rNow
	rNoon
	rMidnightToday
	rTomorrow
	rTimestamp
	rTimestampMs
	rFirstLastDayOf
	rBackFrontOf
	rWeekdayOf
	rTime12
	rMssqlTime
	rTime24
	rGnuNoColon
	rISO8601NoColon
	rAmerican
	rISODate4
	rISODate2
	rISODateX
	rGnuDateShorter
	rGnuDateShort
	rDateFull
	rPointedDate4
	rPointedDate2
	rDateNoDay
	rDateNoDayRev
	rDateTextual
	rDateNoYearRev
	rDateNoColon
	rXMLRPC
	rPgYDotD
	rISOWeekDay
	rISOWeek
	rPgTextShort
	rPgTextReverse
	rCLF
	rYear4
	rAgo
	rDayText
	rRelativeTextWeek
	rRelativeText
	rMonthText
	rTimezone
	rDateShortWithTime12
	rDateShortWithTime24
	rRelative
	rPunct
	rSpace
	rNulNewline
	numRules
)

// ci turns an re2c case-insensitive string ('...') into a regexp matching the
// same bytes. Only ASCII letters fold, like re2c; Go's (?i) would also fold
// e.g. "s" to U+017F and "µ" to Greek mu, which timelib does not accept.
func ci(words ...string) string {
	var b strings.Builder
	b.WriteString("(?:")
	for n, w := range words {
		if n > 0 {
			b.WriteByte('|')
		}
		for _, r := range w {
			switch {
			case r >= 'a' && r <= 'z':
				b.WriteString("[" + string(r) + string(r-32) + "]")
			case r >= 'A' && r <= 'Z':
				b.WriteString("[" + string(r+32) + string(r) + "]")
			default:
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
	}
	b.WriteString(")")
	return b.String()
}

// g groups a fragment, as re2c does with every named definition.
func g(parts ...string) string { return "(?:" + strings.Join(parts, "") + ")" }

// alt is an alternation of fragments.
func alt(parts ...string) string { return "(?:" + strings.Join(parts, "|") + ")" }

// The re2c definitions, in the order of parse_date.re.
var (
	nbsp  = `\x{A0}`   // [\302][\240]
	nnbsp = `\x{202F}` // [\342][\200][\257]
	space = alt(`[ \t]+`, nbsp+`+`, nnbsp+`+`)
	frac  = `(?:\.[0-9]+)`

	ago = ci("ago")

	hour24   = alt(`[01]?[0-9]`, `2[0-4]`)
	hour24lz = alt(`[01][0-9]`, `2[0-4]`)
	hour12   = alt(`0?[1-9]`, `1[0-2]`)
	minute   = `(?:[0-5]?[0-9])`
	minutelz = `(?:[0-5][0-9])`
	second   = alt(minute, `60`)
	secondlz = alt(minutelz, `60`)
	meridian = `(?:[AaPp]\.?[Mm]\.?[\x00\t ])`
	tz       = alt(`\(?[A-Za-z]{1,6}\)?`, `[A-Z][a-z]+(?:[_/-][A-Za-z]+)+`)
	tzcorr   = g(`(?:GMT)?[+-]`, alt(g(hour24, `(?::?`, minute, `)?`), g(hour24lz, minutelz, secondlz), g(hour24lz, `:`, minutelz, `:`, secondlz)))

	daysuf = `(?:st|nd|rd|th)`

	month         = alt(`0?[0-9]`, `1[0-2]`)
	day           = g(alt(`[0-2]?[0-9]`, `3[01]`), daysuf, `?`)
	year          = `(?:[0-9]{1,4})`
	year2         = `(?:[0-9]{2})`
	year4         = `(?:[0-9]{4})`
	year4withsign = `(?:[+-]?[0-9]{4})`
	yearx         = `(?:[+-][0-9]{5,19})`

	dayofyear  = alt(`00[1-9]`, `0[1-9][0-9]`, `[1-2][0-9][0-9]`, `3[0-5][0-9]`, `36[0-6]`)
	weekofyear = alt(`0[1-9]`, `[1-4][0-9]`, `5[0-3]`)

	monthlz = alt(`0[0-9]`, `1[0-2]`)
	daylz   = alt(`0[0-9]`, `[1-2][0-9]`, `3[01]`)

	dayfulls   = ci("sundays", "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays")
	dayfull    = ci("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
	dayabbr    = ci("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")
	dayspecial = ci("weekday", "weekdays")
	daytext    = alt(dayfulls, dayfull, dayabbr, dayspecial)

	monthfull  = ci("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december")
	monthabbr  = ci("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
	monthroman = `(?:I|II|III|IV|V|VI|VII|VIII|IX|X|XI|XII)`
	monthtext  = alt(monthfull, monthabbr, monthroman)

	// Time formats
	timetiny12  = g(hour12, space, `?`, meridian)
	timeshort12 = g(hour12, `[:.]`, minutelz, space, `?`, meridian)
	timelong12  = g(hour12, `[:.]`, minute, `[:.]`, secondlz, space, `?`, meridian)

	tt            = `[tT]`
	timetiny24    = g(tt, hour24)
	timeshort24   = g(tt, `?`, hour24, `[:.]`, minute)
	timelong24    = g(tt, `?`, hour24, `[:.]`, minute, `[:.]`, second)
	iso8601long   = g(tt, `?`, hour24, `[:.]`, minute, `[:.]`, second, frac)
	iso8601normtz = g(tt, `?`, hour24, `[:.]`, minute, `[:.]`, secondlz, space, `?`, alt(tzcorr, tz))

	gnunocolon     = g(tt, `?`, hour24lz, minutelz)
	iso8601nocolon = g(tt, `?`, hour24lz, minutelz, secondlz)

	// Date formats
	americanshort    = g(month, `/`, day)
	american         = g(month, `/`, day, `/`, year)
	iso8601dateslash = g(year4, `/`, monthlz, `/`, daylz, `/?`)
	dateslash        = g(year4, `/`, month, `/`, day)
	iso8601date4     = g(year4withsign, `-`, monthlz, `-`, daylz)
	iso8601date2     = g(year2, `-`, monthlz, `-`, daylz)
	iso8601datex     = g(yearx, `-`, monthlz, `-`, daylz)
	gnudateshorter   = g(year4, `-`, month)
	gnudateshort     = g(year, `-`, month, `-`, day)
	pointeddate4     = g(day, `[.\t-]`, month, `[.-]`, year4)
	pointeddate2     = g(day, `[.\t]`, month, `\.`, year2)
	datefull         = g(day, `[ \t.-]*`, monthtext, `[ \t.-]*`, year)
	datenoday        = g(monthtext, `[ .\t-]*`, year4)
	datenodayrev     = g(year4, `[ .\t-]*`, monthtext)
	datetextual      = g(monthtext, `[ .\t-]*`, day, `[,.stndrh\t ]+`, year)
	datenoyear       = g(monthtext, `[ .\t-]*`, day, alt(`[,.stndrh\t ]+`, `\x00`))
	datenoyearrev    = g(day, `[ .\t-]*`, monthtext)
	datenocolon      = g(year4, monthlz, daylz)

	// Special formats
	soap          = g(year4, `-`, monthlz, `-`, daylz, `T`, hour24lz, `:`, minutelz, `:`, secondlz, frac, tzcorr, `?`)
	xmlrpc        = g(year4, monthlz, daylz, `T`, hour24, `:`, minutelz, `:`, secondlz)
	xmlrpcnocolon = g(year4, monthlz, daylz, tt, hour24, minutelz, secondlz)
	wddx          = g(year4, `-`, month, `-`, day, `T`, hour24, `:`, minute, `:`, second)
	pgydotd       = g(year4, `[.-]?`, dayofyear)
	pgtextshort   = g(monthabbr, `-`, daylz, `-`, year)
	pgtextreverse = g(year, `-`, monthabbr, `-`, daylz)
	mssqltime     = g(hour12, `:`, minutelz, `:`, secondlz, `[:.][0-9]+`, meridian)
	isoweekday    = g(year4, `-?W`, weekofyear, `-?[0-7]`)
	isoweek       = g(year4, `-?W`, weekofyear)
	exif          = g(year4, `:`, monthlz, `:`, daylz, ` `, hour24lz, `:`, minutelz, `:`, secondlz)
	firstdayof    = ci("first day of")
	lastdayof     = ci("last day of")
	backof        = g(ci("back of "), hour24, g(space, `?`, meridian), `?`)
	frontof       = g(ci("front of "), hour24, g(space, `?`, meridian), `?`)

	// Common Log Format: 10/Oct/2000:13:55:36 -0700
	clf = g(day, `/`, monthabbr, `/`, year4, `:`, hour24lz, `:`, minutelz, `:`, secondlz, space, tzcorr)

	// Timestamp format: @1126396800
	timestamp   = `(?:@-?[0-9]+)`
	timestampms = `(?:@-?[0-9]+\.[0-9]{0,6})`

	// To fix some ambiguities
	dateshortwithtimeshort12 = g(datenoyear, timeshort12)
	dateshortwithtimelong12  = g(datenoyear, timelong12)
	dateshortwithtimeshort   = g(datenoyear, timeshort24)
	dateshortwithtimelong    = g(datenoyear, timelong24)
	dateshortwithtimelongtz  = g(datenoyear, iso8601normtz)

	// Relative regexps
	reltextnumber = ci("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eight", "eighth", "ninth", "tenth", "eleventh", "twelfth")
	reltexttext   = ci("next", "last", "previous", "this")
	reltextunit   = alt(ci("ms"), `µ[sS]`,
		g(alt(ci("msec", "millisecond"), `µ`+ci("sec"), ci("microsecond", "usec", "sec", "second", "min", "minute", "hour", "day", "fortnight", "forthnight", "month", "year")), `[sS]?`),
		ci("weeks"), daytext)

	relnumber        = `(?:[+-]*[ \t]*[0-9]{1,13})`
	relative         = g(relnumber, space, `?`, alt(reltextunit, ci("week")))
	relativetext     = g(alt(reltextnumber, reltexttext), space, reltextunit)
	relativetextweek = g(reltexttext, space, ci("week"))

	weekdayof = g(alt(reltextnumber, reltexttext), space, alt(dayfulls, dayfull, dayabbr), space, ci("of"))
)

// ruleDefs is the rule list in the order of parse_date.re (ties between
// equally long matches go to the earlier rule).
var ruleDefs = [numRules]string{
	rYesterday:           ci("yesterday"),
	rNow:                 ci("now"),
	rNoon:                ci("noon"),
	rMidnightToday:       alt(ci("midnight"), ci("today")),
	rTomorrow:            ci("tomorrow"),
	rTimestamp:           timestamp,
	rTimestampMs:         timestampms,
	rFirstLastDayOf:      alt(firstdayof, lastdayof),
	rBackFrontOf:         alt(backof, frontof),
	rWeekdayOf:           weekdayof,
	rTime12:              alt(timetiny12, timeshort12, timelong12),
	rMssqlTime:           mssqltime,
	rTime24:              alt(timetiny24, timeshort24, timelong24, iso8601long),
	rGnuNoColon:          gnunocolon,
	rISO8601NoColon:      iso8601nocolon,
	rAmerican:            alt(americanshort, american),
	rISODate4:            alt(iso8601date4, iso8601dateslash, dateslash),
	rISODate2:            iso8601date2,
	rISODateX:            iso8601datex,
	rGnuDateShorter:      gnudateshorter,
	rGnuDateShort:        gnudateshort,
	rDateFull:            datefull,
	rPointedDate4:        pointeddate4,
	rPointedDate2:        pointeddate2,
	rDateNoDay:           datenoday,
	rDateNoDayRev:        datenodayrev,
	rDateTextual:         alt(datetextual, datenoyear),
	rDateNoYearRev:       datenoyearrev,
	rDateNoColon:         datenocolon,
	rXMLRPC:              alt(xmlrpc, xmlrpcnocolon, soap, wddx, exif),
	rPgYDotD:             pgydotd,
	rISOWeekDay:          isoweekday,
	rISOWeek:             isoweek,
	rPgTextShort:         pgtextshort,
	rPgTextReverse:       pgtextreverse,
	rCLF:                 clf,
	rYear4:               year4,
	rAgo:                 ago,
	rDayText:             daytext,
	rRelativeTextWeek:    relativetextweek,
	rRelativeText:        relativetext,
	rMonthText:           alt(monthfull, monthabbr),
	rTimezone:            alt(tzcorr, tz),
	rDateShortWithTime12: alt(dateshortwithtimeshort12, dateshortwithtimelong12),
	rDateShortWithTime24: alt(dateshortwithtimeshort, dateshortwithtimelong, dateshortwithtimelongtz),
	rRelative:            relative,
	rPunct:               `[.,]`,
	rSpace:               space,
	rNulNewline:          `[\x00\n]`,
}
