package cost

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// escHTML is WordPress esc_html() on a UTF-8 blog: invalid UTF-8 gives "",
// entities are normalised by wp_kses_normalize_entities() and the result goes
// through htmlspecialchars(ENT_QUOTES, double_encode=false). Existing valid
// entities therefore survive ("&amp;" stays "&amp;"), a bare "&" becomes
// "&amp;", "'" becomes "&#039;".
func escHTML(s string) string {
	if s == "" || !utf8.ValidString(s) {
		return ""
	}
	if !strings.ContainsAny(s, "&<>\"'") {
		return s
	}
	return htmlSpecialChars(ksesNormalizeEntities(s))
}

var (
	ksesNamedRe = regexp.MustCompile(`&amp;([A-Za-z]{2,8}[0-9]{0,2});`)
	ksesDecRe   = regexp.MustCompile(`&amp;#(0*[0-9]{1,7});`)
	ksesHexRe   = regexp.MustCompile(`&amp;#[Xx](0*[0-9A-Fa-f]{1,6});`)
)

// ksesNormalizeEntities is wp_kses_normalize_entities($s, 'html').
func ksesNormalizeEntities(s string) string {
	s = strings.ReplaceAll(s, "&", "&amp;")
	s = ksesNamedRe.ReplaceAllStringFunc(s, func(m string) string {
		name := ksesNamedRe.FindStringSubmatch(m)[1]
		if _, ok := ksesEntityNames[name]; ok {
			return "&" + name + ";"
		}
		return "&amp;" + name + ";"
	})
	s = ksesDecRe.ReplaceAllStringFunc(s, func(m string) string {
		num := ksesDecRe.FindStringSubmatch(m)[1]
		if phpEmpty(num) {
			return ""
		}
		v, _ := strconv.ParseInt(num, 10, 64)
		if !validUnicode(v) {
			return "&amp;#" + num + ";"
		}
		d := strings.TrimLeft(num, "0")
		for len(d) < 3 {
			d = "0" + d
		}
		return "&#" + d + ";"
	})
	s = ksesHexRe.ReplaceAllStringFunc(s, func(m string) string {
		hex := ksesHexRe.FindStringSubmatch(m)[1]
		if phpEmpty(hex) {
			return ""
		}
		v, _ := strconv.ParseInt(hex, 16, 64)
		if !validUnicode(v) {
			return "&amp;#x" + hex + ";"
		}
		return "&#x" + strings.TrimLeft(hex, "0") + ";"
	})
	return s
}

// validUnicode is WordPress valid_unicode().
func validUnicode(i int64) bool {
	return i == 0x9 || i == 0xa || i == 0xd ||
		(i >= 0x20 && i <= 0xd7ff) ||
		(i >= 0xe000 && i <= 0xfffd) ||
		(i >= 0x10000 && i <= 0x10ffff)
}

// htmlSpecialChars is htmlspecialchars($s, ENT_QUOTES, 'UTF-8', false) with
// the HTML 4.01 entity table PHP checks named entities against.
func htmlSpecialChars(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			if n := entityLen(s[i+1:]); n > 0 {
				b.WriteString(s[i : i+1+n])
				i += n
				continue
			}
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#039;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// entityLen returns the length of a valid entity body following '&' (up to
// and including ';'), or 0 when PHP would encode the ampersand.
func entityLen(s string) int {
	if s == "" {
		return 0
	}
	if s[0] == '#' {
		i := 1
		base := 10
		if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
			base = 16
			i++
		}
		start := i
		for i < len(s) && isDigitBase(s[i], base) {
			i++
		}
		if i == start || i >= len(s) || s[i] != ';' {
			return 0
		}
		v, err := strconv.ParseInt(s[start:i], base, 64)
		if err != nil || v > 0x10FFFF { // ZEND_STRTOL saturates, then fails the range check
			return 0
		}
		return i + 1
	}
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != ';' {
		return 0
	}
	if _, ok := html401Entities[s[:i]]; !ok {
		return 0
	}
	return i + 1
}

func isDigitBase(c byte, base int) bool {
	if c >= '0' && c <= '9' {
		return true
	}
	return base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')
}

// html401Entities are the HTML 4.01 named character references.
var html401Entities = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, n := range strings.Fields(html401Names) {
		m[n] = struct{}{}
	}
	return m
}()

// ksesEntityNames is WordPress' $allowedentitynames: HTML 4.01 plus "apos".
var ksesEntityNames = func() map[string]struct{} {
	m := map[string]struct{}{"apos": {}}
	for n := range html401Entities {
		m[n] = struct{}{}
	}
	return m
}()

const html401Names = `nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg
plusmn acute micro para middot cedil ordm raquo iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil
Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash
Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute
ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute
ucirc uuml yacute thorn yuml quot amp lt gt OElig oelig Scaron scaron Yuml circ tilde ensp emsp thinsp zwnj
zwj lrm rlm ndash mdash lsquo rsquo sbquo ldquo rdquo bdquo dagger Dagger permil lsaquo rsaquo euro fnof
Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho Sigma Tau Upsilon
Phi Chi Psi Omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho
sigmaf sigma tau upsilon phi chi psi omega thetasym upsih piv bull hellip prime Prime oline frasl weierp
image real trade alefsym larr uarr rarr darr harr crarr lArr uArr rArr dArr hArr forall part exist empty
nabla isin notin ni prod sum minus lowast radic prop infin ang and or cap cup int sim cong asymp ne equiv le
ge sub sup nsub sube supe oplus otimes perp sdot lceil rceil lfloor rfloor lang rang loz spades clubs hearts
diams sup1 sup2 sup3 frac14 frac12 frac34 there4`
