package handlers

import (
	"context"
	"html"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/calendard/calendard"
)

// WordPress announces its REST API on every front-end page: rest_output_link_header sends
// `Link: <rest_url>; rel="https://api.w.org/"` on template_redirect (404 pages included) and
// rest_output_link_wp_head prints the same as a <link> in <head>; that is what API clients such as
// wpapi's WPAPI.discover(siteURL) look for. The plugin adds its own discovery headers on the same
// hook (Tribe__REST__Headers__Supported::send_header), or only "X-TEC-API-VERSION: disabled" when
// its API is switched off (Tribe__REST__Headers__Disabled, option rest-v1-disabled).
//
// calendard serves no theme, so the page is a minimal HTML document carrying the same head tags.

// tecDiscoveryHeaders are the plugin's headers for a page that is not a single event, a featured,
// category, tag or venue listing: the version, the root of its REST API (tribe_events_rest_url(),
// esc_url_raw'ed) and the site's home URL.
func tecDiscoveryHeaders(site *calendard.Site) []calendard.KV {
	if site.RESTDisabled {
		return []calendard.KV{{Key: "X-TEC-API-VERSION", Value: "disabled"}}
	}
	return []calendard.KV{
		{Key: "X-TEC-API-VERSION", Value: "v1"},
		{Key: "X-TEC-API-ROOT", Value: RestURL(site, "/tribe/events/v1/")},
		{Key: "X-TEC-API-ORIGIN", Value: site.HomeURL},
	}
}

// discoveryLink is rest_output_link_header's value.
func discoveryLink(site *calendard.Site) calendard.KV {
	return calendard.KV{Key: "Link", Value: "<" + RestURL(site, "/") + `>; rel="https://api.w.org/"`}
}

// discoveryPage is the HTML of a front-end page: rest_output_link_wp_head's <link> and, when the
// plugin's API is on, the meta and link tags of Tribe__REST__Headers__Supported::add_header.
func discoveryPage(site *calendard.Site, status int) string {
	var b strings.Builder
	title := site.Name
	if status == 404 {
		title = "Page not found"
	}
	b.WriteString("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"" + html.EscapeString(charset(site)) + "\">\n")
	b.WriteString("<title>" + html.EscapeString(title) + "</title>\n")
	b.WriteString(`<link rel="https://api.w.org/" href="` + html.EscapeString(RestURL(site, "/")) + "\" />\n")
	if !site.RESTDisabled {
		b.WriteString(`<meta name="tec-api-version" content="v1">`)
		b.WriteString(`<meta name="tec-api-origin" content="` + html.EscapeString(site.HomeURL) + `">`)
		b.WriteString(`<link rel="alternate" href="` + html.EscapeString(RestURL(site, "/tribe/events/v1/")) + "\" />\n")
	}
	b.WriteString("</head>\n<body>\n</body>\n</html>\n")
	return b.String()
}

// serveSitePage answers a front-end page (the site root: status 200; a path calendard does not
// serve while it is the whole site: 404) with WordPress' and the plugin's discovery headers. HEAD
// gets the headers alone, as WordPress exits after template_redirect on HEAD requests.
func (s *Server) serveSitePage(c *gin.Context, status int) {
	ctx, cancel := s.dbContext(c.Request.Context())
	defer cancel()
	site, err := s.deps.Site.Site(ctx)
	if err != nil {
		e := errUnavailable
		if ctx.Err() == context.DeadlineExceeded {
			e = errDBTimeout
		}
		s.log.Error("loading site options", "err", err)
		writeJSON(c, 503, errorBody(e), baseHeaders(nil))
		return
	}
	hdrs := append([]calendard.KV{discoveryLink(site)}, tecDiscoveryHeaders(site)...)
	setHeaders(c, hdrs)
	page := discoveryPage(site, status)
	c.Header("Content-Type", "text/html; charset="+charset(site))
	c.Header("Content-Length", strconv.Itoa(len(page)))
	c.Status(status)
	if c.Request.Method == "HEAD" {
		// Gin would otherwise write its own plain-text 404 for an unwritten NoRoute answer.
		c.Writer.WriteHeaderNow()
		return
	}
	_, _ = c.Writer.WriteString(page)
}

// isPageMethod reports the methods a front-end page answers with its discovery headers.
func isPageMethod(m string) bool { return m == "GET" || m == "HEAD" }
