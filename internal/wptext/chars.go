package wptext

import (
	"sort"
	"strings"
)

// ConvertChars mirrors convert_chars(): preg_replace('/&([^#])(?![a-z1-4]{1,8};)/i', '&#038;$1').
func ConvertChars(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		if s[i] == '&' && i+1 < len(s) && s[i+1] != '#' && !entityNameRun(s[i+2:]) {
			b.WriteString("&#038;")
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// CapitalPDangit mirrors capital_P_dangit() as run on 'the_content'
// (only after a space, quote, '>' or '(').
func CapitalPDangit(s string) string {
	if !strings.Contains(s, "Wordpress") {
		return s
	}
	return capitalPReplacer.Replace(s)
}

var capitalPReplacer = strings.NewReplacer(
	" Wordpress", " WordPress", "&#8216;Wordpress", "&#8216;WordPress", "&#8220;Wordpress", "&#8220;WordPress",
	">Wordpress", ">WordPress", "(Wordpress", "(WordPress",
)

// capitalPDangitTitle is capital_P_dangit() on 'the_title': a plain replace.
func capitalPDangitTitle(s string) string {
	return strings.ReplaceAll(s, "Wordpress", "WordPress")
}

// smilies is smilies_init()'s $wpsmiliestrans, sorted like krsort().
var smilies = func() [][2]string {
	m := map[string]string{
		":mrgreen:": "mrgreen.png", ":neutral:": "\U0001F610", ":twisted:": "\U0001F608", ":arrow:": "\u27A1",
		":shock:": "\U0001F62F", ":smile:": "\U0001F642", ":???:": "\U0001F615", ":cool:": "\U0001F60E",
		":evil:": "\U0001F47F", ":grin:": "\U0001F600", ":idea:": "\U0001F4A1", ":oops:": "\U0001F633",
		":razz:": "\U0001F61B", ":roll:": "\U0001F644", ":wink:": "\U0001F609", ":cry:": "\U0001F625",
		":eek:": "\U0001F62E", ":lol:": "\U0001F606", ":mad:": "\U0001F621", ":sad:": "\U0001F641",
		"8-)": "\U0001F60E", "8-O": "\U0001F62F", ":-(": "\U0001F641", ":-)": "\U0001F642", ":-?": "\U0001F615",
		":-D": "\U0001F600", ":-P": "\U0001F61B", ":-o": "\U0001F62E", ":-x": "\U0001F621", ":-|": "\U0001F610",
		";-)": "\U0001F609", "8O": "\U0001F62F", ":(": "\U0001F641", ":)": "\U0001F642", ":?": "\U0001F615",
		":D": "\U0001F600", ":P": "\U0001F61B", ":o": "\U0001F62E", ":x": "\U0001F621", ":|": "\U0001F610",
		";)": "\U0001F609", ":!:": "\u2757", ":?:": "\u2753",
	}
	out := make([][2]string, 0, len(m))
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] > out[j][0] })
	return out
}()

// ConvertSmilies mirrors convert_smilies() with 'use_smilies' on. Image
// smilies (only :mrgreen: in core) point at /wp-includes/images/smilies/
// relative to the site root; use ConvertSmiliesWithSite for absolute URLs.
func ConvertSmilies(s string) string { return ConvertSmiliesWithSite(s, "") }

// ConvertSmiliesWithSite is ConvertSmilies with includes_url() built from
// siteURL.
func ConvertSmiliesWithSite(text, siteURL string) string {
	if !strings.ContainsAny(text, ":;8") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	ignore := ""
	for _, part := range splitTagsLazy(text) {
		if ignore == "" {
			if name := ignoredSmileyBlock(part); name != "" {
				ignore = name
			}
		}
		if ignore == "" && part != "" && part[0] != '<' {
			part = translateSmilies(part, siteURL)
		}
		if ignore != "" && part == "</"+ignore+">" {
			ignore = ""
		}
		b.WriteString(part)
	}
	return b.String()
}

// splitTagsLazy is preg_split('/(<[^>]*>)/U', …, PREG_SPLIT_DELIM_CAPTURE).
func splitTagsLazy(s string) []string {
	var out []string
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		k := strings.IndexByte(s[i+1:], '>')
		if k < 0 {
			break
		}
		out = append(out, s[last:i], s[i:i+1+k+1])
		last = i + 1 + k + 1
		i = last - 1
	}
	return append(out, s[last:])
}

// ignoredSmileyBlock is preg_match('/^<(code|pre|style|script|textarea)[^>]*>/').
func ignoredSmileyBlock(part string) string {
	if !strings.HasPrefix(part, "<") {
		return ""
	}
	for _, n := range []string{"code", "pre", "style", "script", "textarea"} {
		if strings.HasPrefix(part[1:], n) {
			rest := part[1+len(n):]
			if k := strings.IndexByte(rest, '>'); k >= 0 {
				return n
			}
		}
	}
	return ""
}

// translateSmilies applies $wp_smiliessearch: a smiley preceded by
// start/whitespace and followed by whitespace/end (multiline mode).
func translateSmilies(s, siteURL string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != ':' && c != ';' && c != '8' {
			continue
		}
		if !(i == 0 || s[i-1] == '\n' || spaceBefore(s, i)) {
			continue
		}
		for _, sm := range smilies {
			code := sm[0]
			if !strings.HasPrefix(s[i:], code) {
				continue
			}
			p := i + len(code)
			if !(p == len(s) || s[p] == '\n' || spaceLenAt(s, p) > 0) {
				continue
			}
			b.WriteString(s[last:i])
			b.WriteString(translateSmiley(code, sm[1], siteURL))
			last = p
			i = p - 1
			break
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// translateSmiley mirrors translate_smiley(): emoji are returned as text,
// image smilies become an <img>.
func translateSmiley(code, img, siteURL string) string {
	dot := strings.LastIndexByte(img, '.')
	if dot < 0 {
		return img
	}
	switch asciiLower(img[dot+1:]) {
	case "jpg", "jpeg", "jpe", "gif", "png", "webp":
	default:
		return img
	}
	src := siteURL + "/wp-includes/images/smilies/" + img
	return `<img src="` + EscURL(src) + `" alt="` + EscAttr(code) + `" class="wp-smiley" style="height: 1em; max-height: 1em;" />`
}

// replaceInsecureHomeURL mirrors wp_replace_insecure_home_url(): only when
// the site moved to https and migration is flagged.
func replaceInsecureHomeURL(s string, rc *RenderContext) string {
	if rc == nil || !rc.HTTPSMigrationRequired || !strings.HasPrefix(rc.HomeURL, "https://") {
		return s
	}
	https := strings.TrimPrefix(rc.HomeURL, "https://")
	escaped := strings.ReplaceAll("http://"+https, "/", `\/`)
	return strings.NewReplacer("http://"+https, "https://"+https,
		escaped, strings.ReplaceAll("https://"+https, "/", `\/`)).Replace(s)
}

// ConvertInvalidEntities is convert_invalid_entities (content_save_pre and excerpt_save_pre, for
// every user): the numeric references &#128; to &#159;, which name C1 controls, become the
// characters Windows-1252 puts there (five unassigned ones are dropped). strtr matches the exact
// spellings only: "&#0128;" or "&#x80;" are left alone.
func ConvertInvalidEntities(s string) string {
	if !strings.Contains(s, "&#1") {
		return s
	}
	return winUniReplacer.Replace(s)
}

var winUniReplacer = strings.NewReplacer(
	"&#128;", "&#8364;", "&#129;", "", "&#130;", "&#8218;", "&#131;", "&#402;", "&#132;", "&#8222;",
	"&#133;", "&#8230;", "&#134;", "&#8224;", "&#135;", "&#8225;", "&#136;", "&#710;", "&#137;", "&#8240;",
	"&#138;", "&#352;", "&#139;", "&#8249;", "&#140;", "&#338;", "&#141;", "", "&#142;", "&#381;",
	"&#143;", "", "&#144;", "", "&#145;", "&#8216;", "&#146;", "&#8217;", "&#147;", "&#8220;",
	"&#148;", "&#8221;", "&#149;", "&#8226;", "&#150;", "&#8211;", "&#151;", "&#8212;", "&#152;", "&#732;",
	"&#153;", "&#8482;", "&#154;", "&#353;", "&#155;", "&#8250;", "&#156;", "&#339;", "&#157;", "",
	"&#158;", "&#382;", "&#159;", "&#376;",
)
