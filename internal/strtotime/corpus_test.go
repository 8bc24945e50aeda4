package strtotime

import (
	"fmt"
	"math/rand"
	"strings"
)

// diffCorpus is a hand-picked list run before the generated inputs.
var diffCorpus = []string{
	"2027-03-03", "2027-3-3", "2027/03/03", "2027-03-03 10:00", "2027-03-03T10:00:00", "2027-03-03T10:00:00Z",
	"2027-03-03T10:00:00+02:00", "2027-03-03 10:00:00 -05:00", "March 3 2027", "3 March 2027", "Mar 3, 2027",
	"03/04/2027", "04-03-2027", "04.03.2027", "2027-03", "tomorrow", "+1 week", "next monday", "now",
	"today 15:00", "10:00", "last day of next month", "1 year ago", " 2027-03-03 ", "@1804000000",
	"2027-02-30", "", "garbage", "2027-13-45", "2027-03-03 25:00", "yesterday 23:59", "+24 months",
	"+2 weeks", "next friday", "+1 month", "tomorrow 9am", "next wednesday 4pm", "2027", "20270303",
	"monday", "last monday", "this monday", "first day of", "noon", "midnight", "2027W10", "2027-W10-3",
	"Thu, 21 Dec 2000 16:01:07 +0200", "2027-03-03 10:00:00", "2027-03-03T10:00:00.5+02:00",
	"2027-01-31 +1 month", "+1 week 2 days", "@1804000000.5", "@1.", "@-1.5", "1 usec ago", "+500 msec ago",
	"2027-03-14 02:30", "2027-11-07 01:30", "2027-11-07 01:30 EDT", "2027-11-07 01:30 EST",
	"2027-11-07 01:30 America/New_York", "2027-03-14 02:30 America/New_York", "2027-10-31 02:30 Europe/Paris",
	"2027-03-28 02:30 Europe/Paris", "2027-04-04 02:30 Australia/Adelaide", "2027-10-03 02:30 Australia/Adelaide",
	"+1 hour", "+25 hours", "-1 day", "2027-03-14 01:59:59 +1 sec", "weekday", "weekdays", "3 weekdays",
	"-3 weekdays", "0 weekdays", "sunday this week", "saturday next week", "last week", "this week",
	"first monday of january 2027", "last sunday of march", "second friday of next month",
	"back of 7pm", "front of 7", "BACK OF 7", "12am", "12pm", "12:30 a.m.", "6.30pm", "T10", "t1030",
	"1030", "103045", "10:30:45.123456", "10:30:45,5", "2027.062", "2027-062", "I 5 2027", "5 V 2027",
	"10/Oct/2000:13:55:36 -0700", "2027:03:03 10:00:00", "20270303T10:00:00", "20270303t100000",
	"2027-03-03T10:00:00.123456-03:00", "-2027-03-03", "+12027-03-03", "May 5", "5 May", "May 2027",
	"2027 May", "May 5th 10:00", "May-05-2027", "2027-May-05", "Sat, 27 Feb 2027 10:00:00 GMT",
	"Saturday, February 27, 2027 10:00 PM", "2027-03-03 10:00 Europe/Paris", "2027-03-03 10:00 Etc/GMT+5",
	"2027-03-03 10:00 (CET)", "2027-03-03 10:00 GMT+2", "2027-03-03 10:00 GMT-05:30", "2027-03-03 10:00 +0530",
	"2027-03-03 10:00 +5", "2027-03-03 10:00 +123456", "2027-03-03 10:00 +12:34:56", "2027-03-03 10:00 a",
	"2027-03-03 10:00 Z", "2027-03-03 10:00 UTC", "2027-03-03 10:00 utc", "now UTC", "tomorrow UTC",
	"midnight +1 day", "noon yesterday", "yesterday noon", "tomorrow noon", "today midnight",
	"first day of this month 00:00", "last day of this month 23:59:59", "last day of february",
	"first sat of July 2027", "+1 week saturday", "saturday +1 week", "3 saturdays", "-2 mondays",
	"next year", "last year", "this year", "next month", "previous month", "+1 fortnight", "2 fortnights ago",
	"1 forthnight", "+1 sec", "+1 secs", "+1 min", "+2 mins", "+1 hours", "+1 days", "eighth day",
	"twelfth month", "eight weeks", "--1 day", "+-1 day", "- 1 day", "+ 1 day", "1day", "1 day1 day",
	"2027-03-03 10:00:00 +02:00 +03:00", "2027-03-03 10:00:00 +02:00 +03:00 +04:00", "10:00 10:00",
	"2027-03-03 2027-03-04", "10:00 2027", "2027 10:00", "10:00 2027 2028", "1804000000", "0", "-1",
	"1804000000.5", "@-1804000000", "@99999999999999999999", "9999-12-31 23:59:59", "0000-01-01",
	"1970-01-01 00:00:00 UTC", "69-03-03", "70-03-03", "03-03-69", "3/3/69", "3/3/70", "3/3/2027",
	"3/3", "12/31", "13/1", "0/0/0", "2027-00-00", "2027-12-00", "2027-02-29", "2028-02-29", "2027-02-31",
	"2027-04-31 12:00", "24:00", "2027-03-03 24:00", "23:60", "23:59:60", "11:60am", "13:00pm",
	"\t2027-03-03\n", "2027-03-03\n10:00", "2027-03-03 10:00 PM", "2027-03-03 10 PM", "10 PM", "10PM",
	"10pm tomorrow", "tomorrow 10pm", "next monday 10pm", "10pm next monday", "mon", "Mon", "MONDAY",
	"sun 10:00", "sundays", "this sunday", "last sunday", "next sunday", "sunday last week",
	"1 week ago monday", "monday 1 week ago", "ago", "1 ago", "3 days ago ago", "yesterday ago",
	"+1 day ago", "2 weekdays ago", "-1 weekday ago", "first day of last month", "last day of -1 month",
	"last day of 2027-02", "first day of 2027-02-15", "2027-02-15 last day of", "2027-01-31 +1 month -1 month",
	"+1 month 2027-01-31", "+1 year 2028-02-29", "2028-02-29 +1 year", "2028-02-29 -1 year", "@0", "@-0",
	"@1804000000 +1 day", "@1804000000 Europe/Paris", "@1804000000 +02:00", "Europe/Paris @1804000000",
	"ISO 8601", "I", "II 2", "IV", "2027 IV", "x", "Z", "EST", "America/Chicago", "America/Argentina/Buenos_Aires",
	"Mar", "March", "mar 2027", "2027-mar", "2027-mar-03", "mar-03-2027", "03-mar-2027", "3-mar-27",
	"3.3.27", "3.3.2027", "03.03.27", "3 3 2027", "2027 3 3", "20270303 10:00", "2027030310:00",
	"20270303100000", "2027-03-03T1000", "2027-03-03T100000", "2027-03-03 1000", "1000 2027-03-03",
	"2027-W01", "2027W01", "2027-W53", "2026-W53-7", "2027W520", "2027-W10-0", "2027-W00", "2027.366",
	"2027.000", "2028.366", "1 µs", "1 µsec ago", "5 ms", "5 msecs", "5 milliseconds", "5 microseconds",
	"5 usec", "\u00a010:00\u00a0", "10:00\u202fpm", "10\u00a0pm", "May\u00a05", "now\u00a0+1\u00a0day",
}

// generateInputs builds random strings from the grammar's vocabulary.
func generateInputs(r *rand.Rand, n int) []string {
	words := []string{
		"jan", "January", "feb", "mar", "apr", "May", "june", "jul", "aug", "sep", "sept", "Oct", "nov", "DEC",
		"I", "II", "IV", "V", "IX", "X", "XII", "mon", "Monday", "tue", "wednesday", "thu", "fri", "sat",
		"sunday", "sundays", "mondays", "weekday", "weekdays", "first", "second", "third", "fourth", "fifth",
		"sixth", "seventh", "eight", "eighth", "ninth", "tenth", "eleventh", "twelfth", "next", "last",
		"previous", "this", "sec", "secs", "second", "seconds", "min", "mins", "minute", "hour", "hours",
		"day", "days", "week", "weeks", "fortnight", "forthnight", "month", "months", "year", "years",
		"ms", "µs", "usec", "msec", "ago", "of", "day of", "first day of", "last day of", "back of",
		"front of", "noon", "midnight", "today", "tomorrow", "yesterday", "now", "am", "pm", "a.m.",
		"P.M.", "AM", "T", "t", "W", "Z", "UTC", "GMT", "EST", "EDT", "CEST", "a", "z", "America/New_York",
		"Europe/Paris", "Etc/GMT", "garbage", "st", "nd", "rd", "th", "GMT+2", "(EST)", "@",
	}
	seps := []string{" ", " ", " ", "", "-", "/", ".", ":", ",", "+", "-", "\t", "  ", ", ", "T", "@"}
	num := func() string {
		switch r.Intn(8) {
		case 0:
			return fmt.Sprint(r.Intn(10))
		case 1:
			return fmt.Sprintf("%02d", r.Intn(100))
		case 2:
			return fmt.Sprint(r.Intn(100))
		case 3:
			return fmt.Sprint(1960 + r.Intn(80))
		case 4:
			return fmt.Sprint(r.Intn(1000000))
		case 5:
			return fmt.Sprint(r.Int63n(100000000000))
		case 6:
			return fmt.Sprintf("%02d", r.Intn(61))
		default:
			return fmt.Sprint(r.Intn(13))
		}
	}
	templates := []string{
		"%Y-%m-%d", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y/%m/%d", "%m/%d/%Y",
		"%d.%m.%Y", "%d-%m-%Y", "%d.%m.%y", "%Y%m%d", "%Y%m%dT%H%M%S", "%B %d %Y", "%d %B %Y", "%b %d, %Y",
		"%Y-%m", "%H:%M", "%H:%M:%S", "%h%p", "%h:%M%p", "%h:%M %p", "%Y-W%w-%u", "%YW%w", "%Y.%j",
		"%d/%b/%Y:%H:%M:%S %z", "%a, %d %b %Y %H:%M:%S %z", "%Y-%m-%d %H:%M %z", "%Y-%m-%dT%H:%M:%S%z",
		"%r %u", "%r %u ago", "%n %a", "%n %u of", "%a %n week", "@%t", "@%t.%f", "%Y-%m-%d %r %u",
		"%n day of %B %Y", "%n %a of %B", "%B %d", "%d %B", "%B %Y", "%Y %B", "%Y-%b-%d", "%b-%d-%Y",
	}
	fill := func(tpl string) string {
		var b strings.Builder
		for i := 0; i < len(tpl); i++ {
			if tpl[i] != '%' || i+1 == len(tpl) {
				b.WriteByte(tpl[i])
				continue
			}
			i++
			switch tpl[i] {
			case 'Y':
				b.WriteString(fmt.Sprintf("%04d", 1900+r.Intn(200)))
			case 'y':
				b.WriteString(fmt.Sprintf("%02d", r.Intn(100)))
			case 'm':
				b.WriteString(fmt.Sprintf("%02d", r.Intn(14)))
			case 'd':
				b.WriteString(fmt.Sprintf("%02d", r.Intn(33)))
			case 'H':
				b.WriteString(fmt.Sprintf("%02d", r.Intn(26)))
			case 'h':
				b.WriteString(fmt.Sprint(r.Intn(14)))
			case 'M', 'S':
				b.WriteString(fmt.Sprintf("%02d", r.Intn(62)))
			case 'f':
				b.WriteString(fmt.Sprint(r.Intn(10000000)))
			case 'p':
				b.WriteString([]string{"am", "pm", "AM", "p.m.", "a.m.", "PM"}[r.Intn(6)])
			case 'B':
				b.WriteString([]string{"March", "jan", "Sept", "december", "IV", "XII", "may"}[r.Intn(7)])
			case 'b':
				b.WriteString([]string{"Mar", "jan", "Sep", "Dec", "feb"}[r.Intn(5)])
			case 'a':
				b.WriteString([]string{"Mon", "tuesday", "sat", "Sunday", "fri", "wednesdays"}[r.Intn(6)])
			case 'z':
				b.WriteString([]string{"+0200", "-05:00", "Z", "UTC", "EST", "+2", "-0930", "GMT", "CEST", "America/Chicago", "+05:30:15"}[r.Intn(11)])
			case 'w':
				b.WriteString(fmt.Sprintf("%02d", r.Intn(55)))
			case 'u':
				b.WriteString([]string{"day", "days", "week", "month", "year", "hour", "min", "sec", "weekday", "weekdays", "fortnight", "monday", "fri", "msec", "usec"}[r.Intn(15)])
			case 'j':
				b.WriteString(fmt.Sprintf("%03d", r.Intn(370)))
			case 'r':
				b.WriteString([]string{"+1", "-2", "3", "+10", "-0", "--4", "+ 5", "12"}[r.Intn(8)])
			case 'n':
				b.WriteString([]string{"first", "second", "next", "last", "previous", "this", "twelfth", "third"}[r.Intn(8)])
			case 't':
				b.WriteString(fmt.Sprint(r.Int63n(4000000000) - 1000000000))
			}
		}
		return b.String()
	}
	charset := []string{"0", "1", "2", "3", "5", "9", " ", "-", "/", ".", ":", ",", "+", "@", "T", "t", "a", "m",
		"p", "W", "Z", "s", "(", ")", "\t", "\n", "\u00a0", "\u202f", "x", "e", "I", "V", "\x00", "\xc2", "\xa0", "\xff", "\r", "\v"}
	mutate := func(s string) string {
		b := []byte(s)
		for k := 1 + r.Intn(3); k > 0; k-- {
			i := 0
			if len(b) > 0 {
				i = r.Intn(len(b) + 1)
			}
			switch r.Intn(3) {
			case 0: // insert
				b = append(b[:i], append([]byte(charset[r.Intn(len(charset))]), b[i:]...)...)
			case 1: // delete
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default: // replace
				if i < len(b) {
					b = append(b[:i], append([]byte(charset[r.Intn(len(charset))]), b[i+1:]...)...)
				}
			}
		}
		return string(b)
	}
	out := make([]string, 0, n)
	for len(out) < n {
		if r.Intn(4) == 0 {
			src := diffCorpus[r.Intn(len(diffCorpus))]
			if len(out) > 0 && r.Intn(2) == 0 {
				src = out[r.Intn(len(out))]
			}
			out = append(out, mutate(src))
			continue
		}
		switch r.Intn(3) {
		case 0:
			out = append(out, fill(templates[r.Intn(len(templates))]))
		case 1:
			var b strings.Builder
			k := 1 + r.Intn(5)
			for i := 0; i < k; i++ {
				if i > 0 {
					b.WriteString(seps[r.Intn(len(seps))])
				}
				if r.Intn(2) == 0 {
					b.WriteString(words[r.Intn(len(words))])
				} else {
					b.WriteString(num())
				}
			}
			out = append(out, b.String())
		default:
			// two templates/words combined
			a := fill(templates[r.Intn(len(templates))])
			c := words[r.Intn(len(words))]
			if r.Intn(2) == 0 {
				a, c = c, a
			}
			out = append(out, a+seps[r.Intn(len(seps))]+c)
		}
	}
	return out
}
