package wptext

import (
	"strings"
)

// registeredShortcodes lists core's shortcodes in registration order
// (media.php, then WP_Embed). Order matters for regex alternation.
var registeredShortcodes = []string{"wp_caption", "caption", "gallery", "playlist", "audio", "video", "embed"}

// shortcodeAtts is the result of shortcode_parse_atts(): named attributes
// (lower-cased keys) plus positional ones. raw is set when PHP would have
// returned a string instead of an array.
type shortcodeAtts struct {
	named      map[string]string
	positional []string
	isString   bool
	raw        string
}

func (a shortcodeAtts) get(k string) (string, bool) {
	v, ok := a.named[k]
	return v, ok
}

type shortcodeFunc func(rc *RenderContext, tag string, atts shortcodeAtts, content string) string

// foundShortcodeNames mirrors the preg_match_all() + array_intersect() used
// by do_shortcode() (allowSlash=false) and wptexturize() (allowSlash=true).
func foundShortcodeNames(s string, registered []string, allowSlash bool) []string {
	if strings.IndexByte(s, '[') < 0 {
		return nil
	}
	seen := map[string]bool{}
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		j := i + 1
		if allowSlash && j < len(s) && s[j] == '/' {
			j++
		}
		k := j
		for k < len(s) && shortcodeNameByte(s[k]) {
			k++
		}
		if k > j {
			seen[s[j:k]] = true
		}
	}
	var out []string
	for _, t := range registered {
		if seen[t] {
			out = append(out, t)
		}
	}
	return out
}

func shortcodeNameByte(c byte) bool {
	return c > 0x20 && strings.IndexByte("<>&/[]=", c) < 0
}

// shortcodeMatch is one match of get_shortcode_regex().
type shortcodeMatch struct {
	start, end int
	open       bool // group 1 is "["
	tag        string
	attrs      string
	selfClose  bool
	content    string
	close      bool // group 6 is "]"
}

// matchShortcode matches get_shortcode_regex($tagnames) at s[i] == '['.
func matchShortcode(s string, i int, tagnames []string) (shortcodeMatch, bool) {
	m := shortcodeMatch{start: i}
	j := i + 1
	if j < len(s) && s[j] == '[' {
		m.open = true
		j++
	}
	for _, tag := range tagnames {
		if !strings.HasPrefix(s[j:], tag) {
			continue
		}
		k := j + len(tag)
		if k < len(s) && (isWordByte(s[k]) || s[k] == '-') {
			continue
		}
		m.tag = tag
		attrStart := k
		ok := false
		for k < len(s) {
			c := s[k]
			if c == ']' {
				m.attrs = s[attrStart:k]
				k++
				ok = true
				break
			}
			if c == '/' {
				if k+1 < len(s) && s[k+1] == ']' {
					m.attrs = s[attrStart:k]
					m.selfClose = true
					k += 2
					ok = true
					break
				}
			}
			k++
		}
		if !ok {
			continue
		}
		if !m.selfClose {
			closing := "[/" + tag + "]"
			if idx := strings.Index(s[k:], closing); idx >= 0 {
				m.content = s[k : k+idx]
				k += idx + len(closing)
			}
		}
		if k < len(s) && s[k] == ']' {
			m.close = true
			k++
		}
		m.end = k
		return m, true
	}
	return m, false
}

// replaceShortcodes is preg_replace_callback("/get_shortcode_regex()/", cb).
func replaceShortcodes(s string, tagnames []string, cb func(m shortcodeMatch) string) (string, int) {
	if len(tagnames) == 0 || strings.IndexByte(s, '[') < 0 {
		return s, 0
	}
	var b strings.Builder
	last, count := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		m, ok := matchShortcode(s, i, tagnames)
		if !ok {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(cb(m))
		count++
		last = m.end
		i = m.end - 1
	}
	if count == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), count
}

// DoShortcode mirrors do_shortcode() with core's shortcodes registered:
// caption/wp_caption, gallery, playlist, audio, video and embed (which, as
// in WordPress, renders nothing when reached through do_shortcode() because
// WP_Embed handles [embed] earlier in 'the_content').
func DoShortcode(s string, rc *RenderContext) string {
	if rc == nil {
		rc = NewRenderContext("")
	}
	return doShortcodeWith(s, rc, coreShortcodes, registeredShortcodes, false)
}

// coreShortcodes is filled in init() to break the initialisation cycle
// between [caption] (which runs do_shortcode on its content) and DoShortcode.
var coreShortcodes map[string]shortcodeFunc

func init() {
	coreShortcodes = map[string]shortcodeFunc{
		"wp_caption": captionShortcode,
		"caption":    captionShortcode,
		"gallery":    galleryShortcode,
		"playlist":   playlistShortcode,
		"audio":      audioShortcode,
		"video":      videoShortcode,
		"embed":      func(*RenderContext, string, shortcodeAtts, string) string { return "" },
	}
}

// stripcslashes mirrors PHP stripcslashes().
func stripcslashes(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			if s[i] != '\\' {
				b.WriteByte(s[i])
			}
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'v':
			b.WriteByte('\v')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'x':
			if i+1 < len(s) && isHex(s[i+1]) {
				v := 0
				j := i + 1
				for j < len(s) && j < i+3 && isHex(s[j]) {
					v = v*16 + hexVal(s[j])
					j++
				}
				b.WriteByte(byte(v))
				i = j - 1
			} else {
				b.WriteByte('x')
			}
		default:
			if c >= '0' && c <= '7' {
				v := 0
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					v = v*8 + int(s[j]-'0')
					j++
				}
				b.WriteByte(byte(v))
				i = j - 1
			} else {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

func hexVal(c byte) int {
	if isDigit(c) {
		return int(c - '0')
	}
	return int(c|0x20-'a') + 10
}

// StripShortcodes mirrors strip_shortcodes() for the core shortcodes.
func StripShortcodes(content string) string {
	if strings.IndexByte(content, '[') < 0 {
		return content
	}
	tagnames := foundShortcodeNames(content, registeredShortcodes, false)
	if len(tagnames) == 0 {
		return content
	}
	strip := func(s string) func(m shortcodeMatch) string {
		return func(m shortcodeMatch) string {
			if m.open && m.close {
				return s[m.start+1 : m.end-1]
			}
			out := ""
			if m.open {
				out = "["
			}
			if m.close {
				out += "]"
			}
			return out
		}
	}
	content = doShortcodesInHTMLTags(content, true, tagnames, func(s string) (string, int) {
		return replaceShortcodes(s, tagnames, strip(s))
	})
	content, _ = replaceShortcodes(content, tagnames, strip(content))
	return unescapeInvalidShortcodes(content)
}

// ksesAttrParse mirrors wp_kses_attr_parse(): it splits an element into
// [front, attributes..., back] or reports false.
func ksesAttrParse(el string) ([]string, bool) {
	// %^(<\s*)(/\s*)?([a-zA-Z0-9]+\s*)([^>]*)(>?)$%
	i := 1
	for i < len(el) && pcreSpace(el[i]) {
		i++
	}
	begin := el[:i]
	if i < len(el) && el[i] == '/' {
		return nil, false // closing elements are not parsed
	}
	j := i
	for j < len(el) && (isAlpha(el[j]) || isDigit(el[j])) {
		j++
	}
	if j == i {
		return nil, false
	}
	for j < len(el) && pcreSpace(el[j]) {
		j++
	}
	elname := el[i:j]
	k := j
	for k < len(el) && el[k] != '>' {
		k++
	}
	attr := el[j:k]
	end := ""
	if k < len(el) {
		end = ">"
		k++
	}
	if k != len(el) && !(k == len(el)-1 && el[k] == '\n') {
		return nil, false
	}
	xhtml := ""
	t := strings.TrimRight(attr, "\t\n\v\f\r ")
	if strings.HasSuffix(t, "/") {
		s := strings.TrimRight(t[:len(t)-1], "\t\n\v\f\r ")
		xhtml = attr[len(s):]
		attr = s
	}
	list, ok := ksesHairParse(attr)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(list)+2)
	out = append(out, begin+elname)
	out = append(out, list...)
	out = append(out, xhtml+end)
	return out, true
}

// ksesHairParse mirrors wp_kses_hair_parse().
func ksesHairParse(attr string) ([]string, bool) {
	if attr == "" {
		return []string{}, true
	}
	var out []string
	i := 0
	for i < len(attr) {
		start := i
		// Name or shortcode.
		if isAlpha(attr[i]) || attr[i] == '_' {
			i++
			for i < len(attr) && (isAlpha(attr[i]) || isDigit(attr[i]) || strings.IndexByte("-_:.", attr[i]) >= 0) {
				i++
			}
		} else if attr[i] == '[' {
			j := i + 1
			if j < len(attr) && attr[j] == '[' {
				j++
			}
			k := j
			for k < len(attr) && attr[k] != '[' && attr[k] != ']' {
				k++
			}
			if k == j || k >= len(attr) {
				return nil, false
			}
			k++
			if k < len(attr) && attr[k] == ']' {
				k++
			}
			i = k
		} else {
			return nil, false
		}
		// Value.
		p := i
		for p < len(attr) && pcreSpace(attr[p]) {
			p++
		}
		matched := false
		if p < len(attr) && attr[p] == '=' {
			p++
			for p < len(attr) && pcreSpace(attr[p]) {
				p++
			}
			if p < len(attr) && (attr[p] == '"' || attr[p] == '\'') {
				if c := strings.IndexByte(attr[p+1:], attr[p]); c >= 0 {
					i = p + 1 + c + 1
					matched = true
				}
			} else {
				v := p
				for v < len(attr) && !pcreSpace(attr[v]) && attr[v] != '"' && attr[v] != '\'' {
					v++
				}
				if v > p && (v == len(attr) || pcreSpace(attr[v]) || endsLikeZ(attr, v)) {
					if v < len(attr) && pcreSpace(attr[v]) {
						v++
					}
					i = v
					matched = true
				}
			}
		}
		if !matched {
			if i < len(attr) && pcreSpace(attr[i]) {
				i++
			} else if !endsLikeZ(attr, i) {
				return nil, false
			}
		}
		for i < len(attr) && pcreSpace(attr[i]) {
			i++
		}
		out = append(out, attr[start:i])
	}
	return out, true
}
