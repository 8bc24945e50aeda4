package wptext

import (
	"strings"
	"unicode/utf8"
)

// phpTrimSet is the default character list of PHP's trim().
const phpTrimSet = " \t\n\r\x00\x0B"

func phpTrim(s string) string  { return strings.Trim(s, phpTrimSet) }
func phpLtrim(s string) string { return strings.TrimLeft(s, phpTrimSet) }

// pcreSpace reports whether b is in PCRE's \s class (non-UTF mode, C tables).
func pcreSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// isWordByte is PCRE's \w in non-UTF mode.
func isWordByte(b byte) bool {
	return b == '_' || isDigit(b) || (b|0x20 >= 'a' && b|0x20 <= 'z')
}

func isAlpha(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

func isHex(b byte) bool { return isDigit(b) || (b|0x20 >= 'a' && b|0x20 <= 'f') }

// endsLikeZ reports whether position i is PCRE's \Z (or $ without /m and /D):
// the end of the subject or just before a final "\n".
func endsLikeZ(s string, i int) bool {
	return i == len(s) || (i == len(s)-1 && s[i] == '\n')
}

// stripslashes mirrors PHP stripslashes().
func stripslashes(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i < len(s) {
			if s[i] == '0' {
				b.WriteByte(0)
			} else {
				b.WriteByte(s[i])
			}
		}
	}
	return b.String()
}

// addslashes mirrors PHP addslashes().
func addslashes(s string) string {
	if !strings.ContainsAny(s, "'\"\\\x00") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// strtr mirrors PHP strtr() with an array: at each position the longest
// matching key wins and replaced text is never rescanned.
type strtrTable struct {
	pairs  map[string]string
	maxLen int
	first  [256]bool
}

func newStrtr(pairs map[string]string) *strtrTable {
	t := &strtrTable{pairs: pairs}
	for k := range pairs {
		if len(k) > t.maxLen {
			t.maxLen = len(k)
		}
		if k != "" {
			t.first[k[0]] = true
		}
	}
	return t
}

func (t *strtrTable) replace(s string) string {
	var b strings.Builder
	changed := false
	last := 0
	for i := 0; i < len(s); {
		if !t.first[s[i]] {
			i++
			continue
		}
		n := t.maxLen
		if len(s)-i < n {
			n = len(s) - i
		}
		matched := false
		for ; n > 0; n-- {
			if r, ok := t.pairs[s[i:i+n]]; ok {
				if !changed {
					b.Grow(len(s))
					changed = true
				}
				b.WriteString(s[last:i])
				b.WriteString(r)
				i += n
				last = i
				matched = true
				break
			}
		}
		if !matched {
			i++
		}
	}
	if !changed {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// checkInvalidUTF8 mirrors wp_check_invalid_utf8() without stripping:
// invalid UTF-8 yields "".
func checkInvalidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return ""
}

// phpStrReplaceMany mirrors str_replace() with array search/replace: each
// pair is applied in turn to the whole string.
func phpStrReplaceMany(s string, pairs [][2]string) string {
	for _, p := range pairs {
		if strings.Contains(s, p[0]) {
			s = strings.ReplaceAll(s, p[0], p[1])
		}
	}
	return s
}

// asciiEqualFold compares case-insensitively for ASCII letters only, like
// PCRE's /i without /u and PHP 8's strtolower().
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
