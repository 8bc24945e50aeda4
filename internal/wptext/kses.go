package wptext

import (
	"regexp"
	"strings"
)

// ksesAttrSpec is one attribute entry of a KSES $allowed_html array. The
// zero value is `true` (allowed, no checks); the other fields are the array
// form's checks that wp_kses_attr() and wp_kses_check_attr_val() apply. Of
// those checks only the ones WordPress' own tables use are supported.
type ksesAttrSpec struct {
	// required mirrors 'required' => true: without the attribute (or when
	// it fails its checks) the tag keeps no attributes at all (a
	// self-closing one is dropped).
	required bool
	// valueless mirrors 'valueless' => 'y' (the attribute must not have a
	// value) or 'n' (it must have one); "" means no check.
	valueless string
	// values mirrors 'values' => array(…): the lower-cased value must be
	// one of them. nil means no check.
	values []string
	// valueCallback mirrors 'value_callback'.
	valueCallback func(value string) bool
}

// check mirrors the wp_kses_check_attr_val() loop of wp_kses_attr_check().
func (s ksesAttrSpec) check(value string, vless bool) bool {
	if s.valueless != "" {
		v := "n"
		if vless {
			v = "y"
		}
		if asciiLower(s.valueless) != v {
			return false
		}
	}
	if s.values != nil && !inList(asciiLower(value), s.values) {
		return false
	}
	if s.valueCallback != nil && !s.valueCallback(value) {
		return false
	}
	return true
}

// ksesAllowed maps lower-case element names to their allowed lower-case
// attribute names (a KSES $allowed_html array). The attribute "data-*"
// allows every custom data attribute wp_kses_attr_check() accepts.
type ksesAllowed map[string]map[string]ksesAttrSpec

// ksesAttrs builds the attribute map of plain `'name' => true` entries.
func ksesAttrs(names ...string) map[string]ksesAttrSpec {
	m := make(map[string]ksesAttrSpec, len(names))
	for _, n := range names {
		m[n] = ksesAttrSpec{}
	}
	return m
}

// tecExcerptAllowed is the default $allowed_html of
// tribe_events_get_the_excerpt().
var tecExcerptAllowed = func() ksesAllowed {
	a := ksesAllowed{"a": ksesAttrs("class", "id", "style", "href", "rel", "target")}
	for _, t := range []string{"b", "strong", "em", "span", "ul", "li", "ol"} {
		a[t] = ksesAttrs("class", "id", "style")
	}
	return a
}()

// ksesGlobalAttributes are the attributes _wp_add_global_attributes() adds
// to every element of $allowedposttags (WordPress 6.9).
var ksesGlobalAttributes = []string{"aria-controls", "aria-current", "aria-describedby", "aria-details",
	"aria-expanded", "aria-hidden", "aria-label", "aria-labelledby", "aria-live", "class", "data-*", "dir",
	"hidden", "id", "lang", "style", "title", "role", "xml:lang"}

// postAllowedTags is WordPress 6.9's $allowedposttags (wp_kses_allowed_html
// ('post') without filters) after array_map('_wp_add_global_attributes'):
// every element also allows ksesGlobalAttributes. <object> keeps its
// attributes only for a PDF under the uploads URL (see ksesPostAllowed).
var postAllowedTags = ksesPostAllowed("")

// ksesPostAllowed builds $allowedposttags with _wp_kses_allow_pdf_objects()
// checking <object data> against uploadsURL (wp_upload_dir()['url']). With
// "" no URL qualifies, so <object> always loses its attributes.
func ksesPostAllowed(uploadsURL string) ksesAllowed {
	tags := map[string][]string{
		"address": nil,
		"a":       {"href", "rel", "rev", "name", "target"},
		"abbr":    nil, "acronym": nil,
		"area":    {"alt", "coords", "href", "nohref", "shape", "target"},
		"article": {"align"}, "aside": {"align"},
		"audio": {"autoplay", "controls", "loop", "muted", "preload", "src"},
		"b":     nil, "bdo": nil, "big": nil,
		"blockquote": {"cite"}, "br": nil,
		"button":  {"disabled", "name", "type", "value"},
		"caption": {"align"}, "cite": nil, "code": nil,
		"col":      {"align", "char", "charoff", "span", "valign", "width"},
		"colgroup": {"align", "char", "charoff", "span", "valign", "width"},
		"del":      {"datetime"}, "dd": nil, "dfn": nil,
		"details": {"align", "open", "name"},
		"div":     {"align"}, "dl": nil, "dt": nil, "em": nil, "fieldset": nil,
		"figure": {"align"}, "figcaption": {"align"},
		"font":   {"color", "face", "size"},
		"footer": {"align"},
		"h1":     {"align"}, "h2": {"align"}, "h3": {"align"}, "h4": {"align"}, "h5": {"align"}, "h6": {"align"},
		"header": {"align"}, "hgroup": {"align"},
		"hr":  {"align", "noshade", "size", "width"},
		"i":   nil,
		"img": {"alt", "align", "border", "height", "hspace", "loading", "longdesc", "vspace", "src", "usemap", "width"},
		"ins": {"datetime", "cite"}, "kbd": nil,
		"label": {"for"}, "legend": {"align"},
		"li": {"align", "value"}, "main": {"align"},
		"map": {"name"}, "mark": nil, "menu": {"type"}, "nav": {"align"},
		"object": nil,
		"p":      {"align"}, "pre": {"width"}, "q": {"cite"},
		"rb": nil, "rp": nil, "rt": nil, "rtc": nil, "ruby": nil,
		"s": nil, "samp": nil, "span": {"align"}, "section": {"align"},
		"small": nil, "strike": nil, "strong": nil, "sub": nil,
		"summary": {"align"}, "sup": nil,
		"table":    {"align", "bgcolor", "border", "cellpadding", "cellspacing", "rules", "summary", "width"},
		"tbody":    {"align", "char", "charoff", "valign"},
		"td":       {"abbr", "align", "axis", "bgcolor", "char", "charoff", "colspan", "headers", "height", "nowrap", "rowspan", "scope", "valign", "width"},
		"textarea": {"cols", "rows", "disabled", "name", "readonly"},
		"tfoot":    {"align", "char", "charoff", "valign"},
		"th":       {"abbr", "align", "axis", "bgcolor", "char", "charoff", "colspan", "headers", "height", "nowrap", "rowspan", "scope", "valign", "width"},
		"thead":    {"align", "char", "charoff", "valign"},
		"title":    nil,
		"tr":       {"align", "bgcolor", "char", "charoff", "valign"},
		"track":    {"default", "kind", "label", "src", "srclang"},
		"tt":       nil, "u": nil, "ul": {"type"},
		"ol":    {"start", "type", "reversed"},
		"var":   nil,
		"video": {"autoplay", "controls", "height", "loop", "muted", "playsinline", "poster", "preload", "src", "width"},
	}
	a := make(ksesAllowed, len(tags))
	for t, attrs := range tags {
		m := ksesAttrs(attrs...)
		for _, g := range ksesGlobalAttributes {
			m[g] = ksesAttrSpec{}
		}
		a[t] = m
	}
	a["a"]["download"] = ksesAttrSpec{valueless: "y"}
	a["object"]["data"] = ksesAttrSpec{required: true, valueCallback: func(u string) bool {
		return ksesAllowPDFObject(u, uploadsURL)
	}}
	a["object"]["type"] = ksesAttrSpec{required: true, values: []string{"application/pdf"}}
	return a
}

// ksesAllowPDFObject mirrors _wp_kses_allow_pdf_objects() with uploadsURL
// standing for wp_upload_dir()['url'].
func ksesAllowPDFObject(url, uploadsURL string) bool {
	if strings.ContainsAny(url, "?#") || !strings.HasSuffix(url, ".pdf") {
		return false
	}
	if uploadsURL == "" {
		return false
	}
	host, port := urlHostPort(uploadsURL)
	return strings.HasPrefix(url, "http://"+host+port+"/") || strings.HasPrefix(url, "https://"+host+port+"/")
}

// urlHostPort returns wp_parse_url($u)['host'] and ':'.port (or "") for an
// absolute URL.
func urlHostPort(u string) (host, port string) {
	i := strings.Index(u, "//")
	if i < 0 {
		return "", ""
	}
	rest := u[i+2:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.LastIndexByte(rest, '@'); j >= 0 {
		rest = rest[j+1:]
	}
	if j := strings.LastIndexByte(rest, ':'); j >= 0 && !strings.HasSuffix(rest, "]") {
		return rest[:j], ":" + rest[j+1:]
	}
	return rest, ""
}

func ksesPost(s string) string { return kses(s, postAllowedTags) }

// kses mirrors wp_kses($content, $allowed_html) with the default 'pre_kses'
// filters (wp_pre_kses_less_than; block attribute filtering is an identity
// for content without block comments).
func kses(content string, allowed ksesAllowed) string {
	content = ksesNoNull(content, true)
	content = ksesNormalizeEntities(content)
	content = preKsesLessThan(content)
	return ksesSplit(content, allowed)
}

// ksesBlocks is wp_kses with both default 'pre_kses' filters, in the order default-filters.php
// adds them: wp_pre_kses_less_than, then wp_pre_kses_block_attributes (which removes itself
// while it runs, so the wp_kses calls it makes are plain kses; and the text of comments that
// wp_kses_split2 filters again never holds "<!--", which the block filter needs).
func ksesBlocks(content string, allowed ksesAllowed) string {
	content = ksesNoNull(content, true)
	content = ksesNormalizeEntities(content)
	content = preKsesLessThan(content)
	content = preKsesBlockAttributes(content, allowed)
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
	if _, ok := allowed[asciiLower(elem)]; !ok {
		return ""
	}
	if slash {
		return "</" + elem + ">"
	}
	return ksesAttr(elem, attrlist, allowed)
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

// ksesAttr mirrors wp_kses_attr(): it keeps the attributes of element that
// wp_kses_attr_check() allows (after wp_kses_hair() has parsed them, re-quoted
// them and stripped disallowed URL protocols from URI attributes), enforces
// required attributes, and removes any "<" or ">" left in the attributes.
func ksesAttr(elem, attr string, allowed ksesAllowed) string {
	xhtml := ""
	if t := strings.TrimRight(attr, "\t\n\v\f\r "); strings.HasSuffix(t, "/") {
		xhtml = " /"
	}
	elemLow := asciiLower(elem)
	specs := allowed[elemLow]
	if len(specs) == 0 {
		return "<" + elem + xhtml + ">"
	}
	hair := ksesHair(attr)
	var required map[string]bool
	for name, s := range specs {
		if s.required {
			if required == nil {
				required = map[string]bool{}
			}
			required[name] = true
		}
	}
	// A failed required attribute leaves the bare tag (KSES cannot drop the
	// matching closing tag), or nothing for a self-closing one.
	stripped := ""
	if xhtml == "" {
		stripped = "<" + elem + ">"
	}
	var attr2 strings.Builder
	for _, a := range hair {
		low := asciiLower(a.name)
		req := required[low]
		if whole, ok := ksesAttrCheck(a.name, a.value, a.whole, a.vless, elem, allowed); ok {
			attr2.WriteString(" " + whole)
			if req {
				delete(required, low)
			}
		} else if req {
			return stripped
		}
	}
	if len(required) > 0 {
		return stripped
	}
	out := strings.Map(func(r rune) rune {
		if r == '<' || r == '>' {
			return -1
		}
		return r
	}, attr2.String())
	return "<" + elem + out + xhtml + ">"
}

// ksesAttrCheck mirrors wp_kses_attr_check(): whether attribute name (with
// value, whole "name=…" text and valueless flag) is allowed on element, and
// the whole text to emit. Custom data attributes are allowed where "data-*"
// is, if their lower-cased name matches /^data-[a-z0-9_-]+$/; style values
// go through safecss_filter_attr() and the attribute is dropped when nothing
// survives; array entries' checks (valueless, values, value_callback) apply.
func ksesAttrCheck(name, value, whole string, vless bool, element string, allowed ksesAllowed) (string, bool) {
	nameLow := asciiLower(name)
	specs, ok := allowed[asciiLower(element)]
	if !ok {
		return "", false
	}
	spec, ok := specs[nameLow]
	if !ok {
		data, hasData := specs["data-*"]
		if !hasData || !isKsesDataAttr(nameLow) {
			return "", false
		}
		spec = data
	}
	if nameLow == "style" {
		nv := safecssFilterAttr(value)
		if phpEmpty(nv) {
			return "", false
		}
		if value != "" {
			whole = strings.ReplaceAll(whole, value, nv)
		}
		value = nv
	}
	if !spec.check(value, vless) {
		return "", false
	}
	return whole, true
}

// isKsesDataAttr is preg_match('/^data-[a-z0-9_-]+$/', $name_low).
func isKsesDataAttr(nameLow string) bool {
	if !strings.HasPrefix(nameLow, "data-") || len(nameLow) == len("data-") {
		return false
	}
	for i := len("data-"); i < len(nameLow); i++ {
		c := nameLow[i]
		if !(c >= 'a' && c <= 'z') && !isDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

type hairAttr struct {
	name, value, whole string
	vless              bool
}

var ksesHTMLErrorRe = regexp.MustCompile(`^(?:"[^"]*(?:"|$)|'[^']*(?:'|$)|[^\t\n\v\f\r ])*` + ws + `*`)

// ksesHair mirrors wp_kses_hair(): attributes in order, the first of a
// (case-sensitively) repeated name wins; values get double quotes unless
// they were single-quoted; the values of URI attributes (wp_kses_uri_attributes())
// go through wp_kses_bad_protocol() with wp_allowed_protocols(); malformed
// parts are skipped as wp_kses_html_error() does.
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
					// (\s+|/?$), where $ also matches before a final "\n".
					if sp > 0 || rest == "" || rest == "/" || rest == "/\n" {
						val := attr[1 : 1+c]
						if isURIAttribute(name) {
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
						if isURIAttribute(name) {
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
	cssURLRe        = regexp.MustCompile(`url\([^)]+\)`)
	cssGradientRe   = regexp.MustCompile(`^(?:repeating-)?(?:linear|radial|conic)-gradient\((?:[^()]|rgba?\([^()]*\))*\)$`)
)

// cssURLProps are safecss_filter_attr()'s $css_url_data_types.
var cssURLProps = map[string]bool{"background": true, "background-image": true, "cursor": true, "filter": true,
	"list-style": true, "list-style-image": true}

// safecssFilterAttr mirrors safecss_filter_attr() with the default
// safe_style_css list: declarations whose property is allowed (or a custom
// property) survive, joined with ";", unless — after removing url()s whose
// URL keeps its protocol under wp_kses_bad_protocol(), a whole-value
// gradient, and balanced var()/calc()/min()/max()/minmax()/clamp()/repeat()
// calls — they still contain \ ( & } = or "/*".
func safecssFilterAttr(css string) string {
	css = ksesNoNull(css, false)
	css = strings.NewReplacer("\n", "", "\r", "", "\t", "").Replace(css)
	var out strings.Builder
	for _, item := range strings.Split(phpTrim(css), ";") {
		if item == "" {
			continue
		}
		item = phpTrim(item)
		test := item
		found, urlAttr, gradAttr := false, false, false
		value := ""
		if !strings.Contains(item, ":") {
			found = true
		} else {
			sel, v, _ := strings.Cut(item, ":")
			value = v
			sel = phpTrim(sel)
			custom := cssCustomPropRe.MatchString(sel)
			if custom || safeStyleProps[sel] {
				found = true
				urlAttr = cssURLProps[sel]
				gradAttr = sel == "background" || sel == "background-image"
			}
			if custom {
				v := phpTrim(value)
				urlAttr = strings.HasPrefix(v, "url(")
				gradAttr = strings.Contains(v, "-gradient(")
			}
		}
		if found && urlAttr {
			for _, m := range cssURLRe.FindAllString(value, -1) {
				piece := cssURLPiece(m)
				if phpEmpty(piece) {
					found = false
					break
				}
				u := phpTrim(piece)
				if phpEmpty(u) || ksesBadProtocol(u, allowedProtocols) != u {
					found = false
					break
				}
				test = strings.ReplaceAll(test, m, "")
			}
		}
		if found && gradAttr {
			if v := phpTrim(value); cssGradientRe.MatchString(v) {
				test = strings.ReplaceAll(test, v, "")
			}
		}
		if found {
			test = stripCSSFunctions(test)
			if !cssUnsafeRe.MatchString(test) {
				if out.Len() > 0 {
					out.WriteByte(';')
				}
				out.WriteString(item)
			}
		}
	}
	return out.String()
}

// cssURLPiece is $url_pieces[2] of
// preg_match('/^url\(\s*([\'\"]?)(.*)(\g1)\s*\)$/', $url_match) for a match
// of /url\([^)]+\)/: the text inside the parentheses without leading
// whitespace, and without the quotes if it is quoted consistently.
func cssURLPiece(m string) string {
	body := m[len("url(") : len(m)-1]
	i := 0
	for i < len(body) && pcreSpace(body[i]) {
		i++
	}
	body = body[i:]
	if body != "" && (body[0] == '"' || body[0] == '\'') {
		q := body[0]
		t := strings.TrimRight(body[1:], "\t\n\v\f\r ")
		if t != "" && t[len(t)-1] == q {
			return t[:len(t)-1]
		}
	}
	return body
}

// stripCSSFunctions is preg_replace('/\b(?:var|calc|min|max|minmax|clamp|repeat)(\((?:[^()]|(?1))*\))/', ”, $s):
// calls of those functions with balanced parentheses are removed.
func stripCSSFunctions(s string) string {
	if !strings.Contains(s, "(") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		var open int
		for _, fn := range []string{"var", "calc", "min", "max", "minmax", "clamp", "repeat"} {
			if strings.HasPrefix(s[i:], fn+"(") {
				open = i + len(fn)
				break
			}
		}
		if open == 0 {
			continue
		}
		depth, j := 0, open
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
			continue
		}
		b.WriteString(s[last:i])
		last = j + 1
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
