package handlers_test

import (
	"strconv"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// TestCoreRevisionsOnlyForEditors: a post's revisions are listed, newest first, to users who may
// edit the post, with WordPress' paging headers; others get rest_cannot_read.
func TestCoreRevisionsOnlyForEditors(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name+"_editors_see_every_revision", func(t *testing.T) {
			want := scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_posts WHERE post_parent = 41 AND post_type = 'revision' AND post_status = 'inherit'")
			a := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events/41/revisions", nil, "admin")
			ids := postListIDs(t, a)
			if want == 0 || len(ids) != want || a.header.Get("X-WP-Total") != strconv.Itoa(want) {
				t.Errorf("status %d, %d revisions listed, X-WP-Total %q, %d in the table", a.status, len(ids), a.header.Get("X-WP-Total"), want)
			}
		})
		for _, tc := range []struct {
			user   string
			status int
		}{{"", 401}, {"subscriber", 403}} {
			t.Run(name+"_refused_to_"+tc.user+"_without_edit_post", func(t *testing.T) {
				a := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events/41/revisions", nil, tc.user)
				if a.status != tc.status || a.body["code"] != "rest_cannot_read" {
					t.Errorf("status %d %s", a.status, a.raw)
				}
			})
		}
		t.Run(name+"_unknown_parent_is_404", func(t *testing.T) {
			a := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events/10/revisions", nil, "admin")
			if a.status != 404 || a.body["code"] != "rest_post_invalid_parent" {
				t.Errorf("status %d %s", a.status, a.raw)
			}
		})
	}
}
