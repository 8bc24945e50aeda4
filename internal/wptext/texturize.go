package wptext

import (
	"strings"
)

const (
	openQFlag  = "<!--oq-->"
	openSqFlag = "<!--osq-->"
	aposFlag   = "<!--apos-->"
	primeFlag  = "<!--wp-prime-or-quote-->"
)

// wptexturize's str_replace() tables, applied in order.
var texturizeStatic = [][2]string{
	{"...", "&#8230;"}, {"``", "&#8220;"}, {"''", "&#8221;"}, {" (tm)", " &#8482;"},
	{"'tain't", "&#8217;tain&#8217;t"}, {"'twere", "&#8217;twere"}, {"'twas", "&#8217;twas"},
	{"'tis", "&#8217;tis"}, {"'twill", "&#8217;twill"}, {"'til", "&#8217;til"}, {"'bout", "&#8217;bout"},
	{"'nuff", "&#8217;nuff"}, {"'round", "&#8217;round"}, {"'cause", "&#8217;cause"}, {"'em", "&#8217;em"},
}

var (
	noTexturizeTags       = []string{"pre", "code", "kbd", "style", "script", "tt"}
	noTexturizeShortcodes = []string{"code"}
)

// spaceLenAt returns the length of a wp_spaces_regexp() match
// ([\r\n\t ]|\xC2\xA0|&nbsp;) starting at i, or 0.
func spaceLenAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	switch s[i] {
	case '\r', '\n', '\t', ' ':
		return 1
	case 0xC2:
		if i+1 < len(s) && s[i+1] == 0xA0 {
			return 2
		}
	case '&':
		if strings.HasPrefix(s[i:], "&nbsp;") {
			return 6
		}
	}
	return 0
}

// spaceBefore reports whether a wp_spaces_regexp() match ends at i.
func spaceBefore(s string, i int) bool {
	if i >= 1 {
		switch s[i-1] {
		case '\r', '\n', '\t', ' ':
			return true
		}
	}
	if i >= 2 && s[i-2] == 0xC2 && s[i-1] == 0xA0 {
		return true
	}
	return i >= 6 && s[i-6:i] == "&nbsp;"
}

// closingContextAt is the look-ahead (?=\Z|[.,:;!?)}\-\]]|&gt;|SPACES).
func closingContextAt(s string, p int) bool {
	if endsLikeZ(s, p) {
		return true
	}
	if strings.IndexByte(".,:;!?)}-]", s[p]) >= 0 {
		return true
	}
	return strings.HasPrefix(s[p:], "&gt;") || spaceLenAt(s, p) > 0
}

// Texturize mirrors wptexturize() with the default English configuration and
// the core shortcodes registered.
func Texturize(text string) string {
	return texturize(text, registeredShortcodes)
}

func texturize(text string, registered []string) string {
	if text == "" || text == "0" {
		return text
	}
	tagnames := foundShortcodeNames(text, registered, true)
	pieces := splitTexturize(text, tagnames)
	var tagStack, scStack []string
	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	for _, p := range pieces {
		curl := p.s
		switch p.kind {
		case pieceComment:
		case pieceTag:
			curl = encodeLoneAmpersands(curl)
			pushPopElement(curl, &tagStack, noTexturizeTags)
		case pieceShortcode:
			if !strings.HasPrefix(curl, "[[") && !strings.HasSuffix(curl, "]]") {
				pushPopElement(curl, &scStack, noTexturizeShortcodes)
			}
		default:
			if phpTrim(curl) == "" {
				break
			}
			if len(scStack) == 0 && len(tagStack) == 0 {
				curl = texturizeText(curl)
			}
		}
		b.WriteString(curl)
	}
	return b.String()
}

const (
	pieceText = iota
	pieceTag
	pieceComment
	pieceShortcode
)

type piece struct {
	s    string
	kind int
}

// splitTexturize is preg_split(_get_wptexturize_split_regex(), ...,
// PREG_SPLIT_DELIM_CAPTURE | PREG_SPLIT_NO_EMPTY).
func splitTexturize(s string, tagnames []string) []piece {
	var out []piece
	last := 0
	emit := func(end int, kind int, from int) {
		if from > last {
			out = append(out, piece{s[last:from], pieceText})
		}
		if end > from {
			out = append(out, piece{s[from:end], kind})
		}
		last = end
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			if strings.HasPrefix(s[i+1:], "!--") {
				end := len(s)
				if k := strings.Index(s[i+2:], "-->"); k >= 0 {
					end = i + 2 + k + 3
				}
				emit(end, pieceComment, i)
				i = end
				continue
			}
			end := len(s)
			if k := strings.IndexByte(s[i+1:], '>'); k >= 0 {
				end = i + 1 + k + 1
			}
			emit(end, pieceTag, i)
			i = end
			continue
		case '[':
			if len(tagnames) > 0 {
				if end := matchTexturizeShortcode(s, i, tagnames); end > 0 {
					emit(end, pieceShortcode, i)
					i = end
					continue
				}
			}
		}
		i++
	}
	if last < len(s) {
		out = append(out, piece{s[last:], pieceText})
	}
	return out
}

// matchTexturizeShortcode matches _get_wptexturize_shortcode_regex() at i and
// returns the end offset or -1.
func matchTexturizeShortcode(s string, i int, tagnames []string) int {
	j := i + 1
	if j < len(s) && (s[j] == '/' || s[j] == '[') {
		j++
	}
	for _, tag := range tagnames {
		if !strings.HasPrefix(s[j:], tag) {
			continue
		}
		k := j + len(tag)
		if k >= len(s) || !(pcreSpace(s[k]) || s[k] == ']' || s[k] == '/') {
			continue
		}
		for k < len(s) {
			c := s[k]
			if c == '[' || c == ']' || c == '>' {
				break
			}
			if c == '<' {
				m := strings.IndexAny(s[k+1:], "[]>")
				if m < 0 || s[k+1+m] != '>' {
					break
				}
				k += 1 + m + 1
				continue
			}
			k++
		}
		if k < len(s) && s[k] == ']' {
			k++
			if k < len(s) && s[k] == ']' {
				k++
			}
			return k
		}
	}
	return -1
}

// pushPopElement mirrors _wptexturize_pushpop_element().
func pushPopElement(text string, stack *[]string, disabled []string) {
	var opening bool
	var offset int
	if len(text) > 1 && text[1] != '/' {
		opening, offset = true, 1
	} else if len(*stack) == 0 {
		return
	} else {
		opening, offset = false, 2
	}
	var tag string
	if sp := strings.IndexByte(text, ' '); sp < 0 {
		tag = phpSubstr(text, offset, -1)
	} else {
		tag = phpSubstr(text, offset, sp-offset)
	}
	if !inList(tag, disabled) {
		return
	}
	if opening {
		*stack = append(*stack, tag)
	} else if n := len(*stack); n > 0 && (*stack)[n-1] == tag {
		*stack = (*stack)[:n-1]
	}
}

// phpSubstr mirrors substr($s, $start, $length) for non-negative start.
func phpSubstr(s string, start, length int) string {
	if start > len(s) {
		return ""
	}
	s = s[start:]
	if length < 0 {
		if -length >= len(s) {
			return ""
		}
		return s[:len(s)+length]
	}
	if length > len(s) {
		length = len(s)
	}
	return s[:length]
}

// encodeLoneAmpersands is preg_replace('/&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)/i', '&#038;').
func encodeLoneAmpersands(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		if s[i] != '&' {
			b.WriteByte(s[i])
			continue
		}
		if looksLikeEntity(s[i+1:]) {
			b.WriteByte('&')
		} else {
			b.WriteString("&#038;")
		}
	}
	return b.String()
}

// looksLikeEntity is the look-ahead #(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8}; (case-insensitive).
func looksLikeEntity(rest string) bool {
	if rest == "" {
		return false
	}
	if rest[0] == '#' {
		j := 1
		if j < len(rest) && isDigit(rest[j]) {
			for j < len(rest) && isDigit(rest[j]) {
				j++
			}
			return j < len(rest) && rest[j] == ';'
		}
		if j < len(rest) && (rest[j]|0x20) == 'x' {
			j++
			k := j
			for k < len(rest) && isHex(rest[k]) {
				k++
			}
			return k > j && k < len(rest) && rest[k] == ';'
		}
		return false
	}
	return entityNameRun(rest)
}

// entityNameRun is the look-ahead [a-z1-4]{1,8}; (case-insensitive).
func entityNameRun(rest string) bool {
	j := 0
	for j < len(rest) && (isAlpha(rest[j]) || (rest[j] >= '1' && rest[j] <= '4')) {
		j++
	}
	return j >= 1 && j <= 8 && j < len(rest) && rest[j] == ';'
}

// texturizeText applies wptexturize's replacements to one text node.
func texturizeText(curl string) string {
	curl = phpStrReplaceMany(curl, texturizeStatic)
	if strings.IndexByte(curl, '\'') >= 0 {
		curl = aposPassQuotedYear(curl, '\'', "&#8217;")
		curl = aposPassQuotedYear(curl, '"', "&#8221;")
		curl = aposPassYear(curl)
		curl = quotedNumberPass(curl, '\'', openSqFlag, "&#8217;")
		curl = openQuotePass(curl, '\'', openSqFlag)
		curl = aposInWordPass(curl)
		curl = texturizePrimes(curl, "'", "&#8242;", openSqFlag, "&#8217;")
		curl = strings.ReplaceAll(curl, aposFlag, "&#8217;")
		curl = strings.ReplaceAll(curl, openSqFlag, "&#8216;")
	}
	if strings.IndexByte(curl, '"') >= 0 {
		curl = quotedNumberPass(curl, '"', openQFlag, "&#8221;")
		curl = openQuotePass(curl, '"', openQFlag)
		curl = texturizePrimes(curl, `"`, "&#8243;", openQFlag, "&#8221;")
		curl = strings.ReplaceAll(curl, openQFlag, "&#8220;")
	}
	if strings.IndexByte(curl, '-') >= 0 {
		curl = strings.ReplaceAll(curl, "---", "&#8212;")
		curl = spacedDashPass(curl, "--", "&#8212;")
		curl = enDashPass(curl)
		curl = spacedDashPass(curl, "-", "&#8211;")
	}
	if hasDigitX(curl) {
		curl = timesPass(curl)
	}
	return encodeLoneAmpersands(curl)
}

// aposPassQuotedYear: '(\d\d)Q(?=closing context) -> apos_flag.$1.repl
func aposPassQuotedYear(s string, q byte, repl string) string {
	if !strings.Contains(s, "'") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' && i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && s[i+3] == q && closingContextAt(s, i+4) {
			b.WriteString(aposFlag)
			b.WriteString(s[i+1 : i+3])
			b.WriteString(repl)
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// aposPassYear: '(?=\d\d(?:\Z|(?![%\d]|[.,]\d))) -> apos_flag
func aposPassYear(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' && i+2 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) {
			p := i + 3
			ok := endsLikeZ(s, p)
			if !ok {
				c := s[p]
				bad := c == '%' || isDigit(c) || ((c == '.' || c == ',') && p+1 < len(s) && isDigit(s[p+1]))
				ok = !bad
			}
			if ok {
				b.WriteString(aposFlag)
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// quotedNumberPass: (?<=\A|SPACES)Q(\d[.,\d]*)Q -> flag.$1.closing
func quotedNumberPass(s string, q byte, flag, closing string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == q && (i == 0 || spaceBefore(s, i)) && i+1 < len(s) && isDigit(s[i+1]) {
			j := i + 2
			for j < len(s) && (isDigit(s[j]) || s[j] == '.' || s[j] == ',') {
				j++
			}
			if j < len(s) && s[j] == q {
				b.WriteString(flag)
				b.WriteString(s[i+1 : j])
				b.WriteString(closing)
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// openQuotePass: single quotes use (?<=\A|[([{"\-]|&lt;|SPACES)';
// double quotes use (?<=\A|[([{\-]|&lt;|SPACES)"(?!SPACES).
func openQuotePass(s string, q byte, flag string) string {
	openers := `([{"-`
	if q == '"' {
		openers = `([{-`
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == q {
			ok := i == 0 || strings.IndexByte(openers, s[i-1]) >= 0 ||
				(i >= 4 && s[i-4:i] == "&lt;") || spaceBefore(s, i)
			if ok && q == '"' && spaceLenAt(s, i+1) > 0 {
				ok = false
			}
			if ok {
				b.WriteString(flag)
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// aposInWordPass: (?<!SPACES)'(?!\Z|[.,:;!?"'(){}[\]\-]|&[lg]t;|SPACES) -> apos_flag
func aposInWordPass(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' && !spaceBefore(s, i) {
			p := i + 1
			blocked := endsLikeZ(s, p) || strings.IndexByte(`.,:;!?"'(){}[]-`, s[p]) >= 0 ||
				strings.HasPrefix(s[p:], "&lt;") || strings.HasPrefix(s[p:], "&gt;") || spaceLenAt(s, p) > 0
			if !blocked {
				b.WriteString(aposFlag)
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// texturizePrimes mirrors wptexturize_primes().
func texturizePrimes(haystack, needle, prime, openQuote, closeQuote string) string {
	sentences := strings.Split(haystack, openQuote)
	for key, sentence := range sentences {
		if !strings.Contains(sentence, needle) {
			continue
		}
		if key != 0 && !strings.Contains(sentence, closeQuote) {
			var count int
			sentence, count = replaceQuoteCandidates(sentence, needle[0], primeFlag)
			switch {
			case count > 1:
				var count2 int
				sentence, count2 = replaceFlagNoDigit(sentence, closeQuote)
				if count2 == 0 {
					pos := strings.LastIndex(sentence, primeFlag+".")
					if pos < 0 {
						pos = strings.LastIndex(sentence, primeFlag)
					}
					sentence = sentence[:pos] + closeQuote + sentence[pos+len(primeFlag):]
				}
				sentence = replaceAfterDigit(sentence, needle, prime)
				sentence = replaceAfterDigit(sentence, primeFlag, prime)
				sentence = strings.ReplaceAll(sentence, primeFlag, closeQuote)
			case count == 1:
				sentence = strings.ReplaceAll(sentence, primeFlag, closeQuote)
				sentence = replaceAfterDigit(sentence, needle, prime)
			default:
				sentence = replaceAfterDigit(sentence, needle, prime)
			}
		} else {
			sentence = replaceAfterDigit(sentence, needle, prime)
			sentence, _ = replaceQuoteCandidates(sentence, needle[0], closeQuote)
		}
		if needle == `"` && strings.Contains(sentence, `"`) {
			sentence = strings.ReplaceAll(sentence, `"`, closeQuote)
		}
		sentences[key] = sentence
	}
	return strings.Join(sentences, openQuote)
}

// replaceQuoteCandidates: /N(?=\Z|[.,:;!?)}\-\]]|&gt;|SPACES)/ -> repl.
func replaceQuoteCandidates(s string, n byte, repl string) (string, int) {
	var b strings.Builder
	count := 0
	for i := 0; i < len(s); i++ {
		if s[i] == n && closingContextAt(s, i+1) {
			b.WriteString(repl)
			count++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), count
}

// replaceAfterDigit: /(?<=\d)N/ -> repl.
func replaceAfterDigit(s, n, repl string) string {
	if !strings.Contains(s, n) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if i > 0 && isDigit(s[i-1]) && strings.HasPrefix(s[i:], n) {
			b.WriteString(repl)
			i += len(n)
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// replaceFlagNoDigit: /(?<!\d)FLAG/ -> repl, returning the count.
func replaceFlagNoDigit(s, repl string) (string, int) {
	var b strings.Builder
	count := 0
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], primeFlag) && (i == 0 || !isDigit(s[i-1])) {
			b.WriteString(repl)
			i += len(primeFlag)
			count++
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), count
}

// spacedDashPass: (?<=^|SPACES)D(?=$|SPACES) -> repl
func spacedDashPass(s, d, repl string) string {
	if !strings.Contains(s, d) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], d) && (i == 0 || spaceBefore(s, i)) {
			p := i + len(d)
			if endsLikeZ(s, p) || spaceLenAt(s, p) > 0 {
				b.WriteString(repl)
				i = p
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// enDashPass: (?<!xn)-- -> &#8211;
func enDashPass(s string) string {
	if !strings.Contains(s, "--") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "--") && !(i >= 2 && s[i-2:i] == "xn") {
			b.WriteString("&#8211;")
			i += 2
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// hasDigitX is preg_match('/(?<=\d)x\d/').
func hasDigitX(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if s[i] == 'x' && isDigit(s[i-1]) && isDigit(s[i+1]) {
			return true
		}
	}
	return false
}

func isNumPunct(c byte) bool { return isDigit(c) || c == '.' || c == ',' }

// timesPass: /\b(\d(?(?<=0)[\d\.,]+|[\d\.,]*))x(\d[\d\.,]*)\b/ -> $1&#215;$2
func timesPass(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || (i > 0 && isWordByte(s[i-1])) {
			continue
		}
		j := i + 1
		for j < len(s) && isNumPunct(s[j]) {
			j++
		}
		if s[i] == '0' && j == i+1 {
			continue
		}
		if j >= len(s) || s[j] != 'x' || j+1 >= len(s) || !isDigit(s[j+1]) {
			continue
		}
		e := j + 2
		for e < len(s) && isNumPunct(s[e]) {
			e++
		}
		end := -1
		for p := e; p >= j+2; p-- {
			after := p < len(s) && isWordByte(s[p])
			if isWordByte(s[p-1]) != after {
				end = p
				break
			}
		}
		if end < 0 {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(s[i:j])
		b.WriteString("&#215;")
		b.WriteString(s[j+1 : end])
		last = end
		i = end - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
