package cost

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Slugs: WordPress sanitize_title() in "save" context (remove_accents() then
// sanitize_title_with_dashes()), which TEC uses to index non-numeric costs and
// which cost_details.values shows for them ("Pay what you want" →
// "pay-what-you-want"). Ported from WordPress 6.9 formatting.php for the en_US
// locale.

var (
	octetRe     = regexp.MustCompile(`%([a-fA-F0-9][a-fA-F0-9])`)
	octetBackRe = regexp.MustCompile(`---([a-fA-F0-9][a-fA-F0-9])---`)
	entityRe    = regexp.MustCompile(`&.+?;`)
	dashRunRe   = regexp.MustCompile(`-+`)
	spaceRunRe  = regexp.MustCompile(`[\t\n\v\f\r ]+`)
)

// slugSaveReplacers hold the "save" context substitutions, applied in
// WordPress' order (each str_replace() call is one replacer pass).
var slugSaveReplacers = []*strings.Replacer{
	strings.NewReplacer("%c2%a0", "-", "%e2%80%93", "-", "%e2%80%94", "-"),
	strings.NewReplacer("&nbsp;", "-", "&#160;", "-", "&ndash;", "-", "&#8211;", "-", "&mdash;", "-", "&#8212;", "-"),
	strings.NewReplacer("/", "-"),
	strings.NewReplacer(
		"%c2%ad", "", "%c2%a1", "", "%c2%bf", "", "%c2%ab", "", "%c2%bb", "", "%e2%80%b9", "", "%e2%80%ba", "",
		"%e2%80%98", "", "%e2%80%99", "", "%e2%80%9c", "", "%e2%80%9d", "", "%e2%80%9a", "", "%e2%80%9b", "",
		"%e2%80%9e", "", "%e2%80%9f", "", "%e2%80%a2", "", "%c2%a9", "", "%c2%ae", "", "%c2%b0", "",
		"%e2%80%a6", "", "%e2%84%a2", "", "%c2%b4", "", "%cb%8a", "", "%cc%81", "", "%cd%81", "",
		"%cc%80", "", "%cc%84", "", "%cc%8c", "", "%e2%80%8b", "", "%e2%80%8c", "", "%e2%80%8d", "",
		"%e2%80%8e", "", "%e2%80%8f", "", "%e2%80%aa", "", "%e2%80%ab", "", "%e2%80%ac", "", "%e2%80%ad", "",
		"%e2%80%ae", "", "%ef%bb%bf", "", "%ef%bf%bc", "",
	),
	strings.NewReplacer(
		"%e2%80%80", "-", "%e2%80%81", "-", "%e2%80%82", "-", "%e2%80%83", "-", "%e2%80%84", "-",
		"%e2%80%85", "-", "%e2%80%86", "-", "%e2%80%87", "-", "%e2%80%88", "-", "%e2%80%89", "-",
		"%e2%80%8a", "-", "%e2%80%a8", "-", "%e2%80%a9", "-", "%e2%80%af", "-",
	),
	strings.NewReplacer("%c3%97", "x"),
}

// sanitizeTitle is sanitize_title($s) with its default filter.
func sanitizeTitle(s string) string {
	return sanitizeTitleWithDashes(removeAccents(s))
}

func sanitizeTitleWithDashes(s string) string {
	s = stripTags(s)
	s = octetRe.ReplaceAllString(s, "---${1}---") // keep %XX octets, drop other %
	s = strings.ReplaceAll(s, "%", "")
	s = octetBackRe.ReplaceAllString(s, "%${1}")
	if seemsUTF8(s) {
		s = utf8URIEncode(mbStrtolower(s), 200)
	}
	s = asciiLower(s)
	for _, r := range slugSaveReplacers {
		s = r.Replace(s)
	}
	s = entityRe.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, ".", "-")
	s = keepSlugBytes(s)
	s = spaceRunRe.ReplaceAllString(s, "-")
	s = dashRunRe.ReplaceAllString(s, "-")
	return strings.Trim(s, "-")
}

// keepSlugBytes drops every byte outside [%a-z0-9 _-] (the slug's last filter).
func keepSlugBytes(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c == ' ' || c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			b = append(b, c)
		}
	}
	return string(b)
}

// asciiLower is PHP 8 strtolower(): ASCII letters only.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// mbStrtolower lowercases runes; byte sequences Go cannot decode (which
// seems_utf8() tolerates) become '?', as mbstring's illegal-character
// substitution does.
func mbStrtolower(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			b.WriteByte('?')
			i++
			continue
		}
		b.WriteRune(unicode.ToLower(r))
		i += n
	}
	return b.String()
}

// seemsUTF8 is WordPress seems_utf8(): lead/continuation byte shapes only,
// five- and six-byte forms included.
func seemsUTF8(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		var n int
		switch {
		case c < 0x80:
			n = 0
		case c&0xE0 == 0xC0:
			n = 1
		case c&0xF0 == 0xE0:
			n = 2
		case c&0xF8 == 0xF0:
			n = 3
		case c&0xFC == 0xF8:
			n = 4
		case c&0xFE == 0xFC:
			n = 5
		default:
			return false
		}
		for j := 0; j < n; j++ {
			i++
			if i == len(s) || s[i]&0xC0 != 0x80 {
				return false
			}
		}
	}
	return true
}

// utf8URIEncode is WordPress utf8_uri_encode($s, $length): non-ASCII bytes
// become lowercase %xx, and output stops before exceeding length bytes
// (a multibyte character counts as three per byte and is never split).
func utf8URIEncode(s string, length int) string {
	var out strings.Builder
	var values []byte
	octets, ulen := 1, 0
	for i := 0; i < len(s); i++ {
		v := s[i]
		if v < 128 {
			if length > 0 && ulen+1 > length {
				break
			}
			out.WriteByte(v)
			ulen++
			continue
		}
		if len(values) == 0 {
			switch {
			case v < 224:
				octets = 2
			case v < 240:
				octets = 3
			default:
				octets = 4
			}
		}
		values = append(values, v)
		if length > 0 && ulen+octets*3 > length {
			break
		}
		if len(values) == octets {
			for _, x := range values {
				out.WriteString("%" + hexByte(x))
			}
			ulen += octets * 3
			values = values[:0]
			octets = 1
		}
	}
	return out.String()
}

func hexByte(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// removeAccents is WordPress remove_accents() for a non-German, non-Danish,
// non-Catalan, non-Serbian locale. The Unicode NFC normalisation WordPress
// does first (when intl is loaded) is skipped: Go's standard library has no
// normaliser, and the combining marks that matter are stripped by the slug
// rules anyway.
func removeAccents(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	if !seemsUTF8(s) {
		return removeAccentsLatin1(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			b.WriteByte(s[i])
			i++
			continue
		}
		if rep, ok := accentMap[r]; ok {
			b.WriteString(rep)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// latin1In/latin1Out and latin1Double are remove_accents()' ISO-8859-1 branch.
const (
	latin1In  = "\x80\x83\x8a\x8e\x9a\x9e\x9f\xa2\xa5\xb5\xc0\xc1\xc2\xc3\xc4\xc5\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd1\xd2\xd3\xd4\xd5\xd6\xd8\xd9\xda\xdb\xdc\xdd\xe0\xe1\xe2\xe3\xe4\xe5\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef\xf1\xf2\xf3\xf4\xf5\xf6\xf8\xf9\xfa\xfb\xfc\xfd\xff"
	latin1Out = "EfSZszYcYuAAAAAACEEEEIIIINOOOOOOUUUUYaaaaaaceeeeiiiinoooooouuuuyy"
)

var latin1Double = map[byte]string{
	0x8c: "OE", 0x9c: "oe", 0xc6: "AE", 0xd0: "DH", 0xde: "TH", 0xdf: "ss", 0xe6: "ae", 0xf0: "dh", 0xfe: "th",
}

func removeAccentsLatin1(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if j := strings.IndexByte(latin1In, c); j >= 0 {
			b.WriteByte(latin1Out[j])
		} else if d, ok := latin1Double[c]; ok {
			b.WriteString(d)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// accentMap is remove_accents()' UTF-8 table (Latin-1 Supplement, Latin
// Extended-A/B, currency signs, Vietnamese and Pinyin vowels).
var accentMap = map[rune]string{
	'ª': "a", 'º': "o", 'À': "A", 'Á': "A", 'Â': "A", 'Ã': "A", 'Ä': "A", 'Å': "A", 'Æ': "AE", 'Ç': "C",
	'È': "E", 'É': "E", 'Ê': "E", 'Ë': "E", 'Ì': "I", 'Í': "I", 'Î': "I", 'Ï': "I", 'Ð': "D", 'Ñ': "N",
	'Ò': "O", 'Ó': "O", 'Ô': "O", 'Õ': "O", 'Ö': "O", 'Ù': "U", 'Ú': "U", 'Û': "U", 'Ü': "U", 'Ý': "Y",
	'Þ': "TH", 'ß': "s", 'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'æ': "ae", 'ç': "c",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ð': "d", 'ñ': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ù': "u", 'ú': "u", 'û': "u", 'ü': "u",
	'ý': "y", 'þ': "th", 'ÿ': "y", 'Ø': "O", 'Ā': "A", 'ā': "a", 'Ă': "A", 'ă': "a", 'Ą': "A", 'ą': "a",
	'Ć': "C", 'ć': "c", 'Ĉ': "C", 'ĉ': "c", 'Ċ': "C", 'ċ': "c", 'Č': "C", 'č': "c", 'Ď': "D", 'ď': "d",
	'Đ': "D", 'đ': "d", 'Ē': "E", 'ē': "e", 'Ĕ': "E", 'ĕ': "e", 'Ė': "E", 'ė': "e", 'Ę': "E", 'ę': "e",
	'Ě': "E", 'ě': "e", 'Ĝ': "G", 'ĝ': "g", 'Ğ': "G", 'ğ': "g", 'Ġ': "G", 'ġ': "g", 'Ģ': "G", 'ģ': "g",
	'Ĥ': "H", 'ĥ': "h", 'Ħ': "H", 'ħ': "h", 'Ĩ': "I", 'ĩ': "i", 'Ī': "I", 'ī': "i", 'Ĭ': "I", 'ĭ': "i",
	'Į': "I", 'į': "i", 'İ': "I", 'ı': "i", 'Ĳ': "IJ", 'ĳ': "ij", 'Ĵ': "J", 'ĵ': "j", 'Ķ': "K", 'ķ': "k",
	'ĸ': "k", 'Ĺ': "L", 'ĺ': "l", 'Ļ': "L", 'ļ': "l", 'Ľ': "L", 'ľ': "l", 'Ŀ': "L", 'ŀ': "l", 'Ł': "L",
	'ł': "l", 'Ń': "N", 'ń': "n", 'Ņ': "N", 'ņ': "n", 'Ň': "N", 'ň': "n", 'ŉ': "n", 'Ŋ': "N", 'ŋ': "n",
	'Ō': "O", 'ō': "o", 'Ŏ': "O", 'ŏ': "o", 'Ő': "O", 'ő': "o", 'Œ': "OE", 'œ': "oe", 'Ŕ': "R", 'ŕ': "r",
	'Ŗ': "R", 'ŗ': "r", 'Ř': "R", 'ř': "r", 'Ś': "S", 'ś': "s", 'Ŝ': "S", 'ŝ': "s", 'Ş': "S", 'ş': "s",
	'Š': "S", 'š': "s", 'Ţ': "T", 'ţ': "t", 'Ť': "T", 'ť': "t", 'Ŧ': "T", 'ŧ': "t", 'Ũ': "U", 'ũ': "u",
	'Ū': "U", 'ū': "u", 'Ŭ': "U", 'ŭ': "u", 'Ů': "U", 'ů': "u", 'Ű': "U", 'ű': "u", 'Ų': "U", 'ų': "u",
	'Ŵ': "W", 'ŵ': "w", 'Ŷ': "Y", 'ŷ': "y", 'Ÿ': "Y", 'Ź': "Z", 'ź': "z", 'Ż': "Z", 'ż': "z", 'Ž': "Z",
	'ž': "z", 'ſ': "s", 'Ə': "E", 'ǝ': "e", 'Ș': "S", 'ș': "s", 'Ț': "T", 'ț': "t", '€': "E", '£': "", 'Ơ': "O",
	'ơ': "o", 'Ư': "U", 'ư': "u", 'Ầ': "A", 'ầ': "a", 'Ằ': "A", 'ằ': "a", 'Ề': "E", 'ề': "e", 'Ồ': "O",
	'ồ': "o", 'Ờ': "O", 'ờ': "o", 'Ừ': "U", 'ừ': "u", 'Ỳ': "Y", 'ỳ': "y", 'Ả': "A", 'ả': "a", 'Ẩ': "A",
	'ẩ': "a", 'Ẳ': "A", 'ẳ': "a", 'Ẻ': "E", 'ẻ': "e", 'Ể': "E", 'ể': "e", 'Ỉ': "I", 'ỉ': "i", 'Ỏ': "O",
	'ỏ': "o", 'Ổ': "O", 'ổ': "o", 'Ở': "O", 'ở': "o", 'Ủ': "U", 'ủ': "u", 'Ử': "U", 'ử': "u", 'Ỷ': "Y",
	'ỷ': "y", 'Ẫ': "A", 'ẫ': "a", 'Ẵ': "A", 'ẵ': "a", 'Ẽ': "E", 'ẽ': "e", 'Ễ': "E", 'ễ': "e", 'Ỗ': "O",
	'ỗ': "o", 'Ỡ': "O", 'ỡ': "o", 'Ữ': "U", 'ữ': "u", 'Ỹ': "Y", 'ỹ': "y", 'Ấ': "A", 'ấ': "a", 'Ắ': "A",
	'ắ': "a", 'Ế': "E", 'ế': "e", 'Ố': "O", 'ố': "o", 'Ớ': "O", 'ớ': "o", 'Ứ': "U", 'ứ': "u", 'Ạ': "A",
	'ạ': "a", 'Ậ': "A", 'ậ': "a", 'Ặ': "A", 'ặ': "a", 'Ẹ': "E", 'ẹ': "e", 'Ệ': "E", 'ệ': "e", 'Ị': "I",
	'ị': "i", 'Ọ': "O", 'ọ': "o", 'Ộ': "O", 'ộ': "o", 'Ợ': "O", 'ợ': "o", 'Ụ': "U", 'ụ': "u", 'Ự': "U",
	'ự': "u", 'Ỵ': "Y", 'ỵ': "y", 'ɑ': "a", 'Ǖ': "U", 'ǖ': "u", 'Ǘ': "U", 'ǘ': "u", 'Ǎ': "A", 'ǎ': "a",
	'Ǐ': "I", 'ǐ': "i", 'Ǒ': "O", 'ǒ': "o", 'Ǔ': "U", 'ǔ': "u", 'Ǚ': "U", 'ǚ': "u", 'Ǜ': "U", 'ǜ': "u",
}
