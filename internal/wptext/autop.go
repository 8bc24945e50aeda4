package wptext

import (
	"regexp"
	"strings"
)

// htmlSplit mirrors wp_html_split(): text at even indexes, elements
// (tags, comments, CDATA) at odd indexes.
func htmlSplit(s string) []string {
	out := make([]string, 0, 8)
	last := 0
	for i := 0; i < len(s); {
		if s[i] != '<' {
			i++
			continue
		}
		end := len(s)
		switch {
		case strings.HasPrefix(s[i+1:], "!--"):
			if k := strings.Index(s[i+2:], "-->"); k >= 0 {
				end = i + 2 + k + 3
			}
		case strings.HasPrefix(s[i+1:], "![CDATA["):
			if k := strings.Index(s[i+9:], "]]>"); k >= 0 {
				end = i + 9 + k + 3
			}
		default:
			if k := strings.IndexByte(s[i+1:], '>'); k >= 0 {
				end = i + 1 + k + 1
			}
		}
		out = append(out, s[last:i], s[i:end])
		last = end
		i = end
	}
	return append(out, s[last:])
}

// replaceInHTMLTags mirrors wp_replace_in_html_tags() for one pair.
func replaceInHTMLTags(s, needle, repl string) string {
	if !strings.Contains(s, needle) {
		return s
	}
	parts := htmlSplit(s)
	changed := false
	for i := 1; i < len(parts); i += 2 {
		if strings.Contains(parts[i], needle) {
			parts[i] = strings.ReplaceAll(parts[i], needle, repl)
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(parts, "")
}

const allBlocks = `(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)`

// ws is PCRE's \s in non-UTF mode.
const ws = `[\t\n\v\f\r ]`

var (
	autopDoubleBr       = regexp.MustCompile(`<br` + ws + `*/?>` + ws + `*<br` + ws + `*/?>`)
	autopBlockOpen      = regexp.MustCompile(`(<` + allBlocks + `[\t\n\v\f\r /> ])`)
	autopBlockClose     = regexp.MustCompile(`(</` + allBlocks + `>)`)
	autopHr             = regexp.MustCompile(`(<hr` + ws + `*?/?>)`)
	autopOptionBefore   = regexp.MustCompile(ws + `*<option`)
	autopOptionAfter    = regexp.MustCompile(`</option>` + ws + `*`)
	autopObjectOpen     = regexp.MustCompile(`(<object[^>]*>)` + ws + `*`)
	autopObjectClose    = regexp.MustCompile(ws + `*</object>`)
	autopParamEmbed     = regexp.MustCompile(ws + `*(</?(?:param|embed)[^>]*>)` + ws + `*`)
	autopMediaOpen      = regexp.MustCompile(`([<\[](?:audio|video)[^>\]]*[>\]])` + ws + `*`)
	autopMediaClose     = regexp.MustCompile(ws + `*([<\[]/(?:audio|video)[>\]])`)
	autopSourceTrack    = regexp.MustCompile(ws + `*(<(?:source|track)[^>]*>)` + ws + `*`)
	autopFigcaptionOpen = regexp.MustCompile(ws + `*(<figcaption[^>]*>)`)
	autopFigcaptionEnd  = regexp.MustCompile(`</figcaption>` + ws + `*`)
	autopMultiNL        = regexp.MustCompile(`\n\n+`)
	autopSplit          = regexp.MustCompile(`\n` + ws + `*\n`)
	autopEmptyP         = regexp.MustCompile(`<p>` + ws + `*</p>`)
	autopCloseInDiv     = regexp.MustCompile(`<p>([^<]+)</(div|address|form)>`)
	autopUnwrapBlock    = regexp.MustCompile(`<p>` + ws + `*(</?` + allBlocks + `[^>]*>)` + ws + `*</p>`)
	autopLiInP          = regexp.MustCompile(`<p>(<li.+?)</p>`)
	autopBlockquoteP    = regexp.MustCompile(`(?i)<p><blockquote([^>]*)>`)
	autopPBeforeBlock   = regexp.MustCompile(`<p>` + ws + `*(</?` + allBlocks + `[^>]*>)`)
	autopPAfterBlock    = regexp.MustCompile(`(</?` + allBlocks + `[^>]*>)` + ws + `*</p>`)
	autopBrAfterBlock   = regexp.MustCompile(`(</?` + allBlocks + `[^>]*>)` + ws + `*<br />`)
	autopBrBeforeBlock  = regexp.MustCompile(`<br />(` + ws + `*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`)
	autopFinalNLP       = regexp.MustCompile(`\n</p>(\n?)$`)
)

// Autop mirrors wpautop(): double line breaks become paragraphs and, when br
// is true, remaining single line breaks become <br />.
func Autop(text string, br bool) string {
	if phpTrim(text) == "" {
		return ""
	}
	text += "\n"
	var preTags [][2]string
	if strings.Contains(text, "<pre") {
		parts := strings.Split(text, "</pre>")
		lastPart := parts[len(parts)-1]
		parts = parts[:len(parts)-1]
		var b strings.Builder
		i := 0
		for _, part := range parts {
			start := strings.Index(part, "<pre")
			if start < 0 {
				b.WriteString(part)
				continue
			}
			name := "<pre wp-pre-tag-" + itoa(i) + "></pre>"
			preTags = append(preTags, [2]string{name, part[start:] + "</pre>"})
			b.WriteString(part[:start] + name)
			i++
		}
		b.WriteString(lastPart)
		text = b.String()
	}
	text = autopDoubleBr.ReplaceAllString(text, "\n\n")
	text = autopBlockOpen.ReplaceAllString(text, "\n\n$1")
	text = autopBlockClose.ReplaceAllString(text, "$1\n\n")
	text = autopHr.ReplaceAllString(text, "$1\n\n")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	text = replaceInHTMLTags(text, "\n", " <!-- wpnl --> ")
	if strings.Contains(text, "<option") {
		text = autopOptionBefore.ReplaceAllString(text, "<option")
		text = autopOptionAfter.ReplaceAllString(text, "</option>")
	}
	if strings.Contains(text, "</object>") {
		text = autopObjectOpen.ReplaceAllString(text, "$1")
		text = autopObjectClose.ReplaceAllString(text, "</object>")
		text = autopParamEmbed.ReplaceAllString(text, "$1")
	}
	if strings.Contains(text, "<source") || strings.Contains(text, "<track") {
		text = autopMediaOpen.ReplaceAllString(text, "$1")
		text = autopMediaClose.ReplaceAllString(text, "$1")
		text = autopSourceTrack.ReplaceAllString(text, "$1")
	}
	if strings.Contains(text, "<figcaption") {
		text = autopFigcaptionOpen.ReplaceAllString(text, "$1")
		text = autopFigcaptionEnd.ReplaceAllString(text, "</figcaption>")
	}
	text = autopMultiNL.ReplaceAllString(text, "\n\n")
	var b strings.Builder
	for _, t := range autopSplit.Split(text, -1) {
		if t == "" {
			continue
		}
		b.WriteString("<p>" + strings.Trim(t, "\n") + "</p>\n")
	}
	text = b.String()
	text = autopEmptyP.ReplaceAllString(text, "")
	text = autopCloseInDiv.ReplaceAllString(text, "<p>$1</p></$2>")
	text = autopUnwrapBlock.ReplaceAllString(text, "$1")
	text = autopLiInP.ReplaceAllString(text, "$1")
	text = autopBlockquoteP.ReplaceAllString(text, "<blockquote$1><p>")
	text = strings.ReplaceAll(text, "</blockquote></p>", "</p></blockquote>")
	text = autopPBeforeBlock.ReplaceAllString(text, "$1")
	text = autopPAfterBlock.ReplaceAllString(text, "$1")
	if br {
		text = preserveNewlinesInRawElements(text)
		text = strings.ReplaceAll(text, "<br>", "<br />")
		text = strings.ReplaceAll(text, "<br/>", "<br />")
		text = newlinesToBr(text)
		text = strings.ReplaceAll(text, "<WPPreserveNewline />", "\n")
	}
	text = autopBrAfterBlock.ReplaceAllString(text, "$1")
	text = autopBrBeforeBlock.ReplaceAllString(text, "$1")
	text = autopFinalNLP.ReplaceAllString(text, "</p>$1")
	for _, p := range preTags {
		text = strings.ReplaceAll(text, p[0], p[1])
	}
	if strings.Contains(text, "<!-- wpnl -->") {
		text = strings.ReplaceAll(text, " <!-- wpnl --> ", "\n")
		text = strings.ReplaceAll(text, "<!-- wpnl -->", "\n")
	}
	return text
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for i > 0 {
		d = append([]byte{byte('0' + i%10)}, d...)
		i /= 10
	}
	return string(d)
}

// preserveNewlinesInRawElements is
// preg_replace_callback('/<(script|style|svg).*?<\/\\1>/s', newline -> <WPPreserveNewline />).
func preserveNewlinesInRawElements(s string) string {
	if !strings.Contains(s, "<script") && !strings.Contains(s, "<style") && !strings.Contains(s, "<svg") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		var name string
		for _, n := range []string{"script", "style", "svg"} {
			if strings.HasPrefix(s[i+1:], n) {
				name = n
				break
			}
		}
		if name == "" {
			continue
		}
		closeTag := "</" + name + ">"
		k := strings.Index(s[i+1+len(name):], closeTag)
		if k < 0 {
			continue
		}
		end := i + 1 + len(name) + k + len(closeTag)
		b.WriteString(s[last:i])
		b.WriteString(strings.ReplaceAll(s[i:end], "\n", "<WPPreserveNewline />"))
		last = end
		i = end - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// newlinesToBr is preg_replace('|(?<!<br />)\s*\n|', "<br />\n").
func newlinesToBr(s string) string {
	if strings.IndexByte(s, '\n') < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		// A match starts at the first position where the look-behind holds
		// and \s*\n can be matched.
		if !pcreSpace(s[i]) || (i >= 6 && s[i-6:i] == "<br />") {
			continue
		}
		// Greedy \s* then \n: the match ends at the last \n of the
		// whitespace run starting here.
		j := i
		lastNL := -1
		for j < len(s) && pcreSpace(s[j]) {
			if s[j] == '\n' {
				lastNL = j
			}
			j++
		}
		if lastNL < 0 {
			i = j - 1
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString("<br />\n")
		last = lastNL + 1
		i = lastNL
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// ShortcodeUnautop mirrors shortcode_unautop(): a registered shortcode that
// stands alone in a paragraph is unwrapped.
func ShortcodeUnautop(s string) string {
	if !strings.Contains(s, "<p>") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if !strings.HasPrefix(s[i:], "<p>") {
			continue
		}
		j := i + 3
		for {
			n := spaceLenAt(s, j)
			if n == 0 {
				break
			}
			j += n
		}
		if j >= len(s) || s[j] != '[' {
			continue
		}
		scEnd, ok := matchUnautopShortcode(s, j)
		if !ok {
			continue
		}
		k := scEnd
		for {
			n := spaceLenAt(s, k)
			if n == 0 {
				break
			}
			k += n
		}
		if !strings.HasPrefix(s[k:], "</p>") {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(s[j:scEnd])
		last = k + 4
		i = last - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// matchUnautopShortcode matches the shortcode part of shortcode_unautop()'s
// pattern at s[i] == '[' and returns its end.
func matchUnautopShortcode(s string, i int) (int, bool) {
	for _, tag := range registeredShortcodes {
		j := i + 1
		if !strings.HasPrefix(s[j:], tag) {
			continue
		}
		k := j + len(tag)
		if k < len(s) && (isWordByte(s[k]) || s[k] == '-') {
			continue
		}
		// [^\]\/]*(?:\/(?!\])[^\]\/]*)*? then \/\] or \](content\[\/tag\])?
		for k < len(s) {
			if s[k] == ']' {
				k++
				closing := "[/" + tag + "]"
				// Possessive content match: text up to the first closing tag.
				if idx := strings.Index(s[k:], closing); idx >= 0 {
					// The optional group is greedy; prefer the enclosing form
					// only if the rest of the pattern can still match, which
					// the caller checks. Try the enclosing form first.
					end := k + idx + len(closing)
					if unautopTail(s, end) {
						return end, true
					}
				}
				return k, true
			}
			if s[k] == '/' && k+1 < len(s) && s[k+1] == ']' {
				return k + 2, true
			}
			k++
		}
		return 0, false
	}
	return 0, false
}

// unautopTail reports whether optional spaces and "</p>" follow p.
func unautopTail(s string, p int) bool {
	for {
		n := spaceLenAt(s, p)
		if n == 0 {
			break
		}
		p += n
	}
	return strings.HasPrefix(s[p:], "</p>")
}
