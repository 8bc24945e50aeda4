package wptext

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// RemoveAccents mirrors remove_accents() for the en_US locale: NFC
// normalisation, then the transliteration table; non-UTF-8 input is treated
// as ISO-8859-1.
func RemoveAccents(s string) string {
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
	if utf8.ValidString(s) {
		s = composeLatin(s)
		return removeAccentsReplacer.Replace(s)
	}
	return removeAccentsLatin1(s)
}

var removeAccentsReplacer = func() *strings.Replacer {
	keys := make([]string, 0, len(removeAccentsTable))
	for k := range removeAccentsTable {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		args = append(args, k, removeAccentsTable[k])
	}
	return strings.NewReplacer(args...)
}()

// composeLatin performs canonical composition of Latin letters followed by
// combining diacritics (the part of Normalizer::normalize() that matters to
// remove_accents()).
func composeLatin(s string) string {
	hasMark := false
	for _, r := range s {
		if r >= 0x300 && r < 0x370 {
			hasMark = true
			break
		}
	}
	if !hasMark {
		return s
	}
	rs := []rune(s)
	var out []rune
	for i := 0; i < len(rs); {
		base := rs[i]
		j := i + 1
		for j < len(rs) && combiningClass[rs[j]] > 0 {
			j++
		}
		marks := append([]rune(nil), rs[i+1:j]...)
		sort.SliceStable(marks, func(a, b int) bool { return combiningClass[marks[a]] < combiningClass[marks[b]] })
		var left []rune
		var lastBlocked uint8
		for _, m := range marks {
			cc := combiningClass[m]
			if len(left) > 0 && lastBlocked >= cc {
				left = append(left, m)
				continue
			}
			if c, ok := nfcPairs[[2]rune{base, m}]; ok {
				base = c
				continue
			}
			left = append(left, m)
			lastBlocked = cc
		}
		out = append(out, base)
		out = append(out, left...)
		i = j
	}
	return string(out)
}

func removeAccentsLatin1(s string) string {
	const in = "\x80\x83\x8a\x8e\x9a\x9e\x9f\xa2\xa5\xb5\xc0\xc1\xc2\xc3\xc4\xc5\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd1\xd2\xd3\xd4\xd5\xd6\xd8\xd9\xda\xdb\xdc\xdd\xe0\xe1\xe2\xe3\xe4\xe5\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef\xf1\xf2\xf3\xf4\xf5\xf6\xf8\xf9\xfa\xfb\xfc\xfd\xff"
	const outc = "EfSZszYcYuAAAAAACEEEEIIIINOOOOOOUUUUYaaaaaaceeeeiiiinoooooouuuuyy"
	b := []byte(s)
	for i, c := range b {
		if k := strings.IndexByte(in, c); k >= 0 {
			b[i] = outc[k]
		}
	}
	return strings.NewReplacer("\x8c", "OE", "\x9c", "oe", "\xc6", "AE", "\xd0", "DH", "\xde", "TH",
		"\xdf", "ss", "\xe6", "ae", "\xf0", "dh", "\xfe", "th").Replace(string(b))
}

// SanitizeTitle mirrors sanitize_title($title) in the default 'save'
// context: remove_accents() followed by sanitize_title_with_dashes().
func SanitizeTitle(title string) string {
	return sanitizeTitleWithDashes(RemoveAccents(title), true)
}

// SanitizeTitleForQuery mirrors sanitize_title($title, ”, 'query').
func SanitizeTitleForQuery(title string) string {
	return sanitizeTitleWithDashes(title, false)
}

var (
	saveToHyphen = []string{"%c2%a0", "%e2%80%91", "%e2%80%93", "%e2%80%94"}
	saveEntities = []string{"&nbsp;", "&#8209;", "&#160;", "&ndash;", "&#8211;", "&mdash;", "&#8212;"}
	saveStrip    = []string{"%c2%ad", "%c2%a1", "%c2%bf", "%c2%ab", "%c2%bb", "%e2%80%b9", "%e2%80%ba",
		"%e2%80%98", "%e2%80%99", "%e2%80%9c", "%e2%80%9d", "%e2%80%9a", "%e2%80%9b", "%e2%80%9e", "%e2%80%9f",
		"%e2%80%a2", "%c2%a9", "%c2%ae", "%c2%b0", "%e2%80%a6", "%e2%84%a2", "%c2%b4", "%cb%8a", "%cc%81",
		"%cd%81", "%cc%80", "%cc%84", "%cc%8c", "%e2%80%8b", "%e2%80%8c", "%e2%80%8d", "%e2%80%8e", "%e2%80%8f",
		"%e2%80%aa", "%e2%80%ab", "%e2%80%ac", "%e2%80%ad", "%e2%80%ae", "%ef%bb%bf", "%ef%bf%bc"}
	saveSpaceToHyphen = []string{"%e2%80%80", "%e2%80%81", "%e2%80%82", "%e2%80%83", "%e2%80%84", "%e2%80%85",
		"%e2%80%86", "%e2%80%87", "%e2%80%88", "%e2%80%89", "%e2%80%8a", "%e2%80%a8", "%e2%80%a9", "%e2%80%af"}
	slugEntityRe  = regexp.MustCompile(`&.+?;`)
	slugInvalidRe = regexp.MustCompile(`[^%a-z0-9 _-]`)
	slugSpaceRe   = regexp.MustCompile(ws + `+`)
	slugDashesRe  = regexp.MustCompile(`-+`)
)

// sanitizeTitleWithDashes mirrors sanitize_title_with_dashes().
func sanitizeTitleWithDashes(title string, save bool) string {
	title = StripTags(title)
	title = preserveOctets(title)
	if utf8.ValidString(title) {
		title = mbStrtolower(title)
		title = utf8URIEncode(title, 200)
	}
	title = asciiLower(title)
	if save {
		for _, n := range saveToHyphen {
			title = strings.ReplaceAll(title, n, "-")
		}
		for _, n := range saveEntities {
			title = strings.ReplaceAll(title, n, "-")
		}
		title = strings.ReplaceAll(title, "/", "-")
		for _, n := range saveStrip {
			title = strings.ReplaceAll(title, n, "")
		}
		for _, n := range saveSpaceToHyphen {
			title = strings.ReplaceAll(title, n, "-")
		}
		title = strings.ReplaceAll(title, "%c3%97", "x")
	}
	title = slugEntityRe.ReplaceAllString(title, "")
	title = strings.ReplaceAll(title, ".", "-")
	title = slugInvalidRe.ReplaceAllString(title, "")
	title = slugSpaceRe.ReplaceAllString(title, "-")
	title = slugDashesRe.ReplaceAllString(title, "-")
	return strings.Trim(title, "-")
}

// preserveOctets keeps %XX escapes and drops every other '%'.
func preserveOctets(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				b.WriteString(s[i : i+3])
				i += 2
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mbStrtolower mirrors mb_strtolower(…, 'UTF-8') (full lower-case mapping).
func mbStrtolower(s string) string {
	if strings.ContainsRune(s, 'İ') {
		s = strings.ReplaceAll(s, "İ", "i\u0307")
	}
	return strings.ToLower(s)
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// utf8URIEncode mirrors utf8_uri_encode($s, $length) (ASCII kept as is,
// multi-byte characters percent-encoded in lower-case hex, total length
// capped without splitting a character).
func utf8URIEncode(s string, length int) string {
	var b strings.Builder
	unicodeLen := 0
	var values []byte
	numOctets := 1
	const hexd = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		v := s[i]
		if v < 128 {
			if length > 0 && unicodeLen+1 > length {
				break
			}
			b.WriteByte(v)
			unicodeLen++
			continue
		}
		if len(values) == 0 {
			switch {
			case v < 224:
				numOctets = 2
			case v < 240:
				numOctets = 3
			default:
				numOctets = 4
			}
		}
		values = append(values, v)
		if length > 0 && unicodeLen+numOctets*3 > length {
			break
		}
		if len(values) == numOctets {
			for _, x := range values {
				b.WriteByte('%')
				b.WriteByte(hexd[x>>4])
				b.WriteByte(hexd[x&15])
			}
			unicodeLen += numOctets * 3
			values = values[:0]
			numOctets = 1
		}
	}
	return b.String()
}
