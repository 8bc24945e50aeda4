package handlers_test

import (
	"testing"

	"github.com/calendard/calendard/handlers"
)

// Text filters are wp_insert_post's: every save by a user without unfiltered_html (authors,
// contributors) runs the merged title, content and excerpt through kses — creates, updates that
// leave the text alone, trashing, venues and organizers alike. Editors and administrators store
// their markup as sent. Expected values follow from WordPress' kses.php and blocks.php (see
// internal/wptext's TestFilterPostKsesAsWordPress).
func TestKsesOnEveryWritePath(t *testing.T) {
	const (
		dirty      = `Tom & Jerry <3 <script>alert(1)</script><b onclick="x">bold</b>`
		clean      = `Tom &amp; Jerry &lt;3 alert(1)<b>bold</b>`
		dirtyTitle = `Fish & Chips <em>now</em> <span>x</span>`
		cleanTitle = `Fish &amp; Chips <em>now</em> x`
		// The plugin unslashes what it passes to wp_insert_post, so backslash escapes do not
		// survive the REST path; a bare & in a block attribute is normalized, then serialized.
		block      = `<!-- wp:paragraph {"className":"Tom & Jerry"} --><p>Hi</p><!-- /wp:paragraph -->`
		blockClean = `<!-- wp:paragraph {"className":"Tom \u0026amp; Jerry"} --><p>Hi</p><!-- /wp:paragraph -->`
		pdf        = `<object data="http://127.0.0.1:8088/wp-content/uploads/2026/11/doc.pdf" type="application/pdf"></object>`
	)
	const venues = "/wp-json/tribe/events/v1/venues"
	for store, f := range storeFixtures(t, handlers.Config{}) {
		row := func(t *testing.T, id int64) (title, content, excerpt string) {
			t.Helper()
			if err := f.db.QueryRow("SELECT post_title, post_content, post_excerpt FROM wp_posts WHERE ID = ?", id).Scan(&title, &content, &excerpt); err != nil {
				t.Fatal(err)
			}
			return
		}
		setContent := func(t *testing.T, id int64, content string) {
			t.Helper()
			if _, err := f.db.Exec("UPDATE wp_posts SET post_content = ? WHERE ID = ?", content, id); err != nil {
				t.Fatal(err)
			}
			settle(t, f.srv)
		}
		create := map[string]any{"title": dirtyTitle, "description": dirty + block + pdf, "excerpt": dirty,
			"start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}

		t.Run(store+"/an author's create is filtered", func(t *testing.T) {
			a := call(t, f.srv, "POST", eventsPath, create, "author")
			if a.status != 201 {
				t.Fatalf("status %d: %.300s", a.status, a.raw)
			}
			title, content, excerpt := row(t, idOf(t, a))
			if title != cleanTitle || content != clean+blockClean+pdf || excerpt != clean {
				t.Errorf("stored\n title %q\n content %q\n excerpt %q", title, content, excerpt)
			}
		})
		t.Run(store+"/an editor's create is stored as sent", func(t *testing.T) {
			a := call(t, f.srv, "POST", eventsPath, create, "editor")
			if a.status != 201 {
				t.Fatalf("status %d: %.300s", a.status, a.raw)
			}
			title, content, excerpt := row(t, idOf(t, a))
			if title != dirtyTitle || content != dirty+block+pdf || excerpt != dirty {
				t.Errorf("stored\n title %q\n content %q\n excerpt %q", title, content, excerpt)
			}
		})
		// Event 78 and 92 are the author's, published; 59 too.
		t.Run(store+"/an administrator's update leaves stored markup alone", func(t *testing.T) {
			setContent(t, 78, dirty)
			a := call(t, f.srv, "POST", eventsPath+"/78", map[string]any{"title": "Sunrise Workshop 2028"}, "admin")
			if a.status != 200 {
				t.Fatalf("status %d: %.300s", a.status, a.raw)
			}
			if _, content, _ := row(t, 78); content != dirty {
				t.Errorf("content %q, want it as stored", content)
			}
		})
		t.Run(store+"/an author's update filters stored text the request left alone", func(t *testing.T) {
			setContent(t, 92, dirty)
			a := call(t, f.srv, "POST", eventsPath+"/92", map[string]any{"title": "Summer Seminar 2027"}, "author")
			if a.status != 200 {
				t.Fatalf("status %d: %.300s", a.status, a.raw)
			}
			if _, content, _ := row(t, 92); content != clean {
				t.Errorf("content %q, want %q", content, clean)
			}
		})
		t.Run(store+"/an author's trash filters the stored text", func(t *testing.T) {
			setContent(t, 59, dirty)
			a := call(t, f.srv, "DELETE", eventsPath+"/59", nil, "author")
			if a.status != 200 {
				t.Fatalf("status %d: %.300s", a.status, a.raw)
			}
			if _, content, _ := row(t, 59); content != clean {
				t.Errorf("content %q, want %q", content, clean)
			}
		})
		t.Run(store+"/an author's venue is filtered", func(t *testing.T) {
			a := call(t, f.srv, "POST", venues, map[string]any{"venue": dirtyTitle, "description": dirty}, "author")
			if a.status != 201 {
				t.Fatalf("status %d: %.300s", a.status, a.raw)
			}
			title, content, _ := row(t, idOf(t, a))
			if title != cleanTitle || content != clean {
				t.Errorf("stored title %q content %q", title, content)
			}
		})
		t.Run(store+"/a contributor's organizer is filtered", func(t *testing.T) {
			a := call(t, f.srv, "POST", "/wp-json/tribe/events/v1/organizers", map[string]any{"organizer": dirtyTitle, "description": dirty}, "contributor")
			if a.status != 201 {
				t.Fatalf("status %d: %.300s", a.status, a.raw)
			}
			title, content, _ := row(t, idOf(t, a))
			if title != cleanTitle || content != clean {
				t.Errorf("stored title %q content %q", title, content)
			}
		})
	}
}
