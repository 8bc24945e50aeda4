package wptext

import "sync"

// allowedTags is WordPress' global $allowedtags: what wp_kses keeps in its default context (the
// one wp_filter_kses uses for filters such as pre_term_name).
var allowedTags = ksesAllowed{
	"a":          ksesAttrs("href", "title"),
	"abbr":       ksesAttrs("title"),
	"acronym":    ksesAttrs("title"),
	"b":          {},
	"blockquote": ksesAttrs("cite"),
	"cite":       {},
	"code":       {},
	"del":        ksesAttrs("datetime"),
	"em":         {},
	"i":          {},
	"q":          ksesAttrs("cite"),
	"s":          {},
	"strike":     {},
	"strong":     {},
}

// termDescriptionTags is wp_kses_allowed_html('pre_term_description'): $allowedtags plus rel on links.
var termDescriptionTags = func() ksesAllowed {
	a := ksesAllowed{}
	for tag, attrs := range allowedTags {
		m := map[string]ksesAttrSpec{}
		for k, v := range attrs {
			m[k] = v
		}
		a[tag] = m
	}
	a["a"]["rel"] = ksesAttrSpec{}
	return a
}()

// FilterKses is wp_filter_kses as WordPress runs it on pre_term_name (and the other default-context
// filters): wp_kses with $allowedtags. WordPress applies it whatever the user's capabilities.
func FilterKses(s string) string { return ksesBlocks(s, allowedTags) }

// FilterKsesTermDescription is wp_filter_kses on pre_term_description, which WordPress applies to
// every stored term description (unfiltered_html does not lift it).
func FilterKsesTermDescription(s string) string { return ksesBlocks(s, termDescriptionTags) }

// FilterPostKses is wp_filter_post_kses (wp_kses($data, 'post')), which WordPress applies to post
// content, excerpts and the like of users without unfiltered_html: wp_kses with WordPress 6.9's
// $allowedposttags, every element also allowing the global attributes (aria-*, class, data-*,
// dir, hidden, id, lang, style, title, role, xml:lang). Unknown elements such as <script>,
// <iframe>, <style>, <form> and <input> are removed (their text content stays), event handler
// and other unlisted attributes are dropped, disallowed URL protocols (javascript:, data:, …,
// also entity-obfuscated) are stripped from URI attributes, and style values go through
// safecss_filter_attr(). The pre_kses filter wp_pre_kses_block_attributes runs first: the
// attributes of block comments (<!-- wp:name {…} -->) are filtered value by value and the
// blocks serialized again.
//
// It works on unslashed text like wp_kses_post(); wp_filter_post_kses' stripslashes/addslashes
// round trip is the caller's business. uploadsURL is wp_upload_dir()['url'] (any URL on the
// uploads host will do: only its host and port count), which decides whether an <object> of a PDF
// keeps its attributes; "" admits none.
func FilterPostKses(s, uploadsURL string) string {
	allowed := postAllowedTags
	if uploadsURL != "" {
		allowed = postAllowedFor(uploadsURL)
	}
	return ksesBlocks(s, allowed)
}

// postAllowedByUploads caches $allowedposttags per uploads URL (a site has one).
var postAllowedByUploads sync.Map

func postAllowedFor(uploadsURL string) ksesAllowed {
	if a, ok := postAllowedByUploads.Load(uploadsURL); ok {
		return a.(ksesAllowed)
	}
	a := ksesPostAllowed(uploadsURL)
	postAllowedByUploads.Store(uploadsURL, a)
	return a
}
