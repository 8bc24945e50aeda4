package wptext

import (
	"regexp"
	"strings"
)

// StripTags mirrors PHP strip_tags() without allowed tags: the PHP 8 state
// machine that also drops PHP/XML processing instructions and comments.
func StripTags(s string) string {
	if strings.IndexByte(s, '<') < 0 && strings.IndexByte(s, '>') < 0 && strings.IndexByte(s, 0) < 0 {
		return s
	}
	out := make([]byte, 0, len(s))
	at := func(i int) byte {
		if i >= 0 && i < len(s) {
			return s[i]
		}
		return 0
	}
	cSpace := func(c byte) bool { return pcreSpace(c) }
	var lc byte
	var inQ byte
	depth, br := 0, 0
	state := 0
	isXML := false
	for p := 0; p < len(s); p++ {
		c := s[p]
		switch state {
		case 0:
			switch c {
			case 0:
			case '<':
				if inQ != 0 {
					break
				}
				if cSpace(at(p + 1)) {
					out = append(out, c)
					break
				}
				lc = '<'
				state = 1
			case '>':
				if depth > 0 {
					depth--
					break
				}
				if inQ != 0 {
					break
				}
				out = append(out, c)
			default:
				out = append(out, c)
			}
		case 1:
			switch c {
			case '<':
				if inQ != 0 {
					break
				}
				if cSpace(at(p + 1)) {
					break
				}
				depth++
			case '>':
				if depth > 0 {
					depth--
					break
				}
				if inQ != 0 {
					break
				}
				lc = '>'
				if isXML && at(p-1) == '-' {
					break
				}
				inQ, state, isXML = 0, 0, false
			case '"', '\'':
				if p != 0 && (inQ == 0 || c == inQ) {
					if inQ != 0 {
						inQ = 0
					} else {
						inQ = c
					}
				}
			case '!':
				if at(p-1) == '<' {
					state = 3
					lc = c
				}
			case '?':
				if at(p-1) == '<' {
					br = 0
					state = 2
				}
			}
		case 2:
			switch c {
			case '(':
				if lc != '"' && lc != '\'' {
					lc = '('
					br++
				}
			case ')':
				if lc != '"' && lc != '\'' {
					lc = ')'
					br--
				}
			case '>':
				if depth > 0 {
					depth--
					break
				}
				if inQ != 0 {
					break
				}
				if br == 0 && lc != '"' && at(p-1) == '?' {
					inQ, state = 0, 0
				}
			case '"', '\'':
				if p >= 1 && at(p-1) != '\\' {
					if lc == c {
						lc = 0
					} else if lc != '\\' {
						lc = c
					}
					if p != 0 && (inQ == 0 || c == inQ) {
						if inQ != 0 {
							inQ = 0
						} else {
							inQ = c
						}
					}
				}
			case 'l', 'L':
				if p > 4 && (at(p-1)|0x20) == 'm' && (at(p-2)|0x20) == 'x' && at(p-3) == '?' && at(p-4) == '<' {
					state = 1
					isXML = true
				}
			}
		case 3:
			switch c {
			case '>':
				if depth > 0 {
					depth--
					break
				}
				if inQ != 0 {
					break
				}
				inQ, state = 0, 0
			case '"', '\'':
				if p != 0 && at(p-1) != '\\' && (inQ == 0 || c == inQ) {
					if inQ != 0 {
						inQ = 0
					} else {
						inQ = c
					}
				}
			case '-':
				if p >= 2 && at(p-1) == '-' && at(p-2) == '!' {
					state = 4
				}
			case 'E', 'e':
				if p > 6 && asciiEqualFold(s[p-6:p], "doctyp") {
					state = 1
				}
			}
		case 4:
			if c == '>' && inQ == 0 && p >= 2 && at(p-1) == '-' && at(p-2) == '-' {
				inQ, state = 0, 0
			}
		}
	}
	return string(out)
}

// stripScriptStyle is preg_replace('@<(script|style)[^>]*?>.*?</\\1>@si', ”).
func stripScriptStyle(s string) string {
	lower := asciiLower(s)
	if !strings.Contains(lower, "<script") && !strings.Contains(lower, "<style") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		var name string
		if strings.HasPrefix(lower[i+1:], "script") {
			name = "script"
		} else if strings.HasPrefix(lower[i+1:], "style") {
			name = "style"
		} else {
			continue
		}
		gt := strings.IndexByte(s[i+1+len(name):], '>')
		if gt < 0 {
			continue
		}
		from := i + 1 + len(name) + gt + 1
		cl := strings.Index(lower[from:], "</"+name+">")
		if cl < 0 {
			continue
		}
		end := from + cl + len(name) + 3
		b.WriteString(s[last:i])
		last = end
		i = end - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

var breaksRe = regexp.MustCompile(`[\r\n\t ]+`)

// StripAllTags mirrors wp_strip_all_tags(): strip_tags() after removing
// <script>/<style> elements with their content, optionally collapsing line
// breaks, then trim().
func StripAllTags(s string, removeBreaks bool) string {
	s = StripTags(stripScriptStyle(s))
	if removeBreaks {
		s = breaksRe.ReplaceAllString(s, " ")
	}
	return phpTrim(s)
}

var (
	octetRe  = regexp.MustCompile(`%[a-fA-F0-9]{2}`)
	spacesRe = regexp.MustCompile(` +`)
)

// SanitizeTextField mirrors sanitize_text_field(): invalid UTF-8 becomes "",
// tags are stripped (lone "<" survive as entities), whitespace collapses and
// percent-encoded octets are removed.
func SanitizeTextField(s string) string {
	filtered := checkInvalidUTF8(s)
	if strings.IndexByte(filtered, '<') >= 0 {
		filtered = preKsesLessThan(filtered)
		filtered = StripAllTags(filtered, false)
		filtered = strings.ReplaceAll(filtered, "<\n", "&lt;\n")
	}
	filtered = breaksRe.ReplaceAllString(filtered, " ")
	filtered = phpTrim(filtered)
	found := false
	for {
		m := octetRe.FindString(filtered)
		if m == "" {
			break
		}
		filtered = strings.ReplaceAll(filtered, m, "")
		found = true
	}
	if found {
		filtered = phpTrim(spacesRe.ReplaceAllString(filtered, " "))
	}
	return filtered
}
