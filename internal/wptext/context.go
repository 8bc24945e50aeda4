package wptext

// RenderContext carries the per-request state WordPress keeps in PHP statics
// and globals while rendering content (shortcode instance counters, site
// URLs, theme features). Create one per HTTP request and render texts in the
// order TEC does (for each event: its venue's content, its organizers'
// contents, then the event's own content), so [audio]/[video] ids and
// "?_=N" suffixes match. It is not safe for concurrent use.
type RenderContext struct {
	// HomeURL is the site's home URL without a trailing slash, e.g.
	// "http://127.0.0.1:8088".
	HomeURL string
	// SiteURL is site_url() (where wp-includes lives); defaults to HomeURL.
	SiteURL string
	// HTML5Caption mirrors current_theme_supports('html5','caption'):
	// [caption] renders <figure>/<figcaption> instead of <div>/<p>.
	// Block themes (the reference runs one) support it, so it defaults to true.
	HTML5Caption bool
	// ContentWidth is the theme's $content_width global (0 = unset), which
	// caps [video] widths.
	ContentWidth int
	// HTTPSMigrationRequired mirrors the 'https_migration_required' option
	// consulted by wp_replace_insecure_home_url(); it only has an effect when
	// HomeURL is https.
	HTTPSMigrationRequired bool
	// ExcerptLength is the excerpt_length filter's answer (nil: WordPress' 55 words); the wp/v2
	// routes set it from their excerpt_length parameter.
	ExcerptLength *int
	// PostID is the global $post ID seen by shortcodes (0 in TEC REST
	// responses, hence ids like "audio-0-1").
	PostID int
	// RenderBlock, when set, renders dynamic blocks (e.g. TEC's
	// tribe/event-datetime). It receives the block name, its raw JSON
	// attributes and the already-rendered inner content and returns the HTML
	// and true, or false to fall back to static rendering.
	RenderBlock func(name, attrsJSON, inner string) (string, bool)

	audioInstance    int
	videoInstance    int
	galleryInstance  int
	playlistInstance int
}

// NewRenderContext returns a context for one request against homeURL.
func NewRenderContext(homeURL string) *RenderContext {
	return &RenderContext{HomeURL: homeURL, SiteURL: homeURL, HTML5Caption: true}
}

func (rc *RenderContext) siteURL() string {
	if rc == nil {
		return ""
	}
	if rc.SiteURL != "" {
		return rc.SiteURL
	}
	return rc.HomeURL
}

// Instances returns the per-request shortcode instance counters. Rendering that leaves them as they
// were used none of them, so its output does not depend on what the request rendered before.
func (rc *RenderContext) Instances() [4]int {
	return [4]int{rc.audioInstance, rc.videoInstance, rc.galleryInstance, rc.playlistInstance}
}
