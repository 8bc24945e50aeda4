package phpserial

import (
	"math"
	"strconv"
	"strings"
)

// phpPrecision is PHP's default "precision" ini setting, used by the
// (string) cast of a float.
const phpPrecision = 14

// ToString converts a scalar as PHP's (string) cast does: null → "",
// false → "", true → "1", integers in decimal, floats with precision=14
// (PHP's default, so 0.1+0.2 gives "0.3"). ok is false for arrays, objects,
// references and non-PHP types.
func ToString(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case bool:
		if x {
			return "1", true
		}
		return "", true
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case float64:
		return formatFloat(x, phpPrecision), true
	}
	return "", false
}

// ToInt converts a scalar as PHP 8's (int) cast does: null/false → 0,
// true → 1, floats truncated toward zero (NaN and ±Inf → 0, out-of-range
// values wrap modulo 2^64), strings by their leading numeric prefix
// ("12abc" → 12, "1e3" → 1000, "abc" → 0; too large → clamped). ok is false
// for arrays, objects, references and non-PHP types.
func ToInt(v any) (int64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		return floatToIntWrap(x), true
	case string:
		return stringToInt(x), true
	}
	return 0, false
}

// ToBool returns PHP truthiness: null, false, 0, 0.0, "", "0" and the empty
// array are false; everything else (including NaN and any object) is true.
func ToBool(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	case int:
		return x != 0
	case float64:
		return x != 0 // NaN != 0, so NaN is true, as in PHP
	case string:
		return x != "" && x != "0"
	case *Array:
		return x.Len() > 0
	}
	return true
}

// floatToIntWrap mirrors zend_dval_to_lval (used by the (int) cast): the
// value modulo 2^64 for finite out-of-range floats, 0 for NaN and ±Inf.
func floatToIntWrap(f float64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	if f >= -9.223372036854775808e18 && f < 9.223372036854775808e18 {
		return int64(f)
	}
	const two64 = 18446744073709551616.0
	m := math.Mod(math.Trunc(f), two64)
	if m < 0 {
		m += two64
	}
	// m is now in [0, 2^64); reinterpret as a two's complement int64.
	if m >= 9.223372036854775808e18 {
		return int64(uint64(m-9.223372036854775808e18)) + math.MinInt64
	}
	return int64(m)
}

// floatToIntCap mirrors zend_dval_to_lval_cap (used for numeric strings):
// out-of-range values clamp to the int64 limits, NaN/Inf become 0.
func floatToIntCap(f float64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	if f >= 9.223372036854775808e18 {
		return math.MaxInt64
	}
	if f < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}

// stringToInt mirrors PHP 8's (int)"..." conversion: leading whitespace,
// then the longest numeric prefix (integer, decimal or with an exponent).
func stringToInt(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := i - intStart
	isFloat := false
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if intDigits > 0 || j > i+1 {
			isFloat = true
			i = j
		}
	}
	if intDigits == 0 && !isFloat {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			isFloat = true
			i = j
		}
	}
	num := s[:i]
	if !isFloat {
		if n, err := strconv.ParseInt(num, 10, 64); err == nil {
			return n
		}
		// Integer overflow: PHP re-reads it as a float, then clamps.
	}
	f, _ := strconv.ParseFloat(num, 64)
	return floatToIntCap(f)
}

// formatFloat formats f as PHP's zend_gcvt does. precision -1 is PHP's
// serialize_precision=-1 mode (the shortest string that reads back as the
// same float, at most 17 digits before switching to exponent form);
// precision > 0 rounds to that many significant digits.
func formatFloat(f float64, precision int) string {
	switch {
	case math.IsNaN(f):
		return "NAN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	}
	ndigit := precision
	prec := precision - 1
	if precision < 0 {
		ndigit = 17
		prec = -1
	}
	// Go's 'e' format gives the same digits as zend_dtoa: mode 0 (shortest
	// round-trip) for prec -1, correctly rounded digits otherwise.
	e := strconv.FormatFloat(math.Abs(f), 'e', prec, 64)
	mant, expPart, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expPart)
	digits := strings.Replace(mant, ".", "", 1)
	digits = strings.TrimRight(digits, "0") // dtoa never returns trailing zeros
	if digits == "" {
		digits = "0"
		exp = 0
	}
	decpt := exp + 1

	var b strings.Builder
	if math.Signbit(f) {
		b.WriteByte('-') // includes -0, which PHP writes as "-0"
	}
	switch {
	case decpt < -3 || decpt > ndigit:
		// Exponent form, always with a fraction: 1.0E+25, 1.5E-7.
		b.WriteByte(digits[0])
		b.WriteByte('.')
		if len(digits) > 1 {
			b.WriteString(digits[1:])
		} else {
			b.WriteByte('0')
		}
		b.WriteByte('E')
		if decpt-1 < 0 {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(1 - decpt))
		} else {
			b.WriteByte('+')
			b.WriteString(strconv.Itoa(decpt - 1))
		}
	case decpt <= 0:
		// 0.000ddd
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -decpt))
		b.WriteString(digits)
	default:
		if len(digits) <= decpt {
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", decpt-len(digits)))
		} else {
			b.WriteString(digits[:decpt])
			b.WriteByte('.')
			b.WriteString(digits[decpt:])
		}
	}
	return b.String()
}
