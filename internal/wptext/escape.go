package wptext

import (
	"strconv"
	"strings"
)

// allowedEntityNames is KSES' $allowedentitynames (HTML 4 named entities plus
// apos).
var allowedEntityNames = func() map[string]bool {
	names := strings.Fields(`nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg
plusmn acute micro para middot cedil ordm raquo iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil
Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash
Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute
ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute
ucirc uuml yacute thorn yuml quot amp lt gt apos OElig oelig Scaron scaron Yuml circ tilde ensp emsp thinsp
zwnj zwj lrm rlm ndash mdash lsquo rsquo sbquo ldquo rdquo bdquo dagger Dagger permil lsaquo rsaquo euro fnof
Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho Sigma Tau Upsilon Phi
Chi Psi Omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf
sigma tau upsilon phi chi psi omega thetasym upsih piv bull hellip prime Prime oline frasl weierp image real
trade alefsym larr uarr rarr darr harr crarr lArr uArr rArr dArr hArr forall part exist empty nabla isin notin
ni prod sum minus lowast radic prop infin ang and or cap cup int sim cong asymp ne equiv le ge sub sup nsub
sube supe oplus otimes perp sdot lceil rceil lfloor rfloor lang rang loz spades clubs hearts diams sup1 sup2
sup3 frac14 frac12 frac34 there4`)
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}()

// validUnicode mirrors KSES valid_unicode().
func validUnicode(i int64) bool {
	return i == 0x9 || i == 0xa || i == 0xd ||
		(i >= 0x20 && i <= 0xd7ff) ||
		(i >= 0xe000 && i <= 0xfffd) ||
		(i >= 0x10000 && i <= 0x10ffff)
}

// ksesNormalizeEntities mirrors wp_kses_normalize_entities($content, 'html'):
// every & becomes &amp; unless it starts an allowed named entity or a valid
// numeric reference (which is canonicalised).
func ksesNormalizeEntities(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '&' {
			b.WriteByte(c)
			continue
		}
		rest := s[i+1:]
		// Named: [A-Za-z]{2,8}[0-9]{0,2};
		j := 0
		for j < len(rest) && j < 8 && isAlpha(rest[j]) {
			j++
		}
		if j >= 2 {
			k := j
			for k < len(rest) && k-j < 2 && isDigit(rest[k]) {
				k++
			}
			// PCRE backtracks over the letter run; the only way to end on ';'
			// is the maximal letters+digits run because ';' is not a letter.
			if k < len(rest) && rest[k] == ';' {
				name := rest[:k]
				if allowedEntityNames[name] {
					b.WriteString("&" + name + ";")
				} else {
					b.WriteString("&amp;" + name + ";")
				}
				i += k + 1
				continue
			}
		}
		if len(rest) > 0 && rest[0] == '#' {
			num := rest[1:]
			if len(num) > 0 && isDigit(num[0]) {
				// 0*[0-9]{1,7};
				k := 0
				for k < len(num) && isDigit(num[k]) {
					k++
				}
				digits := num[:k]
				// The regex allows any number of leading zeros then 1..7 digits.
				sig := strings.TrimLeft(digits, "0")
				okLen := len(sig) <= 7 && k > 0
				if okLen && k < len(num) && num[k] == ';' {
					if digits == "0" {
						// empty("0") is true in PHP: the reference is dropped.
						i += 1 + 1 + k
						continue
					}
					v, _ := strconv.ParseInt(orZero(sig), 10, 64)
					if validUnicode(v) {
						p := sig
						for len(p) < 3 {
							p = "0" + p
						}
						b.WriteString("&#" + p + ";")
					} else {
						b.WriteString("&amp;#" + digits + ";")
					}
					i += 1 + 1 + k
					continue
				}
			} else if len(num) > 0 && (num[0] == 'x' || num[0] == 'X') {
				h := num[1:]
				k := 0
				for k < len(h) && isHex(h[k]) {
					k++
				}
				hex := h[:k]
				sig := strings.TrimLeft(hex, "0")
				if k > 0 && len(sig) <= 6 && k < len(h) && h[k] == ';' {
					if hex == "0" {
						i += 1 + 2 + k
						continue
					}
					v, _ := strconv.ParseInt(orZero(sig), 16, 64)
					if validUnicode(v) {
						b.WriteString("&#x" + sig + ";")
					} else {
						b.WriteString("&amp;#x" + hex + ";")
					}
					i += 1 + 2 + k
					continue
				}
			}
		}
		b.WriteString("&amp;")
	}
	return b.String()
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// quote styles of htmlspecialchars().
const (
	entNoQuotes = 0
	entCompat   = 2
	entQuotes   = 3
)

// htmlSpecialChars mirrors PHP htmlspecialchars($s, $flags, 'UTF-8',
// double_encode=false) for valid UTF-8 input.
func htmlSpecialChars(s string, quoteStyle int) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			if quoteStyle&entCompat != 0 {
				b.WriteString("&quot;")
			} else {
				b.WriteByte(c)
			}
		case '\'':
			if quoteStyle == entQuotes {
				b.WriteString("&#039;")
			} else {
				b.WriteByte(c)
			}
		case '&':
			if n := validEntityLen(s[i+1:]); n > 0 {
				b.WriteString(s[i : i+1+n])
				i += n
			} else {
				b.WriteString("&amp;")
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// validEntityLen returns the length (excluding '&') of a reference PHP's
// htmlspecialchars() keeps when double_encode is false, or 0.
func validEntityLen(rest string) int {
	if rest == "" {
		return 0
	}
	if rest[0] == '#' {
		j := 1
		hex := j < len(rest) && (rest[j] == 'x' || rest[j] == 'X')
		if hex {
			j++
		}
		start := j
		for j < len(rest) && ((hex && isHex(rest[j])) || (!hex && isDigit(rest[j]))) {
			j++
		}
		if j == start || j >= len(rest) || rest[j] != ';' {
			return 0
		}
		base := 10
		if hex {
			base = 16
		}
		digits := strings.TrimLeft(rest[start:j], "0")
		if len(digits) > 8 {
			return 0
		}
		v, err := strconv.ParseInt(orZero(digits), base, 64)
		if err != nil || v > 0x10FFFF {
			return 0
		}
		return j + 1
	}
	j := 0
	for j < len(rest) && (isAlpha(rest[j]) || isDigit(rest[j])) {
		j++
	}
	if j == 0 || j >= len(rest) || rest[j] != ';' {
		return 0
	}
	name := rest[:j]
	if name == "apos" || !allowedEntityNames[name] {
		// PHP checks against the HTML 4.01 table, which lacks &apos;.
		return 0
	}
	return j + 1
}

// wpSpecialChars mirrors _wp_specialchars($s, $quote_style) with the default
// double_encode=false.
func wpSpecialChars(s string, quoteStyle int) string {
	if s == "" || !strings.ContainsAny(s, "&<>\"'") {
		return s
	}
	s = ksesNormalizeEntities(s)
	return htmlSpecialChars(s, quoteStyle)
}

// EscHTML mirrors esc_html(): invalid UTF-8 becomes "", special characters
// are encoded and valid entities are not double-encoded.
func EscHTML(s string) string {
	return wpSpecialChars(checkInvalidUTF8(s), entQuotes)
}

// EscAttr mirrors esc_attr() (same transformation as esc_html()).
func EscAttr(s string) string {
	return wpSpecialChars(checkInvalidUTF8(s), entQuotes)
}

// EscJS mirrors esc_js(): HTML-escape double quotes and angle brackets,
// turn &#39;/&#x27; back into quotes, backslash-escape quotes and
// backslashes, drop CR and turn LF into the two characters `\n`.
func EscJS(s string) string {
	t := wpSpecialChars(checkInvalidUTF8(s), entCompat)
	t = stripslashes(t)
	t = replaceAposRefs(t)
	t = strings.ReplaceAll(t, "\r", "")
	return strings.ReplaceAll(addslashes(t), "\n", `\n`)
}

// replaceAposRefs implements preg_replace('/&#(x)?0*(?(1)27|39);?/i', "'").
func replaceAposRefs(s string) string {
	if !strings.Contains(s, "&#") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '&' && i+1 < len(s) && s[i+1] == '#' {
			j := i + 2
			hex := j < len(s) && (s[j]|0x20) == 'x'
			if hex {
				j++
			}
			// 0* is greedy but may give back a zero ("0*39" on "039").
			k := j
			for k < len(s) && s[k] == '0' {
				k++
			}
			want := "39"
			if hex {
				want = "27"
			}
			end := -1
			for z := k; z >= j; z-- {
				if strings.HasPrefix(s[z:], want) {
					end = z + 2
					break
				}
			}
			if end > 0 {
				if end < len(s) && s[end] == ';' {
					end++
				}
				b.WriteByte('\'')
				i = end - 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// EscURL mirrors esc_url() in the 'display' context.
func EscURL(s string) string { return escURL(s, "display") }

// EscURLRaw mirrors esc_url_raw() / sanitize_url() (the 'db' context).
func EscURLRaw(s string) string { return escURL(s, "db") }

func escURL(url, context string) string {
	if url == "" {
		return url
	}
	url = strings.ReplaceAll(phpLtrim(url), " ", "%20")
	url = filterURLChars(url)
	if url == "" {
		return url
	}
	if !hasPrefixFold(url, "mailto:") {
		url = deepReplace(url, []string{"%0d", "%0a", "%0D", "%0A"})
	}
	url = strings.ReplaceAll(url, ";//", "://")
	if !strings.Contains(url, ":") && url[0] != '/' && url[0] != '#' && url[0] != '?' && !looksLikePHPFile(url) {
		url = "http://" + url
	}
	if context == "display" {
		url = ksesNormalizeEntities(url)
		url = strings.ReplaceAll(url, "&amp;", "&#038;")
		url = strings.ReplaceAll(url, "'", "&#039;")
	}
	if strings.ContainsAny(url, "[]") {
		front := urlFront(url)
		endDirty := url
		if front != "" {
			endDirty = strings.ReplaceAll(url, front, "")
		}
		endClean := strings.NewReplacer("[", "%5B", "]", "%5D").Replace(endDirty)
		if endDirty != "" {
			url = strings.ReplaceAll(url, endDirty, endClean)
		}
	}
	if url[0] == '/' {
		return url
	}
	good := ksesBadProtocol(url, allowedProtocols)
	if asciiLower(good) != asciiLower(url) {
		return ""
	}
	return good
}

// filterURLChars keeps only the characters esc_url() allows:
// [a-z0-9-~+_.?#=!&;,/:%@$|*'()[]\x80-\xff] case-insensitively.
func filterURLChars(s string) string {
	ok := func(c byte) bool {
		if c >= 0x80 || isAlpha(c) || isDigit(c) {
			return true
		}
		return strings.IndexByte("-~+_.?#=!&;,/:%@$|*'()[]", c) >= 0
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if ok(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && asciiEqualFold(s[:len(p)], p)
}

// looksLikePHPFile is preg_match('/^[a-z0-9-]+?\.php/i').
func looksLikePHPFile(s string) bool {
	i := 0
	for i < len(s) && (isAlpha(s[i]) || isDigit(s[i]) || s[i] == '-') {
		if hasPrefixFold(s[i+1:], ".php") {
			return true
		}
		i++
	}
	return false
}

// deepReplace mirrors _deep_replace(): repeat until nothing is replaced.
func deepReplace(s string, search []string) string {
	for {
		changed := false
		for _, n := range search {
			if strings.Contains(s, n) {
				s = strings.ReplaceAll(s, n, "")
				changed = true
			}
		}
		if !changed {
			return s
		}
	}
}

// urlFront rebuilds scheme://user:pass@host:port the way esc_url() does from
// wp_parse_url() when brackets need encoding.
func urlFront(u string) string {
	front := ""
	rest := u
	if i := strings.Index(u, "://"); i > 0 && isSchemeName(u[:i]) {
		front = u[:i] + "://"
		rest = u[i+3:]
	} else if strings.HasPrefix(u, "//") {
		front = "//"
		rest = u[2:]
	} else {
		if u[0] == '/' {
			return "//"
		}
		return ""
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	return front + rest[:end]
}

func isSchemeName(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// ksesNoNull mirrors wp_kses_no_null() with slash_zero => remove.
func ksesNoNull(s string, keepSlashZero bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x08 || c == 0x0B || c == 0x0C || (c >= 0x0E && c <= 0x1F) {
			continue
		}
		b.WriteByte(c)
	}
	out := b.String()
	if keepSlashZero {
		return out
	}
	// preg_replace('/\\\\+0+/', '')
	if !strings.Contains(out, `\`) {
		return out
	}
	b.Reset()
	for i := 0; i < len(out); i++ {
		if out[i] == '\\' {
			j := i
			for j < len(out) && out[j] == '\\' {
				j++
			}
			k := j
			for k < len(out) && out[k] == '0' {
				k++
			}
			if k > j {
				i = k - 1
				continue
			}
			b.WriteString(out[i:j])
			i = j - 1
			continue
		}
		b.WriteByte(out[i])
	}
	return b.String()
}
