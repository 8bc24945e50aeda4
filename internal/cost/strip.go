package cost

import "strings"

// stripTags is PHP strip_tags() without allowed tags: a port of
// php_strip_tags_ex()'s state machine (text, tag, PHP block, "<!" markup,
// comment). A '<' followed by whitespace is text, quotes inside a tag hide
// '>', NUL bytes are dropped.
func stripTags(s string) string {
	if !strings.ContainsAny(s, "<>\x00") {
		return s
	}
	var out strings.Builder
	n := len(s)
	at := func(i int) byte { // the NUL-terminated buffer PHP reads from
		if i >= 0 && i < n {
			return s[i]
		}
		return 0
	}
	isSpace := func(c byte) bool { return strings.IndexByte(phpSpace, c) >= 0 }
	state, depth, br := 0, 0, 0
	var inQ, lc byte
	isXML := false
	for p := 0; p < n; p++ {
		c := s[p]
		switch state {
		case 0: // text
			switch c {
			case 0:
			case '<':
				if inQ != 0 {
					break
				}
				if isSpace(at(p + 1)) {
					out.WriteByte(c)
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
				out.WriteByte(c)
			default:
				out.WriteByte(c)
			}
		case 1: // inside a tag
			switch c {
			case '<':
				if inQ != 0 || isSpace(at(p+1)) {
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
		case 2: // PHP block
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
				}
				if p != 0 && (inQ == 0 || c == inQ) {
					if inQ != 0 {
						inQ = 0
					} else {
						inQ = c
					}
				}
			case 'l', 'L':
				if p > 4 && (at(p-1) == 'm' || at(p-1) == 'M') && (at(p-2) == 'x' || at(p-2) == 'X') &&
					at(p-3) == '?' && at(p-4) == '<' {
					state = 1
					isXML = true
				}
			}
		case 3: // "<!" markup
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
				if at(p-1) == '-' && at(p-2) == '!' {
					state = 4
				}
			case 'E', 'e':
				if p > 6 && asciiLower(s[p-6:p]) == "doctyp" {
					state = 1
				}
			}
		case 4: // comment
			if c == '>' && inQ == 0 && at(p-1) == '-' && at(p-2) == '-' {
				inQ, state = 0, 0
			}
		}
	}
	return out.String()
}
