package wptext

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// shortcodeAttsMerge mirrors shortcode_atts(): only known keys, defaults
// filled in.
func shortcodeAttsMerge(defaults map[string]string, atts shortcodeAtts) map[string]string {
	out := make(map[string]string, len(defaults))
	for k, v := range defaults {
		if a, ok := atts.get(k); ok {
			out[k] = a
		} else {
			out[k] = v
		}
	}
	return out
}

var captionImgRe = regexp.MustCompile(`(?is)^(?:.*?)((?:<a [^>]+>[\t\n\v\f\r ]*)?<img [^>]+>(?:[\t\n\v\f\r ]*</a>)?)(.*)$`)

// captionShortcode mirrors img_caption_shortcode().
func captionShortcode(rc *RenderContext, _ string, atts shortcodeAtts, content string) string {
	caption, hasCaption := atts.get("caption")
	if !hasCaption {
		if m := captionImgRe.FindStringSubmatch(content); m != nil {
			content = m[1]
			caption = phpTrim(m[2])
			hasCaption = true
		}
	} else if strings.Contains(caption, "<") {
		caption = ksesPost(caption)
	}
	a := shortcodeAttsMerge(map[string]string{"id": "", "caption_id": "", "align": "alignnone", "width": "", "caption": "", "class": ""}, atts)
	if hasCaption {
		a["caption"] = caption
	}
	width := phpIntval(a["width"])
	if width < 1 || phpEmpty(a["caption"]) {
		return content
	}
	id, captionID, describedby := "", "", ""
	if !phpEmpty(a["id"]) {
		a["id"] = sanitizeHTMLClass(a["id"])
		id = `id="` + EscAttr(a["id"]) + `" `
	}
	if !phpEmpty(a["caption_id"]) {
		a["caption_id"] = sanitizeHTMLClass(a["caption_id"])
	} else if !phpEmpty(a["id"]) {
		a["caption_id"] = "caption-" + strings.ReplaceAll(a["id"], "_", "-")
	}
	if !phpEmpty(a["caption_id"]) {
		captionID = `id="` + EscAttr(a["caption_id"]) + `" `
		describedby = `aria-describedby="` + EscAttr(a["caption_id"]) + `" `
	}
	class := phpTrim("wp-caption " + a["align"] + " " + a["class"])
	html5 := rc.HTML5Caption
	w := width
	if !html5 {
		w += 10
	}
	style := ""
	if w != 0 {
		style = `style="width: ` + strconv.Itoa(w) + `px" `
	}
	inner := DoShortcode(content, rc)
	if html5 {
		return fmt.Sprintf(`<figure %s%s%sclass="%s">%s<figcaption %sclass="wp-caption-text">%s</figcaption></figure>`,
			id, describedby, style, EscAttr(class), inner, captionID, a["caption"])
	}
	return fmt.Sprintf(`<div %s%sclass="%s">%s<p %sclass="wp-caption-text">%s</p></div>`,
		id, style, EscAttr(class), strings.ReplaceAll(inner, "<img ", "<img "+describedby), captionID, a["caption"])
}

// galleryShortcode mirrors gallery_shortcode() for a site model without
// attachments: every gallery resolves to no images and renders "".
func galleryShortcode(rc *RenderContext, _ string, _ shortcodeAtts, _ string) string {
	rc.galleryInstance++
	return ""
}

// playlistShortcode mirrors wp_playlist_shortcode() without attachments.
func playlistShortcode(rc *RenderContext, _ string, _ shortcodeAtts, _ string) string {
	rc.playlistInstance++
	return ""
}

var audioExtensions = []string{"mp3", "ogg", "flac", "m4a", "wav"}
var videoExtensions = []string{"mp4", "m4v", "webm", "ogv", "flv"}

// mediaMimeTypes is the audio/video part of wp_get_mime_types(), in order.
var mediaMimeTypes = []struct{ exts, mime string }{
	{"asf|asx", "video/x-ms-asf"}, {"wmv", "video/x-ms-wmv"}, {"wmx", "video/x-ms-wmx"}, {"wm", "video/x-ms-wm"},
	{"avi", "video/avi"}, {"divx", "video/divx"}, {"flv", "video/x-flv"}, {"mov|qt", "video/quicktime"},
	{"mpeg|mpg|mpe", "video/mpeg"}, {"mp4|m4v", "video/mp4"}, {"ogv", "video/ogg"}, {"webm", "video/webm"},
	{"mkv", "video/x-matroska"}, {"3gp|3gpp", "video/3gpp"}, {"3g2|3gp2", "video/3gpp2"},
	{"mp3|m4a|m4b", "audio/mpeg"}, {"aac", "audio/aac"}, {"ra|ram", "audio/x-realaudio"},
	{"wav|x-wav", "audio/wav"}, {"ogg|oga", "audio/ogg"}, {"flac", "audio/flac"}, {"mid|midi", "audio/midi"},
	{"wma", "audio/x-ms-wma"}, {"wax", "audio/x-ms-wax"}, {"mka", "audio/x-matroska"},
}

// checkFiletype mirrors wp_check_filetype() restricted to media types: the
// extension must end the string (query strings defeat it, as in WordPress).
func checkFiletype(name string) (ext, mime string) {
	for _, m := range mediaMimeTypes {
		for _, e := range strings.Split(m.exts, "|") {
			if len(name) > len(e) && asciiEqualFold(name[len(name)-len(e):], e) && name[len(name)-len(e)-1] == '.' {
				return name[len(name)-len(e):], m.mime
			}
		}
	}
	return "", ""
}

// validateBoolean mirrors wp_validate_boolean().
func validateBoolean(s string) bool {
	if asciiLower(s) == "false" {
		return false
	}
	return !phpEmpty(s)
}

func mediaelementFallback(u string) string {
	e := EscURL(u)
	return `<a href="` + e + `">` + e + `</a>`
}

// audioShortcode mirrors wp_audio_shortcode().
func audioShortcode(rc *RenderContext, _ string, atts shortcodeAtts, _ string) string {
	rc.audioInstance++
	instance := rc.audioInstance
	defaults := map[string]string{"src": "", "loop": "", "autoplay": "", "preload": "none",
		"class": "wp-audio-shortcode", "style": "width: 100%;"}
	for _, t := range audioExtensions {
		defaults[t] = ""
	}
	a := shortcodeAttsMerge(defaults, atts)
	types := append([]string(nil), audioExtensions...)
	primary := false
	if !phpEmpty(a["src"]) {
		ext, _ := checkFiletype(a["src"])
		if !inList(asciiLower(ext), audioExtensions) {
			return fmt.Sprintf(`<a class="wp-embedded-audio" href="%s">%s</a>`, EscURL(a["src"]), EscHTML(a["src"]))
		}
		primary = true
		types = append([]string{"src"}, types...)
	} else {
		primary = hasTypedSource(a, audioExtensions)
	}
	if !primary {
		// get_attached_media() finds nothing: attachments are not modelled.
		return ""
	}
	htmlAtts := [][2]string{{"class", a["class"]}, {"id", fmt.Sprintf("audio-%d-%d", rc.PostID, instance)}}
	if validateBoolean(a["loop"]) {
		htmlAtts = append(htmlAtts, [2]string{"loop", "1"})
	}
	if validateBoolean(a["autoplay"]) {
		htmlAtts = append(htmlAtts, [2]string{"autoplay", "1"})
	}
	if !phpEmpty(a["preload"]) {
		htmlAtts = append(htmlAtts, [2]string{"preload", a["preload"]})
	}
	htmlAtts = append(htmlAtts, [2]string{"style", a["style"]})
	var b strings.Builder
	b.WriteString("<audio ")
	for i, kv := range htmlAtts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(kv[0] + `="` + EscAttr(kv[1]) + `"`)
	}
	b.WriteString(` controls="controls">`)
	fileurl := ""
	for _, fb := range types {
		if v := a[fb]; !phpEmpty(v) {
			if fileurl == "" {
				fileurl = v
			}
			_, mime := checkFiletype(v)
			b.WriteString(`<source type="` + mime + `" src="` + EscURL(addQueryArg(v, "_", strconv.Itoa(instance))) + `" />`)
		}
	}
	b.WriteString(mediaelementFallback(fileurl))
	b.WriteString("</audio>")
	return b.String()
}

var (
	youtubeSrcRe = regexp.MustCompile(`^https?://(?:www\.)?(?:youtube\.com/watch|youtu\.be/)`)
	vimeoSrcRe   = regexp.MustCompile(`^https?://(.+\.)?vimeo\.com/.*`)
)

// videoShortcode mirrors wp_video_shortcode().
func videoShortcode(rc *RenderContext, _ string, atts shortcodeAtts, content string) string {
	rc.videoInstance++
	instance := rc.videoInstance
	defaults := map[string]string{"src": "", "poster": "", "loop": "", "autoplay": "", "muted": "false",
		"preload": "metadata", "width": "640", "height": "360", "class": "wp-video-shortcode"}
	for _, t := range videoExtensions {
		defaults[t] = ""
	}
	a := shortcodeAttsMerge(defaults, atts)
	width, height := phpFloatval(a["width"]), phpFloatval(a["height"])
	if rc.ContentWidth > 0 && width > float64(rc.ContentWidth) {
		height = phpRound(height * float64(rc.ContentWidth) / width)
		width = float64(rc.ContentWidth)
	}
	types := append([]string(nil), videoExtensions...)
	isYouTube, isVimeo, primary := false, false, false
	if !phpEmpty(a["src"]) {
		isVimeo = vimeoSrcRe.MatchString(a["src"])
		isYouTube = youtubeSrcRe.MatchString(a["src"])
		if !isYouTube && !isVimeo {
			ext, _ := checkFiletype(a["src"])
			if !inList(asciiLower(ext), videoExtensions) {
				return fmt.Sprintf(`<a class="wp-embedded-video" href="%s">%s</a>`, EscURL(a["src"]), EscHTML(a["src"]))
			}
		}
		primary = true
		types = append([]string{"src"}, types...)
	} else {
		primary = hasTypedSource(a, videoExtensions)
	}
	if !primary {
		return ""
	}
	if isYouTube {
		a["src"] = setURLSchemeHTTPS(removeQueryArg(a["src"], "feature"))
	} else if isVimeo {
		if pu, err := url.Parse(a["src"]); err == nil {
			loop := "0"
			if !phpEmpty(a["loop"]) {
				loop = "1"
			}
			a["src"] = addQueryArg("https://"+pu.Host+pu.EscapedPath(), "loop", loop)
		}
	}
	htmlAtts := [][2]string{
		{"class", a["class"]},
		{"id", fmt.Sprintf("video-%d-%d", rc.PostID, instance)},
		{"width", strconv.FormatInt(absint(width), 10)},
		{"height", strconv.FormatInt(absint(height), 10)},
	}
	if p := EscURL(a["poster"]); p != "" {
		htmlAtts = append(htmlAtts, [2]string{"poster", p})
	}
	if validateBoolean(a["loop"]) {
		htmlAtts = append(htmlAtts, [2]string{"loop", "1"})
	}
	if validateBoolean(a["autoplay"]) {
		htmlAtts = append(htmlAtts, [2]string{"autoplay", "1"})
	}
	if validateBoolean(a["muted"]) {
		htmlAtts = append(htmlAtts, [2]string{"muted", "1"})
	}
	if !phpEmpty(a["preload"]) {
		htmlAtts = append(htmlAtts, [2]string{"preload", a["preload"]})
	}
	var b strings.Builder
	b.WriteString("<video ")
	for i, kv := range htmlAtts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(kv[0] + `="` + EscAttr(kv[1]) + `"`)
	}
	b.WriteString(` controls="controls">`)
	fileurl := ""
	for _, fb := range types {
		v := a[fb]
		if phpEmpty(v) {
			continue
		}
		if fileurl == "" {
			fileurl = v
		}
		var mime string
		switch {
		case fb == "src" && isYouTube:
			mime = "video/youtube"
		case fb == "src" && isVimeo:
			mime = "video/vimeo"
		default:
			_, mime = checkFiletype(v)
		}
		b.WriteString(`<source type="` + mime + `" src="` + EscURL(addQueryArg(v, "_", strconv.Itoa(instance))) + `" />`)
	}
	if !phpEmpty(content) {
		if strings.Contains(content, "\n") {
			content = strings.NewReplacer("\r\n", "", "\n", "", "\t", "").Replace(content)
		}
		b.WriteString(phpTrim(content))
	}
	b.WriteString(mediaelementFallback(fileurl))
	b.WriteString("</video>")
	widthRule := ""
	if width != 0 {
		widthRule = fmt.Sprintf("width: %dpx;", int64(width))
	}
	return fmt.Sprintf(`<div style="%s" class="wp-video">%s</div>`, widthRule, b.String())
}

// embedShortcode mirrors WP_Embed::shortcode() when oEmbed discovery cannot
// reach the network (the reference blocks outbound HTTP): registered embed
// handlers still apply, everything else becomes a link (or the bare URL for
// autoembed).
func embedShortcode(rc *RenderContext, atts shortcodeAtts, u string, linkIfUnknown bool) string {
	if u == "" {
		if s, ok := atts.get("src"); ok {
			u = s
		}
	}
	if u == "" {
		return ""
	}
	u = strings.ReplaceAll(u, "&amp;", "&")
	if html, ok := embedHandlerHTML(rc, u); ok {
		return html
	}
	if linkIfUnknown {
		return `<a href="` + EscURL(u) + `">` + EscHTML(u) + `</a>`
	}
	return u
}

var (
	embedAudioRe   = regexp.MustCompile(`(?i)^https?://.+?\.(mp3|ogg|flac|m4a|wav)$`)
	embedVideoRe   = regexp.MustCompile(`(?i)^https?://.+?\.(mp4|m4v|webm|ogv|flv)$`)
	embedYouTubeRe = regexp.MustCompile(`(?i)https?://(www.)?youtube\.com/(?:v|embed)/([^/]+)`)
)

// embedHandlerHTML mirrors WP_Embed::get_embed_handler_html() for core's
// handlers (youtube_embed_url, then audio and video at priority 9999). The
// audio/video handlers return shortcodes that do_shortcode() renders later.
func embedHandlerHTML(rc *RenderContext, u string) (string, bool) {
	if m := embedYouTubeRe.FindStringSubmatch(u); m != nil {
		// wp_embed_handler_youtube() re-runs autoembed on the watch URL; the
		// oEmbed fetch fails offline, so the URL itself comes back.
		return "https://youtube.com/watch?v=" + phpURLEncode(m[2]), true
	}
	if embedAudioRe.MatchString(u) {
		return `[audio src="` + EscURL(u) + `" /]`, true
	}
	if embedVideoRe.MatchString(u) {
		return `[video src="` + EscURL(u) + `" /]`, true
	}
	return "", false
}

// runEmbedShortcode mirrors WP_Embed::run_shortcode() (the_content, priority 8).
func runEmbedShortcode(content string, rc *RenderContext) string {
	handlers := map[string]shortcodeFunc{
		"embed": func(rc *RenderContext, _ string, atts shortcodeAtts, c string) string {
			return embedShortcode(rc, atts, c, true)
		},
	}
	return doShortcodeWith(content, rc, handlers, []string{"embed"}, true)
}

var (
	autoembedLineRe = regexp.MustCompile(`(?im)^([\t\n\v\f\r ]*)(https?://[^\t\n\v\f\r <>"]+)([\t\v\f\r ]*)$`)
	autoembedParaRe = regexp.MustCompile(`(?i)(<p(?: [^>]*)?>[\t\n\v\f\r ]*)(https?://[^\t\n\v\f\r <>"]+)([\t\n\v\f\r ]*</p>)`)
	autoembedProbe  = regexp.MustCompile(`(?i)(?:^|[\t\n\v\f\r >])https?://`)
)

// autoembed mirrors WP_Embed::autoembed().
func autoembed(content string, rc *RenderContext) string {
	content = replaceInHTMLTags(content, "\n", "<!-- wp-line-break -->")
	if autoembedProbe.MatchString(content) {
		cb := func(re *regexp.Regexp) {
			content = re.ReplaceAllStringFunc(content, func(m string) string {
				sm := re.FindStringSubmatch(m)
				return sm[1] + embedShortcode(rc, shortcodeAtts{}, sm[2], false) + sm[3]
			})
		}
		cb(autoembedLineRe)
		cb(autoembedParaRe)
	}
	return strings.ReplaceAll(content, "<!-- wp-line-break -->", "\n")
}

// sanitizeHTMLClass mirrors sanitize_html_class() without a fallback.
func sanitizeHTMLClass(c string) string {
	var b strings.Builder
	for i := 0; i < len(c); i++ {
		if c[i] == '%' && i+2 < len(c) && isHex(c[i+1]) && isHex(c[i+2]) {
			i += 2
			continue
		}
		if isAlpha(c[i]) || isDigit(c[i]) || c[i] == '_' || c[i] == '-' {
			b.WriteByte(c[i])
		}
	}
	return b.String()
}

// addQueryArg mirrors add_query_arg($key, $value, $url) for one pair.
func addQueryArg(u, key, value string) string {
	frag := ""
	if i := strings.IndexByte(u, '#'); i >= 0 {
		frag = u[i:]
		u = u[:i]
	}
	protocol := ""
	if hasPrefixFold(u, "http://") || hasPrefixFold(u, "https://") {
		n := strings.Index(u, "://") + 3
		protocol, u = u[:n], u[n:]
	}
	base, query := u, ""
	if i := strings.IndexByte(u, '?'); i >= 0 {
		base, query = u[:i+1], u[i+1:]
	} else if protocol != "" || !strings.Contains(u, "=") {
		base += "?"
	} else {
		base, query = "", u
	}
	base = protocol + base
	type kv struct{ k, v string }
	var pairs []kv
	for _, part := range strings.Split(query, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		dk, err1 := url.QueryUnescape(k)
		dv, err2 := url.QueryUnescape(v)
		if err1 != nil {
			dk = k
		}
		if err2 != nil {
			dv = v
		}
		replaced := false
		for i := range pairs {
			if pairs[i].k == dk {
				pairs[i].v = dv
				replaced = true
			}
		}
		if !replaced {
			pairs = append(pairs, kv{dk, dv})
		}
	}
	set := false
	for i := range pairs {
		if pairs[i].k == key {
			pairs[i].v = value
			set = true
		}
	}
	if !set {
		pairs = append(pairs, kv{key, value})
	}
	var parts []string
	for _, p := range pairs {
		k := phpURLEncode(p.k)
		if p.k == key {
			k = p.k
		}
		v := phpURLEncode(p.v)
		if p.k == key {
			v = p.v
		}
		if v == "" {
			parts = append(parts, k)
		} else {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.TrimRight(base+strings.Join(parts, "&")+frag, "?")
}

// removeQueryArg drops one query argument (remove_query_arg()).
func removeQueryArg(u, key string) string {
	i := strings.IndexByte(u, '?')
	if i < 0 {
		return u
	}
	frag := ""
	q := u[i+1:]
	if j := strings.IndexByte(q, '#'); j >= 0 {
		frag, q = q[j:], q[:j]
	}
	var keep []string
	for _, part := range strings.Split(q, "&") {
		k, _, _ := strings.Cut(part, "=")
		if k != key && part != "" {
			keep = append(keep, part)
		}
	}
	out := u[:i]
	if len(keep) > 0 {
		out += "?" + strings.Join(keep, "&")
	}
	return out + frag
}

func setURLSchemeHTTPS(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		return "https" + u[i:]
	}
	return u
}

// phpURLEncode mirrors PHP urlencode().
func phpURLEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c) || isDigit(c) || c == '-' || c == '_' || c == '.':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// phpEmpty mirrors PHP empty() for strings.
func phpEmpty(s string) bool { return s == "" || s == "0" }

// phpIntval mirrors (int) casting of a numeric-prefixed string.
func phpIntval(s string) int {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	v, _ := strconv.Atoi(s[:i])
	return v
}

func phpFloatval(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
		i++
	}
	v, _ := strconv.ParseFloat(s[:i], 64)
	return v
}

func phpRound(f float64) float64 {
	if f < 0 {
		return -phpRound(-f)
	}
	return float64(int64(f + 0.5))
}

// absint mirrors absint(): abs(intval()).
func absint(f float64) int64 {
	v := int64(f)
	if v < 0 {
		v = -v
	}
	return v
}

// hasTypedSource reports whether a per-format attribute (mp3="...", mp4="...") names a file of
// that format, which is what makes wp_audio_shortcode/wp_video_shortcode render without src.
func hasTypedSource(a map[string]string, exts []string) bool {
	for _, ext := range exts {
		if !phpEmpty(a[ext]) {
			if e, _ := checkFiletype(a[ext]); asciiLower(e) == ext {
				return true
			}
		}
	}
	return false
}
