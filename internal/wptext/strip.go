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
	t := &tagStripper{s: s, out: make([]byte, 0, len(s))}
	for p := 0; p < len(s); p++ {
		c := s[p]
		switch t.state {
		case 0:
			t.text(p, c)
		case 1:
			t.tag(p, c)
		case 2:
			t.php(p, c)
		case 3:
			t.bang(p, c)
		case 4:
			t.comment(p, c)
		}
	}
	return string(t.out)
}

// tagStripper is php_strip_tags' state machine over s: the state (0 text, 1 tag, 2 <?, 3 <!,
// 4 comment), the quote it is in, the depth of nested <, the parentheses of a <? and the last
// significant character.
type tagStripper struct {
	s     string
	out   []byte
	lc    byte
	inQ   byte
	depth int
	br    int
	state int
	isXML bool
}

// at is s[i], or 0 outside s.
func (t *tagStripper) at(i int) byte {
	if i >= 0 && i < len(t.s) {
		return t.s[i]
	}
	return 0
}

// text is state 0: text outside tags, copied.
func (t *tagStripper) text(p int, c byte) {
	switch c {
	case 0:
	case '<':
		if t.inQ != 0 {
			break
		}
		if pcreSpace(t.at(p + 1)) {
			t.out = append(t.out, c)
			break
		}
		t.lc = '<'
		t.state = 1
	case '>':
		if t.depth > 0 {
			t.depth--
			break
		}
		if t.inQ != 0 {
			break
		}
		t.out = append(t.out, c)
	default:
		t.out = append(t.out, c)
	}
}

// tag is state 1: inside a tag.
func (t *tagStripper) tag(p int, c byte) {
	switch c {
	case '<':
		if t.inQ != 0 {
			break
		}
		if pcreSpace(t.at(p + 1)) {
			break
		}
		t.depth++
	case '>':
		if t.depth > 0 {
			t.depth--
			break
		}
		if t.inQ != 0 {
			break
		}
		t.lc = '>'
		if t.isXML && t.at(p-1) == '-' {
			break
		}
		t.inQ, t.state, t.isXML = 0, 0, false
	case '"', '\'':
		if p != 0 && (t.inQ == 0 || c == t.inQ) {
			if t.inQ != 0 {
				t.inQ = 0
			} else {
				t.inQ = c
			}
		}
	case '!':
		if t.at(p-1) == '<' {
			t.state = 3
			t.lc = c
		}
	case '?':
		if t.at(p-1) == '<' {
			t.br = 0
			t.state = 2
		}
	}
}

// php is state 2: inside a <? processing instruction.
func (t *tagStripper) php(p int, c byte) {
	switch c {
	case '(':
		if t.lc != '"' && t.lc != '\'' {
			t.lc = '('
			t.br++
		}
	case ')':
		if t.lc != '"' && t.lc != '\'' {
			t.lc = ')'
			t.br--
		}
	case '>':
		if t.depth > 0 {
			t.depth--
			break
		}
		if t.inQ != 0 {
			break
		}
		if t.br == 0 && t.lc != '"' && t.at(p-1) == '?' {
			t.inQ, t.state = 0, 0
		}
	case '"', '\'':
		if p >= 1 && t.at(p-1) != '\\' {
			if t.lc == c {
				t.lc = 0
			} else if t.lc != '\\' {
				t.lc = c
			}
			if p != 0 && (t.inQ == 0 || c == t.inQ) {
				if t.inQ != 0 {
					t.inQ = 0
				} else {
					t.inQ = c
				}
			}
		}
	case 'l', 'L':
		if p > 4 && (t.at(p-1)|0x20) == 'm' && (t.at(p-2)|0x20) == 'x' && t.at(p-3) == '?' && t.at(p-4) == '<' {
			t.state = 1
			t.isXML = true
		}
	}
}

// bang is state 3: inside <! (a declaration).
func (t *tagStripper) bang(p int, c byte) {
	switch c {
	case '>':
		if t.depth > 0 {
			t.depth--
			break
		}
		if t.inQ != 0 {
			break
		}
		t.inQ, t.state = 0, 0
	case '"', '\'':
		if p != 0 && t.at(p-1) != '\\' && (t.inQ == 0 || c == t.inQ) {
			if t.inQ != 0 {
				t.inQ = 0
			} else {
				t.inQ = c
			}
		}
	case '-':
		if p >= 2 && t.at(p-1) == '-' && t.at(p-2) == '!' {
			t.state = 4
		}
	case 'E', 'e':
		if p > 6 && asciiEqualFold(t.s[p-6:p], "doctyp") {
			t.state = 1
		}
	}
}

// comment is state 4: inside <!-- a comment -->.
func (t *tagStripper) comment(p int, c byte) {
	if c == '>' && t.inQ == 0 && p >= 2 && t.at(p-1) == '-' && t.at(p-2) == '-' {
		t.inQ, t.state = 0, 0
	}
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
