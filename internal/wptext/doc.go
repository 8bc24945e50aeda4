// Package wptext is a Go port of the WordPress (6.9.x) text-formatting
// functions whose output The Events Calendar (6.17.x) REST API exposes: the
// 'the_title', 'the_content' and 'the_excerpt' filter chains, core
// shortcodes, escaping helpers, slug sanitising and TEC's JSON-LD
// description rules.
//
// The functions operate on bytes the way PHP does (PCRE without the /u
// flag), so output stays byte-identical to the reference for arbitrary user
// input, including invalid UTF-8. PCRE features that Go's RE2 engine lacks
// (look-around, back-references, possessive quantifiers, conditionals) are
// implemented with small hand-written scanners next to the code that needs
// them; every regular expression RE2 can express is compiled once at
// package level.
//
// The site model has no attachments and no network access, like the
// reference install the compatibility tests were recorded on:
//
//   - [gallery] and [playlist] always render "" (no attachments), and
//     [audio]/[video] without a usable src render "".
//   - oEmbed never succeeds: [embed] and auto-embedded URLs fall back to a
//     link / the bare URL, except for core's embed handlers (audio, video,
//     youtube.com/embed URLs). Embeds of the site's own posts (rendered by
//     WordPress as a blockquote + iframe) are not reproduced.
//   - wp_filter_content_tags() adds decoding/loading attributes but no
//     srcset/sizes or dimensions (those need attachment metadata).
//   - Dynamic blocks render their saved inner HTML unless
//     RenderContext.RenderBlock supplies the output (TEC's own blocks).
//
// Smaller approximations: wp_kses_one_attr() (shortcodes inside quoted HTML
// attributes) skips the per-element 'post' allow-list; [caption caption=…]
// markup is filtered with an approximation of the 'post' KSES context;
// safecss_filter_attr() uses the WordPress 6.x property list but a
// simplified url()/gradient check; Normalizer::normalize() (used by
// remove_accents()) is reduced to canonical composition of Latin letters;
// mb_strtolower() uses Go's simple case mapping plus the İ special case.
package wptext
