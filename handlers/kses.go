package handlers

import "github.com/calendard/calendard/internal/wptext"

// WordPress filters what users without the unfiltered_html capability (authors, contributors) store:
// wp_filter_kses on titles ($allowedtags), wp_filter_post_kses on content and excerpts
// ($allowedposttags). Editors and administrators store their markup as sent.

func (r *Request) filterTitle(s string) string {
	if r.User.Can("unfiltered_html") {
		return s
	}
	return wptext.FilterKses(s)
}

func (r *Request) filterPost(s string) string {
	if r.User.Can("unfiltered_html") {
		return s
	}
	return wptext.FilterPostKses(s)
}
