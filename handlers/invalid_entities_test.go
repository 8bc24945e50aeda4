package handlers_test

import (
	"testing"

	"github.com/calendard/calendard/handlers"
)

// convert_invalid_entities runs on content_save_pre and excerpt_save_pre for every user
// (default-filters.php), so every wp_insert_post — creates, updates that leave the text alone,
// trash — rewrites the Windows-1252 references &#128;–&#159; (unassigned ones dropped), exact
// spellings only; for users without unfiltered_html kses runs after it and normalizes what is left.
func TestInvalidEntitiesConvertedOnEverySave(t *testing.T) {
	const (
		sent      = `Price &#128;5 &#150; &#129;gone &#0150; &#x96; &#1280; &#159;`
		converted = `Price &#8364;5 &#8211; gone &#0150; &#x96; &#1280; &#376;`
		// kses then strips the leading zero: &#0150; becomes &#150;, which convert_invalid_entities
		// has already passed.
		convertedThenKses = `Price &#8364;5 &#8211; gone &#150; &#x96; &#1280; &#376;`
	)
	const events = "/wp-json/tribe/events/v1/events"
	for store, f := range storeFixtures(t, handlers.Config{}) {
		row := func(t *testing.T, id int64) (content, excerpt string) {
			t.Helper()
			if err := f.db.QueryRow("SELECT post_content, post_excerpt FROM wp_posts WHERE ID = ?", id).Scan(&content, &excerpt); err != nil {
				t.Fatal(err)
			}
			return
		}
		setText := func(t *testing.T, id int64) {
			t.Helper()
			if _, err := f.db.Exec("UPDATE wp_posts SET post_content = ?, post_excerpt = ? WHERE ID = ?", sent, sent, id); err != nil {
				t.Fatal(err)
			}
			settle(t, f.srv)
		}
		cases := []struct {
			name        string
			prepare     int64 // a post whose stored text is set to sent first
			method      string
			path        string
			body        map[string]any
			user        string
			status      int
			id          int64 // the post to read; 0: the created one
			wantContent string
			wantExcerpt string // "": not checked (venues and organizers have none)
		}{
			{"an administrator's event create converts content and excerpt", 0, "POST", events,
				map[string]any{"title": "Entities", "description": sent, "excerpt": sent,
					"start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}, "admin", 201, 0, converted, converted},
			{"an author's event create converts, then kses normalizes", 0, "POST", events,
				map[string]any{"title": "Entities", "description": sent, "excerpt": sent,
					"start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}, "author", 201, 0, convertedThenKses, convertedThenKses},
			{"an administrator's update converts stored text it did not send", 78, "POST", events + "/78",
				map[string]any{"title": "Sunrise Workshop 2028"}, "admin", 200, 78, converted, converted},
			{"an administrator's trash converts the stored text", 59, "DELETE", events + "/59", nil, "admin", 200, 59, converted, converted},
			{"a venue create converts", 0, "POST", "/wp-json/tribe/events/v1/venues",
				map[string]any{"venue": "Entity Hall", "description": sent}, "admin", 201, 0, converted, ""},
			{"an organizer create converts", 0, "POST", "/wp-json/tribe/events/v1/organizers",
				map[string]any{"organizer": "Entity Org", "description": sent}, "editor", 201, 0, converted, ""},
			{"a wp/v2 event create converts", 0, "POST", "/wp-json/wp/v2/tribe_events",
				map[string]any{"title": "Entities v2", "content": sent, "excerpt": sent, "status": "publish"}, "admin", 201, 0, converted, converted},
		}
		for _, c := range cases {
			t.Run(store+"/"+c.name, func(t *testing.T) {
				if c.prepare != 0 {
					setText(t, c.prepare)
				}
				a := call(t, f.srv, c.method, c.path, c.body, c.user)
				if a.status != c.status {
					t.Fatalf("status %d: %.300s", a.status, a.raw)
				}
				id := c.id
				if id == 0 {
					id = idOf(t, a)
				}
				content, excerpt := row(t, id)
				if content != c.wantContent {
					t.Errorf("content %q, want %q", content, c.wantContent)
				}
				if c.wantExcerpt != "" && excerpt != c.wantExcerpt {
					t.Errorf("excerpt %q, want %q", excerpt, c.wantExcerpt)
				}
			})
		}
	}
}
