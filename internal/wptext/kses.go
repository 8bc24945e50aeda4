package wptext

import (
	"regexp"
	"strings"
)

// ksesAllowed maps lower-case element names to their allowed lower-case
// attribute names (KSES arrays without value constraints).
type ksesAllowed map[string]map[string]bool

// tecExcerptAllowed is the default $allowed_html of
// tribe_events_get_the_excerpt().
var tecExcerptAllowed = func() ksesAllowed {
	base := map[string]bool{"class": true, "id": true, "style": true}
	a := ksesAllowed{"a": {"class": true, "id": true, "style": true, "href": true, "rel": true, "target": true}}
	for _, t := range []string{"b", "strong", "em", "span", "ul", "li", "ol"} {
		a[t] = base
	}
	return a
}()

// postAllowedApprox approximates KSES' 'post' context: common inline and
// block tags with their usual attributes. Used only for [caption caption="…"].
var postAllowedApprox = func() ksesAllowed {
	global := []string{"aria-controls", "aria-current", "aria-describedby", "aria-details", "aria-expanded",
		"aria-hidden", "aria-label", "aria-labelledby", "aria-live", "class", "data-*", "dir", "hidden", "id", "lang",
		"style", "title", "role", "xml:lang"}
	tags := map[string][]string{
		"a": {"href", "rel", "rev", "name", "target", "download", "hreflang", "referrerpolicy"}, "abbr": nil, "b": nil,
		"br": nil, "cite": nil, "code": nil, "del": {"datetime"}, "em": nil, "i": nil, "img": {"alt", "align", "border", "height", "hspace", "loading", "longdesc", "vspace", "src", "usemap", "width", "decoding"},
		"span": nil, "strong": nil, "sub": nil, "sup": nil, "u": nil, "s": nil, "small": nil, "mark": nil, "q": {"cite"},
		"p": {"align"}, "div": {"align"}, "ul": {"type"}, "ol": {"start", "type", "reversed"}, "li": {"align", "value"},
		"blockquote": {"cite"}, "figure": {"align"}, "figcaption": {"align"}, "h1": {"align"}, "h2": {"align"}, "h3": {"align"},
		"section": {"align"}, "article": {"align"}, "aside": {"align"}, "header": {"align"}, "footer": {"align"},
		"table": {"align", "bgcolor", "border", "cellpadding", "cellspacing", "rules", "summary", "width"},
		"td":    {"abbr", "align", "axis", "bgcolor", "char", "charoff", "colspan", "headers", "height", "nowrap", "rowspan", "scope", "valign", "width"},
		"th":    {"abbr", "align", "axis", "bgcolor", "char", "charoff", "colspan", "headers", "height", "nowrap", "rowspan", "scope", "valign", "width"},
		"tr":    {"align", "bgcolor", "char", "charoff", "valign"}, "thead": {"align", "char", "charoff", "valign"},
		"tbody": {"align", "char", "charoff", "valign"}, "audio": {"autoplay", "controls", "loop", "muted", "preload", "src"},
		"video":  {"autoplay", "controls", "height", "loop", "muted", "playsinline", "poster", "preload", "src", "width"},
		"source": {"src", "type"}, "label": {"for"}, "dl": nil, "dt": nil, "dd": nil,
		"h4": {"align"}, "h5": {"align"}, "h6": {"align"}, "pre": {"width"}, "hr": {"align", "noshade", "size", "width"},
	}
	a := ksesAllowed{}
	for t, attrs := range tags {
		m := map[string]bool{}
		for _, g := range global {
			m[g] = true
		}
		for _, x := range attrs {
			m[x] = true
		}
		a[t] = m
	}
	return a
}()

func ksesPostApprox(s string) string { return kses(s, postAllowedApprox) }

// ksesPostAttrAllowed reports whether the approximated 'post' context allows
// attribute name on element.
func ksesPostAttrAllowed(element, name string) bool {
	attrs, ok := postAllowedApprox[asciiLower(element)]
	if !ok {
		return false
	}
	low := asciiLower(name)
	if attrs[low] {
		return true
	}
	return strings.HasPrefix(low, "data-") && validDataAttr(name)
}

// kses mirrors wp_kses($content, $allowed_html) with the default 'pre_kses'
// filters (wp_pre_kses_less_than; block attribute filtering is an identity
// for content without block comments).
func kses(content string, allowed ksesAllowed) string {
	content = ksesNoNull(content, true)
	content = ksesNormalizeEntities(content)
	content = preKsesLessThan(content)
	return ksesSplit(content, allowed)
}

// preKsesLessThan mirrors wp_pre_kses_less_than(): a "<" that is not closed
// by ">" before the next "<" is escaped.
func preKsesLessThan(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		// %<[^>]*?((?=<)|>|$)%
		j := i + 1
		for j < len(s) && s[j] != '>' && s[j] != '<' && !endsLikeZ(s, j) {
			j++
		}
		end := j
		if j < len(s) && s[j] == '>' {
			end = j + 1
		}
		m := s[i:end]
		b.WriteString(s[last:i])
		if strings.IndexByte(m, '>') < 0 {
			b.WriteString(EscHTML(m))
		} else {
			b.WriteString(m)
		}
		last = end
		i = end - 1
	}
	b.WriteString(s[last:])
	return b.String()
}

// ksesSplit mirrors wp_kses_split().
func ksesSplit(s string, allowed ksesAllowed) string {
	if !strings.ContainsAny(s, "<>") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		var end int
		switch s[i] {
		case '>':
			end = i + 1
		case '<':
			end = ksesTokenEnd(s, i)
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(ksesSplit2(s[i:end], allowed))
		last = end
		i = end - 1
	}
	b.WriteString(s[last:])
	return b.String()
}

func ksesTokenEnd(s string, i int) int {
	if strings.HasPrefix(s[i:], "<!--") {
		for j := i + 4; ; j++ {
			if strings.HasPrefix(s[j:], "-->") {
				return j + 3
			}
			if endsLikeZ(s, j) {
				return j
			}
			if s[j] == '\n' {
				break
			}
		}
	}
	if i+2 < len(s) && s[i+1] == '/' && !isAlpha(s[i+2]) {
		if k := strings.IndexByte(s[i+3:], '>'); k >= 0 {
			return i + 3 + k + 1
		}
	}
	if i+1 < len(s) && s[i+1] == '!' {
		if k := strings.IndexByte(s[i+2:], '>'); k >= 0 {
			return i + 2 + k + 1
		}
	}
	if k := strings.IndexByte(s[i+1:], '>'); k >= 0 {
		return i + 1 + k + 1
	}
	return len(s)
}

var ksesBogusCommentRe = regexp.MustCompile(`^(?:</[^a-zA-Z][^>]*>|<![a-z][^>]*>)$`)

// ksesSplit2 mirrors wp_kses_split2().
func ksesSplit2(content string, allowed ksesAllowed) string {
	content = strings.ReplaceAll(content, `\"`, `"`)
	if !strings.HasPrefix(content, "<") {
		return "&gt;"
	}
	if ksesBogusCommentRe.MatchString(content) {
		opener := content[1:2]
		inner := content[2 : len(content)-1]
		for n := 0; n < 32; n++ {
			next := kses(inner, allowed)
			if next == inner {
				break
			}
			inner = next
		}
		return "<" + opener + inner + ">"
	}
	if strings.HasPrefix(content, "<!--") {
		content = strings.NewReplacer("<!--", "", "-->", "").Replace(content)
		for n := 0; n < 32; n++ {
			next := kses(content, allowed)
			if next == content {
				break
			}
			content = next
		}
		if content == "" {
			return ""
		}
		content = collapseDashes(content)
		content = strings.TrimSuffix(content, "-")
		return "<!--" + content + "-->"
	}
	// %^<\s*(/\s*)?([a-zA-Z0-9-]+)([^>]*)>?$%
	i := 1
	for i < len(content) && pcreSpace(content[i]) {
		i++
	}
	slash := false
	if i < len(content) && content[i] == '/' {
		slash = true
		i++
		for i < len(content) && pcreSpace(content[i]) {
			i++
		}
	}
	j := i
	for j < len(content) && (isAlpha(content[j]) || isDigit(content[j]) || content[j] == '-') {
		j++
	}
	if j == i {
		return ""
	}
	elem := content[i:j]
	k := j
	for k < len(content) && content[k] != '>' {
		k++
	}
	attrlist := content[j:k]
	if k < len(content) {
		k++
	}
	if k != len(content) && !(k == len(content)-1 && content[k] == '\n') {
		return ""
	}
	attrs, ok := allowed[asciiLower(elem)]
	if !ok {
		return ""
	}
	if slash {
		return "</" + elem + ">"
	}
	return ksesAttr(elem, attrlist, attrs)
}

func collapseDashes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '-' {
			b.WriteByte('-')
			for i+1 < len(s) && s[i+1] == '-' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ksesAttr mirrors wp_kses_attr().
func ksesAttr(elem, attr string, allowedAttrs map[string]bool) string {
	xhtml := ""
	if t := strings.TrimRight(attr, "\t\n\v\f\r "); strings.HasSuffix(t, "/") {
		xhtml = " /"
	}
	if len(allowedAttrs) == 0 {
		return "<" + elem + xhtml + ">"
	}
	var attr2 strings.Builder
	for _, a := range ksesHair(attr) {
		low := asciiLower(a.name)
		if !allowedAttrs[low] {
			if !(strings.HasPrefix(low, "data-") && allowedAttrs["data-*"] && validDataAttr(a.name)) {
				continue
			}
		}
		whole := a.whole
		if low == "style" {
			nv := safecssFilterAttr(a.value)
			if nv == "" {
				continue
			}
			whole = strings.Replace(whole, a.value, nv, -1)
		}
		attr2.WriteString(" " + whole)
	}
	out := strings.Map(func(r rune) rune {
		if r == '<' || r == '>' {
			return -1
		}
		return r
	}, attr2.String())
	return "<" + elem + out + xhtml + ">"
}

func validDataAttr(name string) bool {
	rest := name[len("data-"):]
	if rest == "" || strings.ContainsAny(rest, "=/> \t\f\r\n") {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z') && !isDigit(c) && c != '_' && c != '-' && !(c >= 'A' && c <= 'Z') {
			return false
		}
	}
	// The dataset name must match /^[a-z0-9_-]+$/ after camel-casing, so
	// upper-case letters are rejected.
	return asciiLower(rest) == rest
}

type hairAttr struct {
	name, value, whole string
	vless              bool
}

var ksesHTMLErrorRe = regexp.MustCompile(`^(?:"[^"]*(?:"|$)|'[^']*(?:'|$)|[^\t\n\v\f\r ])*` + ws + `*`)

// ksesHair mirrors wp_kses_hair(): attributes in order, first one wins.
func ksesHair(attr string) []hairAttr {
	var out []hairAttr
	seen := map[string]bool{}
	add := func(a hairAttr) {
		if !seen[a.name] {
			seen[a.name] = true
			out = append(out, a)
		}
	}
	mode := 0
	name := ""
	for len(attr) > 0 {
		working := false
		switch mode {
		case 0:
			if isAlpha(attr[0]) || attr[0] == '_' {
				j := 1
				for j < len(attr) && (isAlpha(attr[j]) || isDigit(attr[j]) || strings.IndexByte("-_:.", attr[j]) >= 0) {
					j++
				}
				name = attr[:j]
				attr = attr[j:]
				working, mode = true, 1
			}
		case 1:
			j := 0
			for j < len(attr) && pcreSpace(attr[j]) {
				j++
			}
			if j < len(attr) && attr[j] == '=' {
				j++
				for j < len(attr) && pcreSpace(attr[j]) {
					j++
				}
				attr = attr[j:]
				working, mode = true, 2
				break
			}
			if j > 0 {
				add(hairAttr{name: name, whole: name, vless: true})
				attr = attr[j:]
				working, mode = true, 0
			}
		case 2:
			if attr[0] == '"' || attr[0] == '\'' {
				q := attr[0]
				if c := strings.IndexByte(attr[1:], q); c >= 0 {
					rest := attr[1+c+1:]
					sp := 0
					for sp < len(rest) && pcreSpace(rest[sp]) {
						sp++
					}
					okTail := sp > 0 || rest == "" || rest == "/"
					if okTail {
						val := attr[1 : 1+c]
						if inList(asciiLower(name), uriAttributes) {
							val = ksesBadProtocol(val, allowedProtocols)
						}
						add(hairAttr{name: name, value: val, whole: name + "=" + string(q) + val + string(q)})
						attr = rest[sp:]
						working, mode = true, 0
						break
					}
				}
			}
			if !working {
				v := 0
				for v < len(attr) && !pcreSpace(attr[v]) && attr[v] != '"' && attr[v] != '\'' {
					v++
				}
				if v > 0 {
					rest := attr[v:]
					sp := 0
					for sp < len(rest) && pcreSpace(rest[sp]) {
						sp++
					}
					if sp > 0 || rest == "" || rest == "/" {
						val := attr[:v]
						if inList(asciiLower(name), uriAttributes) {
							val = ksesBadProtocol(val, allowedProtocols)
						}
						add(hairAttr{name: name, value: val, whole: name + `="` + val + `"`})
						attr = rest[sp:]
						working, mode = true, 0
					}
				}
			}
		}
		if !working {
			loc := ksesHTMLErrorRe.FindStringIndex(attr)
			if loc == nil || loc[1] == 0 {
				// The error pattern always consumes at least one byte for
				// non-empty input; guard against loops anyway.
				attr = attr[1:]
			} else {
				attr = attr[loc[1]:]
			}
			mode = 0
		}
	}
	if mode == 1 {
		add(hairAttr{name: name, whole: name, vless: true})
	}
	return out
}

var safeStyleProps = func() map[string]bool {
	list := strings.Fields(`background background-color background-image background-position background-repeat
background-size background-attachment background-blend-mode border border-radius border-width border-color
border-style border-right border-right-color border-right-style border-right-width border-bottom
border-bottom-color border-bottom-left-radius border-bottom-right-radius border-bottom-style border-bottom-width
border-left border-left-color border-left-style border-left-width border-top border-top-color
border-top-left-radius border-top-right-radius border-top-style border-top-width border-spacing border-collapse
caption-side columns column-count column-fill column-gap column-rule column-span column-width color filter
font font-family font-size font-style font-variant font-weight letter-spacing line-height text-align
text-decoration text-indent text-transform height min-height max-height width min-width max-width margin
margin-right margin-bottom margin-left margin-top margin-block-start margin-block-end margin-inline-start
margin-inline-end padding padding-right padding-bottom padding-left padding-top padding-block-start
padding-block-end padding-inline-start padding-inline-end flex flex-basis flex-direction flex-flow flex-grow
flex-shrink flex-wrap gap row-gap grid-template-columns grid-auto-columns grid-column-start grid-column-end
grid-column grid-column-gap grid-template-rows grid-auto-rows grid-row-start grid-row-end grid-row
grid-row-gap grid-gap justify-content justify-items justify-self align-content align-items align-self clear
cursor direction float list-style-type object-fit object-position opacity overflow vertical-align
writing-mode position top right bottom left z-index box-shadow aspect-ratio container-type`)
	m := map[string]bool{}
	for _, p := range list {
		m[p] = true
	}
	return m
}()

var (
	cssCustomPropRe = regexp.MustCompile(`^--[a-zA-Z0-9\-_]+$`)
	cssUnsafeRe     = regexp.MustCompile(`[\\(&=}]|/\*`)
	cssURLRe        = regexp.MustCompile(`url\([\t\n\v\f\r ]*(['"]?)([^'")]*)['"]?[\t\n\v\f\r ]*\)`)
	cssGradientRe   = regexp.MustCompile(`(?:linear|radial|repeating-linear|repeating-radial)-gradient\(((?:\([^)]*\)|[^()])*)\)`)
)

var cssURLProps = map[string]bool{"background": true, "background-image": true, "cursor": true, "filter": true,
	"list-style": true, "list-style-image": true}

// safecssFilterAttr approximates safecss_filter_attr(): declarations whose
// property is allow-listed and whose value has no risky characters survive,
// joined with ';'. CSS functions (var, calc, …) are accepted as in core.
func safecssFilterAttr(css string) string {
	css = ksesNoNull(css, false)
	css = strings.NewReplacer("\n", "", "\r", "", "\t", "").Replace(css)
	var out []string
	for _, item := range strings.Split(phpTrim(css), ";") {
		if item == "" {
			continue
		}
		item = phpTrim(item)
		test := item
		found, urlAttr, gradAttr := false, false, false
		if !strings.Contains(item, ":") {
			found = true
		} else {
			sel, val, _ := strings.Cut(item, ":")
			sel = phpTrim(sel)
			if safeStyleProps[sel] {
				found = true
				urlAttr = cssURLProps[sel]
				gradAttr = sel == "background" || sel == "background-image"
			} else if cssCustomPropRe.MatchString(sel) {
				found = true
				v := phpTrim(val)
				urlAttr = strings.HasPrefix(v, "url(")
				gradAttr = strings.Contains(v, "-gradient(")
			}
		}
		if found && urlAttr {
			for _, m := range cssURLRe.FindAllStringSubmatch(test, -1) {
				u := phpTrim(m[2])
				if u == "" || u != ksesBadProtocol(u, allowedProtocols) {
					found = false
					break
				}
				test = strings.Replace(test, m[0], "", 1)
			}
		}
		if found && gradAttr {
			test = cssGradientRe.ReplaceAllString(test, "")
		}
		if found {
			test = stripCSSFunctions(test)
			if !cssUnsafeRe.MatchString(test) {
				out = append(out, item)
			}
		}
	}
	return strings.Join(out, ";")
}

// stripCSSFunctions removes var()/calc()/min()/max()/minmax()/clamp()/repeat()
// calls including nested parentheses.
func stripCSSFunctions(s string) string {
	for _, fn := range []string{"minmax(", "repeat(", "clamp(", "calc(", "var(", "min(", "max("} {
		for {
			i := strings.Index(s, fn)
			if i < 0 || (i > 0 && isWordByte(s[i-1])) {
				break
			}
			depth, j := 0, i+len(fn)-1
			for ; j < len(s); j++ {
				if s[j] == '(' {
					depth++
				} else if s[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if j >= len(s) {
				break
			}
			s = s[:i] + s[j+1:]
		}
	}
	return s
}
