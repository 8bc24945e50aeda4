package wptext

import "strings"

// SpecialChars is _wp_specialchars($s) as WordPress' sanitizing filters call it: ENT_NOQUOTES (only
// &, < and > are escaped) and no double encoding of valid character references.
func SpecialChars(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			if n := entityLen(s[i:]); n > 0 {
				b.WriteString(s[i : i+n])
				i += n - 1
			} else {
				b.WriteString("&amp;")
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// entityLen returns the length of a valid character reference at the start of s ("&amp;", "&#38;").
func entityLen(s string) int {
	end := strings.IndexByte(s, ';')
	if end < 2 || end > 32 {
		return 0
	}
	body := s[1:end]
	if body[0] == '#' {
		digits := body[1:]
		if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
			digits = digits[1:]
			for _, c := range digits {
				if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
					return 0
				}
			}
		} else {
			for _, c := range digits {
				if c < '0' || c > '9' {
					return 0
				}
			}
		}
		if digits == "" {
			return 0
		}
		return end + 1
	}
	for _, c := range body {
		if !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return 0
		}
	}
	return end + 1
}
