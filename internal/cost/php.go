package cost

import (
	"math"
	"strconv"
	"strings"
)

// This file holds the few PHP 8 primitives TEC's cost code leans on. They are
// ported for the inputs this package feeds them (cost tokens, slugs, array
// keys), not as general PHP emulation.

// phpSpace is the C-locale isspace() set PHP uses for numeric strings and
// PCRE uses for \s without the /u flag.
const phpSpace = " \t\n\r\v\f"

// phpTrimSet is trim()'s default character list.
const phpTrimSet = " \t\n\r\x00\x0b"

func phpTrim(s string) string { return strings.Trim(s, phpTrimSet) }

// phpEmpty reports PHP empty() for a string: "" and "0" are empty.
func phpEmpty(s string) bool { return s == "" || s == "0" }

type numKind int

const (
	notNumeric numKind = iota
	numLong
	numDouble
)

// numericString is PHP 8's _is_numeric_string_ex without allow_errors:
// optional surrounding whitespace, a sign, digits with an optional fraction
// (or a fraction alone) and an optional exponent. Integer-looking strings that
// overflow int64 become doubles with oflow set to their sign, as in PHP.
func numericString(s string) (kind numKind, l int64, d float64, oflow int) {
	i, n := 0, len(s)
	for i < n && strings.IndexByte(phpSpace, s[i]) >= 0 {
		i++
	}
	start := i
	neg := false
	if i < n && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	intDigits := 0
	for i < n && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	isDouble := false
	fracDigits := 0
	if i < n && s[i] == '.' {
		j := i + 1
		for j < n && s[j] >= '0' && s[j] <= '9' {
			j++
			fracDigits++
		}
		if intDigits > 0 || fracDigits > 0 {
			isDouble = true
			i = j
		}
	}
	if intDigits == 0 && fracDigits == 0 {
		return notNumeric, 0, 0, 0
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < n && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < n && s[j] >= '0' && s[j] <= '9' {
			for j < n && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			isDouble = true
			i = j
		}
	}
	end := i
	for i < n && strings.IndexByte(phpSpace, s[i]) >= 0 {
		i++
	}
	if i != n {
		return notNumeric, 0, 0, 0
	}
	lit := s[start:end]
	if !isDouble {
		if v, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return numLong, v, float64(v), 0
		}
		f, _ := strconv.ParseFloat(lit, 64)
		if neg {
			return numDouble, 0, f, -1
		}
		return numDouble, 0, f, 1
	}
	f, _ := strconv.ParseFloat(lit, 64) // out of range yields ±Inf, as PHP's strtod
	return numDouble, 0, f, 0
}

// isNumeric is PHP is_numeric() for strings.
func isNumeric(s string) bool {
	k, _, _, _ := numericString(s)
	return k != notNumeric
}

// toFloat converts a numeric string the way PHP coerces it to float.
func toFloat(s string) float64 {
	_, _, d, _ := numericString(s)
	return d
}

// strtodPrefix is zval_get_double() on a string (zend_strtod): the leading
// decimal number, 0 when there is none. SORT_NUMERIC compares with it.
func strtodPrefix(s string) float64 {
	i, n := 0, len(s)
	if i < n && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < n && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < n && s[i] == '.' {
		j := i + 1
		for j < n && s[j] >= '0' && s[j] <= '9' {
			j++
			digits++
		}
		i = j
	}
	if digits == 0 {
		return 0
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < n && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < n && s[j] >= '0' && s[j] <= '9' {
			for j < n && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	f, _ := strconv.ParseFloat(s[:i], 64)
	return f
}

// smartStrcmp is zendi_smart_strcmp: two numeric strings compare as numbers,
// anything else byte-wise.
func smartStrcmp(a, b string) int {
	k1, l1, d1, o1 := numericString(a)
	k2, l2, d2, o2 := numericString(b)
	if k1 != notNumeric && k2 != notNumeric {
		if o1 != 0 && o1 == o2 && d1-d2 == 0 {
			return strings.Compare(a, b) // both overflowed the same way: floats lost the difference
		}
		if k1 == numDouble || k2 == numDouble {
			switch {
			case k1 != numDouble:
				if o2 != 0 {
					return -o2
				}
				d1 = float64(l1)
			case k2 != numDouble:
				if o1 != 0 {
					return o1
				}
				d2 = float64(l2)
			case d1 == d2 && math.IsInf(d1, 0):
				return strings.Compare(a, b)
			}
			return cmpFloat(d1, d2)
		}
		return cmpInt(l1, l2)
	}
	return strings.Compare(a, b)
}

// compareLongToString is PHP 8's compare_longs_to_string.
func compareLongToString(l int64, s string) int {
	k, sl, sd, _ := numericString(s)
	switch k {
	case numLong:
		return cmpInt(l, sl)
	case numDouble:
		return cmpFloat(float64(l), sd)
	}
	return strings.Compare(strconv.FormatInt(l, 10), s)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// maxFormatDecimals is the precision cap of PHP's "%.*f" (NDIG - 2).
const maxFormatDecimals = 318

// numberFormat is PHP number_format($f, $dec) with the en_US defaults
// ("." decimal point, "," thousands separator).
func numberFormat(f float64, dec int) string {
	if dec < 0 {
		dec = 0
	}
	neg := f < 0
	if neg {
		f = -f
	}
	f = phpRound(f, dec)
	if math.IsInf(f, 0) {
		return "inf" // "%.*f" of INF; number_format hands it back unchanged
	}
	if math.IsNaN(f) {
		return "nan"
	}
	p := dec
	if p > maxFormatDecimals {
		p = maxFormatDecimals
	}
	plain := strconv.FormatFloat(f, 'f', p, 64)
	intPart, frac, _ := strings.Cut(plain, ".")
	var b strings.Builder
	if neg && f != 0 {
		b.WriteByte('-')
	}
	for i := 0; i < len(intPart); i++ {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(intPart[i])
	}
	if dec > 0 {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// phpRound rounds half away from zero at the given number of decimals,
// judging ties on the shortest decimal representation of f (what PHP's
// pre-rounding aims at: round(0.285, 2) is 0.29, not 0.28).
func phpRound(f float64, places int) float64 {
	if f == 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	neg := f < 0
	sci := strconv.FormatFloat(math.Abs(f), 'e', -1, 64) // d.ddde±x
	mant, expStr, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	keep := exp + 1 + places // significant digits left of the cut
	if keep >= len(digits) {
		return f
	}
	if keep < 0 {
		return math.Copysign(0, f)
	}
	kept := []byte(digits[:keep])
	if digits[keep] >= '5' {
		i := len(kept) - 1
		for ; i >= 0 && kept[i] == '9'; i-- {
			kept[i] = '0'
		}
		if i >= 0 {
			kept[i]++
		} else {
			kept = append([]byte{'1'}, kept...)
		}
	}
	if len(kept) == 0 {
		return math.Copysign(0, f)
	}
	r, _ := strconv.ParseFloat(string(kept)+"e"+strconv.Itoa(-places), 64)
	if neg {
		r = -r
	}
	return r
}
