package handlers_test

import (
	"strconv"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// TestCoreMetaKeysFollowTheirOwnAuth: a registered meta key is written only when its own
// auth_callback allows it (map_meta_cap's edit_post_meta), apart from the post's edit permission:
// the plugin's event status keys need edit_posts, which an author denied it per user lacks even
// on their own event; the other keys follow the post. A refused key writes nothing.
func TestCoreMetaKeysFollowTheirOwnAuth(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		// The author keeps the role and loses edit_posts as a per-user denial.
		if _, err := st.db.Exec(`UPDATE wp_usermeta SET meta_value = 'a:2:{s:6:"author";b:1;s:10:"edit_posts";b:0;}' WHERE user_id = 3 AND meta_key = 'wp_capabilities'`); err != nil {
			t.Fatal(err)
		}
		settle(t, st.srv)
		status := map[string]any{"_tribe_events_status": "canceled"}
		t.Run(name+"_status_key_refused_on_create_and_nothing_written", func(t *testing.T) {
			before := rowCounts(t, st.db)
			a := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "Mine", "meta": status}, "author")
			data, _ := a.body["data"].(map[string]any)
			if a.status != 403 || a.body["code"] != "rest_cannot_update" || data["key"] != "_tribe_events_status" {
				t.Errorf("status %d %s", a.status, a.raw)
			}
			if after := rowCounts(t, st.db); after != before {
				t.Errorf("rows %s -> %s", before, after)
			}
		})
		var id string
		t.Run(name+"_other_keys_written_on_the_authors_event", func(t *testing.T) {
			a := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "Mine", "meta": map[string]any{"_EventURL": "https://example.org/"}}, "author")
			if a.status != 201 {
				t.Fatalf("status %d %s", a.status, a.raw)
			}
			id = strconv.FormatFloat(a.body["id"].(float64), 'f', -1, 64)
		})
		t.Run(name+"_status_key_delete_refused", func(t *testing.T) {
			a := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_events/"+id, map[string]any{"meta": map[string]any{"_tribe_events_status": nil}}, "author")
			if a.status != 403 || a.body["code"] != "rest_cannot_delete" {
				t.Errorf("status %d %s", a.status, a.raw)
			}
		})
		t.Run(name+"_status_key_written_by_an_editor", func(t *testing.T) {
			a := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_events/"+id, map[string]any{"meta": status}, "editor")
			meta, _ := a.body["meta"].(map[string]any)
			if a.status != 200 || meta["_tribe_events_status"] != "canceled" {
				t.Errorf("status %d %s", a.status, a.raw)
			}
		})
	}
}
