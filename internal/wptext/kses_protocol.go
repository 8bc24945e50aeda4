package wptext

import "strings"

// URL protocol filtering of KSES (WordPress 6.9 wp-includes/kses.php):
// wp_kses_hair() passes the value of every attribute named in
// wp_kses_uri_attributes() through wp_kses_bad_protocol() with
// wp_allowed_protocols(); safecss_filter_attr() and esc_url() use it too.

// allowedProtocols is wp_allowed_protocols().
var allowedProtocols = []string{"http", "https", "ftp", "ftps", "mailto", "news", "irc", "irc6", "ircs",
	"gopher", "nntp", "feed", "telnet", "mms", "rtsp", "sms", "svn", "tel", "fax", "xmpp", "webcal", "urn"}

// uriAttributes is wp_kses_uri_attributes(): the attributes whose values
// wp_kses_hair() runs through wp_kses_bad_protocol().
var uriAttributes = []string{"action", "archive", "background", "cite", "classid", "codebase", "data",
	"formaction", "href", "icon", "longdesc", "manifest", "poster", "profile", "src", "usemap", "xmlns"}

func inList(s string, l []string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// isURIAttribute reports in_array(strtolower($name), wp_kses_uri_attributes(), true).
func isURIAttribute(name string) bool { return inList(asciiLower(name), uriAttributes) }

// ksesBadProtocol mirrors wp_kses_bad_protocol(): it strips every protocol
// that is not in protocols from the start of content, ignoring whitespace
// and case and understanding numeric character references, until nothing
// changes. Values starting with "https://" or "http://" are returned as they
// are (when those protocols are allowed); if six passes do not settle the
// value, the result is "".
func ksesBadProtocol(content string, protocols []string) string {
	content = ksesNoNull(content, false)
	if (strings.HasPrefix(content, "https://") && inList("https", protocols)) ||
		(strings.HasPrefix(content, "http://") && inList("http", protocols)) {
		return content
	}
	// do { … } while ( $original_content !== $content && ++$iterations < 6 );
	iterations := 0
	var original string
	for {
		original = content
		content = ksesBadProtocolOnce(content, protocols, 1)
		if original == content {
			break
		}
		iterations++
		if iterations >= 6 {
			break
		}
	}
	if original != content {
		return ""
	}
	return content
}

// ksesBadProtocolOnce mirrors wp_kses_bad_protocol_once(): one pass that
// replaces the scheme before the first colon (":", "&#58;", "&#x3a;" or
// "&colon;") with itself if it is allowed and with nothing otherwise.
// "feed:" may wrap up to two further schemes, which are checked as well.
func ksesBadProtocolOnce(content string, protocols []string, count int) string {
	content = terminateColonRefs(content)
	before, after, found := splitFirstColon(content)
	if found && !strings.Contains(before, "/?") {
		content = phpTrim(after)
		protocol := ksesBadProtocolOnce2(before, protocols)
		if protocol == "feed:" {
			if count > 2 {
				return ""
			}
			count++
			content = ksesBadProtocolOnce(content, protocols, count)
			if phpEmpty(content) { // empty() is also true for "0"
				return content
			}
		}
		content = protocol + content
	}
	return content
}

// terminateColonRefs is preg_replace('/(&#0*58(?![;0-9])|&#x0*3a(?![;a-f0-9]))/i', '$1;').
func terminateColonRefs(s string) string {
	if !strings.Contains(s, "&#") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] != '&' || i+1 >= len(s) || s[i+1] != '#' {
			continue
		}
		j := i + 2
		hex := j < len(s) && (s[j]|0x20) == 'x'
		if hex {
			j++
		}
		k := j
		for k < len(s) && s[k] == '0' {
			k++
		}
		want := "58"
		if hex {
			want = "3a"
		}
		// Backtracking 0* cannot help: neither "58" nor "3a" starts with 0.
		if len(s) >= k+2 && asciiEqualFold(s[k:k+2], want) {
			end := k + 2
			next := byte(0)
			if end < len(s) {
				next = s[end]
			}
			bad := next == ';' || isDigit(next) || (hex && isHex(next))
			if !bad {
				b.WriteString(s[i+1 : end])
				b.WriteByte(';')
				i = end - 1
			}
		}
	}
	return b.String()
}

// splitFirstColon is preg_split('/:|&#0*58;|&#x0*3a;|&colon;/i', $s, 2).
func splitFirstColon(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			return s[:i], s[i+1:], true
		case '&':
			rest := s[i+1:]
			if hasPrefixFold(rest, "colon;") {
				return s[:i], s[i+7:], true
			}
			if strings.HasPrefix(rest, "#") {
				j := 1
				hex := j < len(rest) && (rest[j]|0x20) == 'x'
				if hex {
					j++
				}
				for j < len(rest) && rest[j] == '0' {
					j++
				}
				want := "58;"
				if hex {
					want = "3a;"
				}
				if len(rest) >= j+3 && asciiEqualFold(rest[j:j+3], want) {
					return s[:i], s[i+1+j+3:], true
				}
			}
		}
	}
	return s, "", false
}

// ksesBadProtocolOnce2 mirrors wp_kses_bad_protocol_once2(): the scheme is
// decoded, stripped of whitespace and control characters and lower-cased;
// it returns "scheme:" when that is an allowed protocol and "" otherwise.
func ksesBadProtocolOnce2(scheme string, protocols []string) string {
	scheme = ksesDecodeEntities(scheme)
	// preg_replace('/\s/', '', $scheme), byte-wise (no /u modifier).
	var b strings.Builder
	for i := 0; i < len(scheme); i++ {
		if !pcreSpace(scheme[i]) {
			b.WriteByte(scheme[i])
		}
	}
	scheme = ksesNoNull(b.String(), false)
	scheme = asciiLower(scheme)
	for _, p := range protocols {
		if asciiLower(p) == scheme {
			return scheme + ":"
		}
	}
	return ""
}

// ksesDecodeEntities mirrors wp_kses_decode_entities(): first every decimal
// reference /&#([0-9]+);/ becomes the byte chr(n), then, in a second pass
// over that result, every hexadecimal one /&#[Xx]([0-9A-Fa-f]+);/ does
// (so "&#38;#x6a;" decodes to "j"). chr() keeps the low byte. PHP throws a
// TypeError for numbers beyond the integer range; here they wrap as well
// (wp_kses_normalize_entities() has already turned such references into
// "&amp;#…" in the KSES paths).
func ksesDecodeEntities(s string) string {
	if !strings.Contains(s, "&#") {
		return s
	}
	return decodeNumericRefs(decodeNumericRefs(s, false), true)
}

func decodeNumericRefs(s string, hex bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '&' && i+2 < len(s) && s[i+1] == '#' {
			j := i + 2
			if hex {
				if s[j]|0x20 != 'x' {
					b.WriteByte(s[i])
					continue
				}
				j++
			}
			k := j
			for k < len(s) && ((hex && isHex(s[k])) || (!hex && isDigit(s[k]))) {
				k++
			}
			if k > j && k < len(s) && s[k] == ';' {
				base := 10
				if hex {
					base = 16
				}
				b.WriteByte(byte(parseIntWrap(s[j:k], base)))
				i = k
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseIntWrap parses digits in base, keeping the low 32 bits (enough for
// chr(), which keeps the low 8).
func parseIntWrap(d string, base int) int64 {
	var v int64
	for i := 0; i < len(d); i++ {
		c := d[i]
		var n int64
		switch {
		case isDigit(c):
			n = int64(c - '0')
		default:
			n = int64(c|0x20-'a') + 10
		}
		v = (v*int64(base) + n) & 0xFFFFFFFF
	}
	return v
}
