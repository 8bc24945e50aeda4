// Package mysqlcast reproduces MySQL's conversions of text that the SQLite store and the event
// index need to answer as MariaDB does: CAST(text AS DATETIME) and CAST(text AS SIGNED), and the
// packed YYYYMMDDhhmmss form both compare dates in.
package mysqlcast

import (
	"math"
	"strings"
)

// The plugin's legacy event query (no custom tables) compares each date bound as
// CAST(meta_value AS DATETIME) op 'Y-m-d H:i:s' (WP_Meta_Query with type DATETIME) and orders by
// CAST(start meta AS DATETIME). MariaDB converts the text with str_to_datetime: lenient about
// delimiters, short fields, two-digit years, trailing text and a time part, and with two faces:
//
//   - in a comparison an out-of-calendar day (2027-02-30) keeps its fields and compares as such,
//     and text that is no date at all (empty, 'TBA', 2027-13-01) compares as 0000-00-00 00:00:00;
//   - as a value (what ORDER BY and MIN sort) both are NULL, which sorts first.
//
// Datetime reproduces that conversion; TestMySQLDatetimeIsMariaDBs holds it against a real
// MariaDB. The MariaDB store keeps MySQL's own CAST; SQLite and the event index use this.

// Datetime parses s as MariaDB's CAST(s AS DATETIME): n is the packed YYYYMMDDhhmmss value a
// comparison uses (0 when ok is false), ok reports fields that parse and lie in their ranges, and
// valid reports a date the calendar has (zero month or day allowed), i.e. a non-NULL CAST value.
func Datetime(s string) (n int64, ok, valid bool) {
	i := 0
	for i < len(s) && isMySQLSpace(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '+' {
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, false, false
	}
	var f [6]int64 // year, month, day, hour, minute, second

	// Digits only (a T and packed time, a fraction after 12 or more digits): MySQL's internal
	// format, fixed widths, a four-digit year for 4, 8 or 14 or more digits.
	p := i + digitRun(s, i)
	digits := p - i
	if p < len(s) && s[p] == 'T' {
		k := digitRun(s, p+1)
		p, digits = p+1+k, digits+k
	}
	packedEnd := p
	if p < len(s) && s[p] == '.' && digits >= 12 {
		p++
		p += digitRun(s, p)
	}
	if p == len(s) {
		packed := removeT(s[i:packedEnd])
		yl := 2
		if digits == 4 || digits == 8 || digits >= 14 {
			yl = 4
		}
		at, fields := 0, 0
		for k, w := range [6]int{yl, 2, 2, 2, 2, 2} {
			if at >= len(packed) {
				break
			}
			end := min(at+w, len(packed))
			f[k] = atoiDigits(packed[at:end])
			at = end
			fields++
		}
		if fields < 3 || at < len(packed) {
			return 0, false, false
		}
		if yl == 2 {
			f[0] = twoDigitYear(f[0])
		}
		return packFields(f)
	}

	// Delimited: year, month and day, one punctuation character between them; a two-character
	// year is read as 1970-2069.
	run := digitRun(s, i)
	f[0] = atoiDigits(s[i : i+run])
	if run == 2 {
		f[0] = twoDigitYear(f[0])
	}
	i += run
	for k := 1; k <= 2; k++ {
		if i+1 >= len(s) || !isPunct(s[i]) || !isDigit(s[i+1]) {
			return 0, false, false
		}
		run = digitRun(s, i+1)
		f[k] = atoiDigits(s[i+1 : i+1+run])
		i += 1 + run
	}
	// The time follows a T, blanks or one punctuation character; anything else ends the value.
	if i < len(s) {
		switch {
		case s[i] == 'T':
			i++
		case isMySQLSpace(s[i]):
			for i < len(s) && isMySQLSpace(s[i]) {
				i++
			}
		case isPunct(s[i]):
			i++
		default:
			i = len(s)
		}
		if i < len(s) && isDigit(s[i]) {
			run = digitRun(s, i)
			f[3] = atoiDigits(s[i : i+run])
			i += run
			// Minutes and seconds: one punctuation character before each.
			for k := 4; k <= 5; k++ {
				if i+1 >= len(s) || !isPunct(s[i]) || !isDigit(s[i+1]) {
					break
				}
				run = digitRun(s, i+1)
				f[k] = atoiDigits(s[i+1 : i+1+run])
				i += 1 + run
			}
		}
	}
	return packFields(f)
}

// packFields range-checks the fields (year ≤ 9999, month ≤ 12, day ≤ 31, 23:59:59) and packs them.
func packFields(f [6]int64) (n int64, ok, valid bool) {
	if f[0] > 9999 || f[1] > 12 || f[2] > 31 || f[3] > 23 || f[4] > 59 || f[5] > 59 {
		return 0, false, false
	}
	n = ((((f[0]*100+f[1])*100+f[2])*100+f[3])*100+f[4])*100 + f[5]
	valid = f[1] == 0 || f[2] == 0 || f[2] <= int64(daysIn(f[0], f[1]))
	return n, true, valid
}

func daysIn(year, month int64) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// twoDigitYear is MySQL's rule: 00-69 are 2000-2069, 70-99 are 1970-1999.
func twoDigitYear(y int64) int64 {
	if y < 70 {
		return 2000 + y
	}
	return 1900 + y
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isMySQLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isPunct is ASCII punctuation, MySQL's date delimiters.
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func digitRun(s string, i int) int {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j - i
}

// atoiDigits reads a run of digits, saturating far above any valid field.
func atoiDigits(s string) int64 {
	var n int64
	for _, c := range []byte(s) {
		if n < 1e9 {
			n = n*10 + int64(c-'0')
		}
	}
	return n
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// removeT drops one T between a packed date and a packed time (20270105T100000).
func removeT(s string) string {
	if k := indexByte(s, 'T'); k >= 0 {
		return s[:k] + s[k+1:]
	}
	return s
}

// DatetimeCompared is the packed value CAST(s AS DATETIME) compares as: the fields, or 0
// (0000-00-00 00:00:00) for text that is no date.
func DatetimeCompared(s string) int64 {
	n, _, _ := Datetime(s)
	return n
}

// DatetimeValue is CAST(s AS DATETIME) as a value: "YYYY-MM-DD hh:mm:ss", or ok false for NULL.
func DatetimeValue(s string) (string, bool) {
	n, _, valid := Datetime(s)
	if !valid {
		return "", false
	}
	return Unpack(n), true
}

// Signed is MySQL's CAST(text AS SIGNED): leading whitespace and a sign, then the digits up to
// the first other character (none: 0). Below the signed range the result clamps to its minimum; above
// it the digits are read as an unsigned number (clamped to 2^64-1) and reinterpreted as signed.
func Signed(s string) int64 {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var n uint64
	overflow := false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			overflow = true
			continue
		}
		n = n*10 + d
	}
	switch {
	case neg && (overflow || n > 1<<63):
		return math.MinInt64
	case neg:
		return -int64(n)
	case overflow:
		return -1 // 2^64-1 reinterpreted
	}
	return int64(n)
}

// Pack turns a regular "YYYY-MM-DD HH:MM:SS" into YYYYMMDDhhmmss; ok is false for any other text.
func Pack(s string) (int64, bool) {
	if len(s) != 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	var n int64
	for i := 0; i < 19; i++ {
		switch i {
		case 4, 7, 10, 13, 16:
			continue
		}
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Unpack writes a packed date out again: Pack's input, exactly.
func Unpack(n int64) string {
	var b [19]byte
	for i := 18; i >= 0; i-- {
		switch i {
		case 4, 7:
			b[i] = '-'
		case 10:
			b[i] = ' '
		case 13, 16:
			b[i] = ':'
		default:
			b[i] = byte('0' + n%10)
			n /= 10
		}
	}
	return string(b[:])
}
