package wptext

import (
	"strings"
	"unicode/utf8"
)

func doShortcodeWith(content string, rc *RenderContext, handlers map[string]shortcodeFunc, registered []string, ignoreHTML bool) string {
	if strings.IndexByte(content, '[') < 0 {
		return content
	}
	tagnames := foundShortcodeNames(content, registered, false)
	if len(tagnames) == 0 {
		return content
	}
	content = doShortcodesInHTMLTags(content, ignoreHTML, tagnames, func(s string) (string, int) {
		return replaceShortcodes(s, tagnames, func(m shortcodeMatch) string { return doShortcodeTag(s, m, rc, handlers) })
	})
	content, _ = replaceShortcodes(content, tagnames, func(m shortcodeMatch) string {
		return doShortcodeTag(content, m, rc, handlers)
	})
	return unescapeInvalidShortcodes(content)
}

// doShortcodeTag mirrors do_shortcode_tag().
func doShortcodeTag(subject string, m shortcodeMatch, rc *RenderContext, handlers map[string]shortcodeFunc) string {
	whole := subject[m.start:m.end]
	if m.open && m.close {
		return whole[1 : len(whole)-1]
	}
	h, ok := handlers[m.tag]
	if !ok {
		return whole
	}
	out := h(rc, m.tag, parseShortcodeAtts(m.attrs), m.content)
	pre, post := "", ""
	if m.open {
		pre = "["
	}
	if m.close {
		post = "]"
	}
	return pre + out + post
}

var (
	shortcodeBracketNormalize = newStrtr(map[string]string{"&#91;": "&#091;", "&#93;": "&#093;"})
	shortcodeBracketEncode    = newStrtr(map[string]string{"[": "&#91;", "]": "&#93;"})
	shortcodeBracketDecode    = newStrtr(map[string]string{"&#91;": "[", "&#93;": "]"})
)

func unescapeInvalidShortcodes(s string) string { return shortcodeBracketDecode.replace(s) }

// doShortcodesInHTMLTags mirrors do_shortcodes_in_html_tags(); run performs
// the shortcode replacement on one string and reports the match count.
func doShortcodesInHTMLTags(content string, ignoreHTML bool, tagnames []string, run func(string) (string, int)) string {
	content = shortcodeBracketNormalize.replace(content)
	parts := htmlSplit(content)
	changed := false
	for idx := 1; idx < len(parts); idx += 2 {
		el := parts[idx]
		if el == "" || el[0] != '<' {
			continue
		}
		noopen := strings.IndexByte(el, '[') < 0
		noclose := strings.IndexByte(el, ']') < 0
		if noopen || noclose {
			if noopen != noclose {
				parts[idx] = shortcodeBracketEncode.replace(el)
				changed = true
			}
			continue
		}
		changed = true
		if ignoreHTML || strings.HasPrefix(el, "<!--") || strings.HasPrefix(el, "<![CDATA[") {
			parts[idx] = shortcodeBracketEncode.replace(el)
			continue
		}
		attrs, ok := ksesAttrParse(el)
		if !ok {
			if looksLikeShortcodeInTag(el) {
				el, _ = run(el)
			}
			parts[idx] = shortcodeBracketEncode.replace(el)
			continue
		}
		front, back := attrs[0], attrs[len(attrs)-1]
		middle := attrs[1 : len(attrs)-1]
		for a, attr := range middle {
			open := strings.IndexByte(attr, '[')
			cls := strings.IndexByte(attr, ']')
			if open < 0 || cls < 0 {
				continue
			}
			dbl := strings.IndexByte(attr, '"')
			sgl := strings.IndexByte(attr, '\'')
			if (sgl < 0 || open < sgl) && (dbl < 0 || open < dbl) {
				middle[a], _ = run(attr)
			} else {
				newAttr, count := run(attr)
				if count > 0 {
					newAttr = ksesOneAttr(newAttr, elementName(front))
					if phpTrim(newAttr) != "" {
						middle[a] = newAttr
					}
				}
			}
		}
		parts[idx] = shortcodeBracketEncode.replace(front + strings.Join(middle, "") + back)
	}
	if !changed {
		return content
	}
	return strings.Join(parts, "")
}

// looksLikeShortcodeInTag is preg_match('%^<\s*\[\[?[^\[\]]+\]%').
func looksLikeShortcodeInTag(el string) bool {
	i := 1
	for i < len(el) && pcreSpace(el[i]) {
		i++
	}
	if i >= len(el) || el[i] != '[' {
		return false
	}
	i++
	try := func(j int) bool {
		k := j
		for k < len(el) && el[k] != '[' && el[k] != ']' {
			k++
		}
		return k > j && k < len(el) && el[k] == ']'
	}
	if i < len(el) && el[i] == '[' && try(i+1) {
		return true
	}
	return try(i)
}

// elementName is preg_match('%[a-zA-Z0-9]+%', $front).
func elementName(front string) string {
	i := 0
	for i < len(front) && !(isAlpha(front[i]) || isDigit(front[i])) {
		i++
	}
	j := i
	for j < len(front) && (isAlpha(front[j]) || isDigit(front[j])) {
		j++
	}
	return front[i:j]
}

// ksesOneAttr mirrors wp_kses_one_attr(): it re-quotes and escapes the value,
// strips disallowed protocols from URI attributes and drops the attribute
// unless wp_kses_attr_check() allows it on element in the 'post' context.
func ksesOneAttr(attr, element string) string {
	attr = ksesNoNull(attr, true)
	// Leading and trailing whitespace are preserved (both are measured on
	// the whole attribute, as PHP does).
	lead := attr[:len(attr)-len(strings.TrimLeft(attr, "\t\n\v\f\r "))]
	trail := attr[len(strings.TrimRight(attr, "\t\n\v\f\r ")):]
	if len(lead)+len(trail) >= len(attr) {
		attr = ""
	} else {
		attr = attr[len(lead) : len(attr)-len(trail)]
	}
	// preg_split('/\s*=\s*/', $attr, 2)
	name, value, vless := attr, "", true
	if eq := strings.IndexByte(attr, '='); eq >= 0 {
		name = strings.TrimRight(attr[:eq], "\t\n\v\f\r ")
		value = strings.TrimLeft(attr[eq+1:], "\t\n\v\f\r ")
		quote := byte('"')
		if value != "" && (value[0] == '"' || value[0] == '\'') {
			quote = value[0]
			if value[len(value)-1] != quote {
				return ""
			}
			if len(value) == 1 {
				value = ""
			} else {
				value = value[1 : len(value)-1]
			}
		}
		value = EscAttr(value)
		if isURIAttribute(name) {
			value = ksesBadProtocol(value, allowedProtocols)
		}
		attr = name + "=" + string(quote) + value + string(quote)
		vless = false
	}
	whole, ok := ksesAttrCheck(name, value, attr, vless, element, postAllowedTags)
	if !ok {
		whole = ""
	}
	return lead + whole + trail
}

// parseShortcodeAtts mirrors shortcode_parse_atts().
func parseShortcodeAtts(text string) shortcodeAtts {
	if !utf8.ValidString(text) {
		// preg_replace() with /u fails on invalid UTF-8 and yields null.
		return shortcodeAtts{isString: true}
	}
	text = nbspRunsToSpace(text)
	atts := shortcodeAtts{named: map[string]string{}}
	matched := false
	for i := 0; i < len(text); {
		end, kind, name, val, ok := matchAttAt(text, i)
		if !ok {
			i++
			continue
		}
		matched = true
		switch kind {
		case 1, 2, 3:
			// PHP's empty() treats the name "0" as empty: such attributes vanish.
			if name != "" && name != "0" {
				atts.named[asciiLower(name)] = stripcslashes(val)
			}
		case 4, 5:
			if val != "" {
				atts.positional = append(atts.positional, stripcslashes(val))
			}
		case 6:
			atts.positional = append(atts.positional, stripcslashes(val))
		}
		if end <= i {
			end = i + 1
		}
		i = end
	}
	if !matched {
		return shortcodeAtts{isString: true, raw: strings.TrimLeft(text, phpTrimSet)}
	}
	for k, v := range atts.named {
		if strings.IndexByte(v, '<') >= 0 && !balancedAngles(v) {
			atts.named[k] = ""
		}
	}
	for k, v := range atts.positional {
		if strings.IndexByte(v, '<') >= 0 && !balancedAngles(v) {
			atts.positional[k] = ""
		}
	}
	return atts
}

// nbspRunsToSpace is preg_replace("/[\x{00a0}\x{200b}]+/u", ' ').
func nbspRunsToSpace(s string) string {
	if !strings.Contains(s, "\u00a0") && !strings.Contains(s, "\u200b") {
		return s
	}
	var b strings.Builder
	inRun := false
	for _, r := range s {
		if r == 0xa0 || r == 0x200b {
			if !inRun {
				b.WriteByte(' ')
			}
			inRun = true
			continue
		}
		inRun = false
		b.WriteRune(r)
	}
	return b.String()
}

// matchAttAt tries the alternatives of get_shortcode_atts_regex() at i.
func matchAttAt(s string, i int) (end, kind int, name, val string, ok bool) {
	spaceOrEnd := func(p int) (int, bool) {
		if p < len(s) && pcreSpace(s[p]) {
			return p + 1, true
		}
		if endsLikeZ(s, p) {
			return p, true
		}
		return 0, false
	}
	n := i
	for n < len(s) && (isWordByte(s[n]) || s[n] == '-') {
		n++
	}
	if n > i {
		p := n
		for p < len(s) && pcreSpace(s[p]) {
			p++
		}
		if p < len(s) && s[p] == '=' {
			p++
			for p < len(s) && pcreSpace(s[p]) {
				p++
			}
			for alt, q := range []byte{'"', '\''} {
				if p < len(s) && s[p] == q {
					if c := strings.IndexByte(s[p+1:], q); c >= 0 {
						if e, ok := spaceOrEnd(p + 1 + c + 1); ok {
							return e, alt + 1, s[i:n], s[p+1 : p+1+c], true
						}
					}
				}
			}
			v := p
			for v < len(s) && !pcreSpace(s[v]) && s[v] != '\'' && s[v] != '"' {
				v++
			}
			if v > p {
				if e, ok := spaceOrEnd(v); ok {
					return e, 3, s[i:n], s[p:v], true
				}
			}
		}
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		q := s[i]
		if c := strings.IndexByte(s[i+1:], q); c >= 0 {
			if e, ok := spaceOrEnd(i + 1 + c + 1); ok {
				k := 4
				if q == '\'' {
					k = 5
				}
				return e, k, "", s[i+1 : i+1+c], true
			}
		}
	}
	v := i
	for v < len(s) && !pcreSpace(s[v]) {
		v++
	}
	if v > i {
		if e, ok := spaceOrEnd(v); ok {
			return e, 6, "", s[i:v], true
		}
	}
	return 0, 0, "", "", false
}

// balancedAngles is preg_match('/^[^<]*+(?:<[^>]*+>[^<]*+)*+$/').
func balancedAngles(v string) bool {
	i := 0
	for {
		k := strings.IndexByte(v[i:], '<')
		if k < 0 {
			return true
		}
		i += k
		g := strings.IndexByte(v[i+1:], '>')
		if g < 0 {
			return false
		}
		i += 1 + g + 1
	}
}
