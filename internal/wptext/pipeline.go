package wptext

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Title renders a post title the way TEC's REST API does:
// trim(apply_filters('the_title', $title)), i.e. wptexturize, convert_chars,
// trim and capital_P_dangit (title variant).
func Title(raw string) string {
	s := Texturize(raw)
	s = ConvertChars(s)
	s = phpTrim(s)
	s = capitalPDangitTitle(s)
	return phpTrim(s)
}

// Content renders post content the way TEC's REST API does:
// trim(apply_filters('the_content', $content)) with WordPress's default
// filters in priority order:
//
//	8  WP_Embed::run_shortcode, WP_Embed::autoembed
//	9  do_blocks (which disables wpautop when the content has blocks)
//	10 wptexturize, wpautop, shortcode_unautop, prepend_attachment (no-op),
//	   wp_replace_insecure_home_url
//	11 capital_P_dangit, do_shortcode
//	12 wp_filter_content_tags
//	20 convert_smilies
func Content(raw string, rc *RenderContext) string { return phpTrim(TheContent(raw, rc)) }

// TheContent is apply_filters('the_content', $content) untrimmed, as WordPress core's REST routes
// (wp/v2) render content.rendered.
func TheContent(raw string, rc *RenderContext) string {
	if rc == nil {
		rc = NewRenderContext("")
	}
	s := runEmbedShortcode(raw, rc)
	s = autoembed(s, rc)
	s, blocks := doBlocks(s, rc)
	s = Texturize(s)
	if !blocks {
		s = Autop(s, true)
	}
	s = ShortcodeUnautop(s)
	s = replaceInsecureHomeURL(s, rc)
	s = CapitalPDangit(s)
	s = DoShortcode(s, rc)
	s = filterContentTags(s)
	return ConvertSmiliesWithSite(s, rc.siteURL())
}

// Excerpt renders a hand-written excerpt the way TEC's REST API does:
// trim(apply_filters('the_excerpt', $excerpt)): wptexturize,
// convert_smilies, convert_chars, wpautop, shortcode_unautop,
// wp_filter_content_tags, wp_replace_insecure_home_url. Image smilies use
// a root-relative URL; see ExcerptWithContext.
func Excerpt(raw string) string { return ExcerptWithContext(raw, nil) }

// ExcerptWithContext is Excerpt with the site URLs of rc.
func ExcerptWithContext(raw string, rc *RenderContext) string {
	return phpTrim(TheExcerpt(raw, rc))
}

// TheExcerpt is apply_filters('the_excerpt', $excerpt) untrimmed (wp/v2's excerpt.rendered).
func TheExcerpt(raw string, rc *RenderContext) string {
	s := Texturize(raw)
	s = ConvertSmiliesWithSite(s, rc.siteURL())
	s = ConvertChars(s)
	s = Autop(s, true)
	s = ShortcodeUnautop(s)
	s = filterContentTags(s)
	return replaceInsecureHomeURL(s, rc)
}

// jsonLDExcerptWords is the word limit observed for TEC JSON-LD
// descriptions built from post content (see reference-behaviour §18.1 row 6).
const jsonLDExcerptWords = 30

// JSONLDDescription builds TEC's JSON-LD "description":
// esc_js(tribe_events_get_the_excerpt()) — the hand-written excerpt if any,
// otherwise the content trimmed to 30 words, after removing non-excerpt
// blocks, anything that looks like a shortcode and HTML outside TEC's small
// allow-list, then wpautop().
func JSONLDDescription(excerpt, content string) string {
	hasExcerpt := !phpEmpty(excerpt)
	text := content
	if hasExcerpt {
		text = excerpt
	}
	text = excerptRemoveBlocks(text)
	text = removeBracketed(text)
	text = kses(text, tecExcerptAllowed)
	if !hasExcerpt {
		text = TrimWords(text, jsonLDExcerptWords, " [&hellip;]")
	}
	return EscJS(Autop(text, true))
}

// JSONLDText applies the escaping TEC uses for JSON-LD strings such as
// "name" (esc_js()). Pass the already rendered title (Title()).
func JSONLDText(s string) string { return EscJS(s) }

// removeBracketed is preg_replace('#\[.+\]#U', ”, $s).
func removeBracketed(s string) string {
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		end := -1
		for j := i + 1; j < len(s) && s[j] != '\n'; j++ {
			if j >= i+2 && s[j] == ']' {
				end = j + 1
				break
			}
		}
		if end < 0 {
			continue
		}
		b.WriteString(s[last:i])
		last = end
		i = end - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// TrimWords mirrors wp_trim_words($text, $num, $more) for English ('words'
// counting): tags are stripped, words split on [\n\r\t ].
func TrimWords(text string, num int, more string) string {
	text = StripAllTags(text, false)
	words := strings.FieldsFunc(text, func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\t' || r == ' '
	})
	switch {
	case num > 0:
	case num == 0:
		// preg_split with a limit of 1 keeps the text whole, and that one piece is dropped.
		if text == "" {
			return ""
		}
		return more
	case num >= -2:
		// A limit of 0 or -1 is no limit: every word is split off, and the last one dropped.
		if len(words) > 0 {
			words = words[:len(words)-1]
		}
		return strings.Join(words, " ") + more
	default:
		// Lower limits split nothing; the one piece (or none) is dropped.
		return more
	}
	if len(words) > num {
		return strings.Join(words[:num], " ") + more
	}
	return strings.Join(words, " ")
}

// Antispambot mirrors antispambot(): each character is randomly kept or
// written as a decimal character reference, and '@' is always encoded.
func Antispambot(email string) string {
	var b strings.Builder
	for i := 0; i < len(email); {
		r, size := utf8.DecodeRuneInString(email[i:])
		if r == utf8.RuneError && size <= 1 {
			// Invalid bytes are copied through unchanged.
			b.WriteByte(email[i])
			i++
			continue
		}
		if rand.IntN(2) == 0 {
			b.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		} else {
			b.WriteString(email[i : i+size])
		}
		i += size
	}
	return strings.ReplaceAll(b.String(), "@", "&#64;")
}

// GetTheTitle mirrors get_the_title() outside wp-admin: password-protected
// posts get a "Protected: " prefix and private posts a "Private: " prefix
// before the 'the_title' filters run. TEC's JSON-LD "name" is
// JSONLDText(GetTheTitle(...)); its REST "title" fields use Title() (no
// prefix).
func GetTheTitle(raw, status string, hasPassword bool) string {
	switch {
	case hasPassword:
		raw = "Protected: " + raw
	case status == "private":
		raw = "Private: " + raw
	}
	return Title(raw)
}

// TrimExcerpt is wp_trim_excerpt for a post without a hand-written excerpt: the content without
// shortcodes and non-excerpt blocks, rendered by the_content, then cut to 55 words with " [&hellip;]".
func TrimExcerpt(content string, rc *RenderContext) string {
	text := StripShortcodes(content)
	text = excerptRemoveBlocks(text)
	text = TheContent(text, rc)
	text = strings.ReplaceAll(text, "]]>", "]]&gt;")
	n := 55
	if rc != nil && rc.ExcerptLength != nil {
		n = *rc.ExcerptLength
	}
	return TrimWords(text, n, " [&hellip;]")
}
