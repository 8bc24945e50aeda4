// Package php reproduces the PHP 8 value semantics WordPress and the plugin rely on when they look at
// request parameters: is_numeric, (int) casts, empty(), string casts and loose truthiness. Values are
// those the REST layer decodes: nil, bool, string, json.Number, float64, int64, []any and *phpjson.Object.
package php

import (
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/calendard/calendard/internal/phpjson"
)

// isWS is PHP's numeric-string whitespace (" \t\n\r\v\f").
func isWS(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// IsNumericString is is_numeric for strings: optional surrounding whitespace, sign, digits with an
// optional fraction and exponent.
func IsNumericString(s string) bool {
	i, n := 0, len(s)
	for i < n && isWS(s[i]) {
		i++
	}
	for n > i && isWS(s[n-1]) {
		n--
	}
	if i < n && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < n && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < n && s[i] == '.' {
		i++
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < n && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < n && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j {
			return false
		}
		i = k
	}
	return i == n
}

// IsNumeric is PHP's is_numeric.
func IsNumeric(v any) bool {
	switch x := v.(type) {
	case int, int64, float64, json.Number:
		return true
	case string:
		return IsNumericString(x)
	}
	return false
}

// IsDigits reports whether s is one or more ASCII digits only (TEC's "is a timestamp" test).
func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Float converts a numeric value to float64 (0 for non-numeric strings, as PHP's (float) cast of a
// leading-numeric prefix).
func Float(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float64:
		return x
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		return leadingFloat(x)
	}
	return 0
}

// leadingFloat parses the longest numeric prefix of s, as PHP's numeric-leading strings cast.
func leadingFloat(s string) float64 {
	start, end, _ := numericPrefix(s)
	f, _ := strconv.ParseFloat(s[start:end], 64)
	return f
}

// numericPrefix finds, in one pass, the longest prefix of s that is_numeric accepts once leading
// whitespace is skipped: s[start:end] (empty when there is none). isInt reports a prefix of sign and
// digits only, which PHP reads as an integer (when it fits).
func numericPrefix(s string) (start, end int, isInt bool) {
	i, n := 0, len(s)
	for i < n && isWS(s[i]) {
		i++
	}
	start = i
	if i < n && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < n && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	isInt = true
	if i < n && s[i] == '.' {
		j := i + 1
		frac := 0
		for j < n && s[j] >= '0' && s[j] <= '9' {
			j++
			frac++
		}
		if digits+frac > 0 {
			i, digits, isInt = j, digits+frac, false
		}
	}
	if digits == 0 {
		return start, start, false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < n && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < n && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i, isInt = k, false
		}
	}
	return start, i, isInt
}

// stringInt is PHP's (int) of a string: a leading integer is read exactly, saturating at the int
// range as is_numeric_string does; any other numeric prefix goes through a double, capped
// (zend_dval_to_lval_cap); no numeric prefix is 0.
func stringInt(s string) int64 {
	start, end, isInt := numericPrefix(s)
	if start == end {
		return 0
	}
	if isInt {
		n, err := strconv.ParseInt(strings.TrimPrefix(s[start:end], "+"), 10, 64)
		if err == nil {
			return n
		}
		if s[start] == '-' {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	f, _ := strconv.ParseFloat(s[start:end], 64)
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0
	case f >= 9223372036854775808.0:
		return math.MaxInt64
	case f < -9223372036854775808.0:
		return math.MinInt64
	}
	return int64(f)
}

// Int is PHP's (int) cast.
func Int(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int64:
		return x
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		return stringInt(x)
	case json.Number:
		// json_decode gives an integer when the literal is one that fits, a double otherwise.
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n
		}
		f := Float(x)
		if math.IsNaN(f) || math.IsInf(f, 0) || f >= 9.2e18 || f <= -9.2e18 {
			return 0
		}
		return int64(f)
	case float64:
		f := x
		if math.IsNaN(f) || math.IsInf(f, 0) || f >= 9.2e18 || f <= -9.2e18 {
			return 0
		}
		return int64(f)
	case []any:
		if len(x) > 0 {
			return 1
		}
		return 0
	case *phpjson.Object:
		if x.Len() > 0 {
			return 1
		}
		return 0
	}
	return 0
}

// Empty is PHP's empty(): nil, false, 0, 0.0, "", "0" and empty arrays.
func Empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == "" || x == "0"
	case int:
		return x == 0
	case int64:
		return x == 0
	case float64:
		return x == 0
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f == 0
	case []any:
		return len(x) == 0
	case *phpjson.Object:
		return x.Len() == 0
	}
	return false
}

// String is PHP's (string) cast for scalars; ok is false for arrays.
func String(v any) (s string, ok bool) {
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
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return strconv.FormatInt(i, 10), true
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return FormatFloat(f), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return FormatFloat(x), true
	}
	return "", false
}

// FormatFloat is PHP 8's float to string conversion (precision 17 shortest round trip).
func FormatFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	s := strconv.FormatFloat(f, 'G', -1, 64)
	return strings.Replace(s, "E+", "E+", 1)
}

// IsString reports whether v is a PHP string (JSON numbers are not).
func IsString(v any) bool { _, ok := v.(string); return ok }

// IsArray reports whether v is a PHP array (list or object).
func IsArray(v any) bool {
	switch v.(type) {
	case []any, *phpjson.Object:
		return true
	}
	return false
}

// List returns the elements of a PHP array in order (values of an object, elements of a list).
func List(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case *phpjson.Object:
		return x.Values()
	}
	return nil
}

// LooseEqualsInt is `$value == (int) $value` for the is_positive_int validator.
func LooseEqualsInt(v any) bool {
	switch x := v.(type) {
	case int, int64:
		return true
	case bool:
		return true
	case float64:
		return x == math.Trunc(x)
	case json.Number, string:
		if !IsNumeric(x) {
			return false
		}
		f := Float(x)
		return float64(Int(x)) == f
	}
	return false
}

// ListToArray is Tribe__Utils__Array::list_to_array: arrays are taken as they are, strings are
// URL-decoded and split on the separator with surrounding whitespace; empty strings are dropped and
// numeric items become numbers (json.Number keeps their text).
func ListToArray(v any) []any {
	if Empty(v) {
		return nil
	}
	var items []any
	switch x := v.(type) {
	case []any, *phpjson.Object:
		items = List(x)
	default:
		s, ok := String(x)
		if !ok || s == "" {
			return nil
		}
		// preg_split('/\s*,\s*/'): whitespace around separators goes, the ends of the string stay.
		parts := strings.Split(URLDecode(s), ",")
		ws := func(r rune) bool { return r < 128 && isWS(byte(r)) }
		for i, part := range parts {
			if i > 0 {
				part = strings.TrimLeftFunc(part, ws)
			}
			if i < len(parts)-1 {
				part = strings.TrimRightFunc(part, ws)
			}
			items = append(items, part)
		}
	}
	out := make([]any, 0, len(items))
	for _, it := range items {
		if s, ok := it.(string); ok {
			if s == "" {
				continue
			}
			if IsNumericString(s) {
				out = append(out, json.Number(strings.TrimSpace(s)))
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// RawURLEncode is PHP's rawurlencode (RFC 3986): only A-Z a-z 0-9 - _ . ~ stay, every other byte
// is %XX in upper case, a space %20.
func RawURLEncode(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") // QueryEscape's "+" is only ever a space
}

// URLDecode is PHP's urldecode: "+" is a space, bad escapes are kept literally.
func URLDecode(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '+':
			b.WriteByte(' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// StrToLower is PHP 8's strtolower(): ASCII letters only, other bytes unchanged.
func StrToLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
