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

// TestCoreSingleRevisionBelongsToItsParent: one revision is shown to those who may edit its parent
// when it is a revision of that parent; a DELETE never passes (map_meta_cap gives revisions
// do_not_allow for delete_post), so the row stays.
func TestCoreSingleRevisionBelongsToItsParent(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		rev := scalar[int](t, st.db, "SELECT MAX(ID) FROM wp_posts WHERE post_parent = 41 AND post_type = 'revision'")
		other := scalar[int](t, st.db, "SELECT MAX(ID) FROM wp_posts WHERE post_parent <> 41 AND post_type = 'revision'")
		if rev == 0 || other == 0 {
			t.Fatal("fixture lacks revisions")
		}
		base := "/wp-json/wp/v2/tribe_events/41/revisions/"
		for _, tc := range []struct {
			name, method, path, user string
			status                   int
			code                     string
		}{
			{"editors_read_it", "GET", base + strconv.Itoa(rev), "admin", 200, ""},
			{"visitors_refused", "GET", base + strconv.Itoa(rev), "", 401, "rest_cannot_read"},
			{"subscribers_refused", "GET", base + strconv.Itoa(rev), "subscriber", 403, "rest_cannot_read"},
			{"another_posts_revision_is_404", "GET", base + strconv.Itoa(other), "admin", 404, "rest_revision_parent_id_mismatch"},
			{"an_event_is_no_revision", "GET", base + "34", "admin", 404, "rest_post_invalid_id"},
			{"delete_refused_even_to_administrators", "DELETE", base + strconv.Itoa(rev) + "?force=true", "admin", 403, "rest_cannot_delete"},
			{"delete_refused_to_visitors_on_the_parent", "DELETE", base + strconv.Itoa(rev) + "?force=true", "", 401, "rest_cannot_delete"},
		} {
			t.Run(name+"_"+tc.name, func(t *testing.T) {
				a := call(t, st.srv, tc.method, tc.path, nil, tc.user)
				if a.status != tc.status || (tc.code != "" && a.body["code"] != tc.code) {
					t.Fatalf("status %d %s, want %d %s", a.status, a.raw, tc.status, tc.code)
				}
				if tc.status == 200 && (a.body["id"] != float64(rev) || a.body["parent"] != 41.0) {
					t.Errorf("answer %s", a.raw)
				}
			})
		}
		if n := scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_posts WHERE ID = ?", rev); n != 1 {
			t.Errorf("%s: revision %d deleted", name, rev)
		}
	}
}
