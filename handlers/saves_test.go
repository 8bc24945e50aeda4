package handlers_test

import (
	"strings"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// What WordPress and the plugin add on every save of an event, venue or organizer, whatever
// path saved it: the origin marker where missing (the plugin's addPostOrigin on wp_insert_post),
// and post_name re-sanitized by wp_insert_post on update, the old one kept in _wp_old_slug.
func TestEverySaveAddsOriginAndResanitizesTheSlug(t *testing.T) {
	const venues, organizers = "/wp-json/tribe/events/v1/venues", "/wp-json/tribe/events/v1/organizers"
	for store, f := range storeFixtures(t, handlers.Config{}) {
		metaVals := func(t *testing.T, id int64, key string) []string {
			t.Helper()
			rows, err := f.db.Query("SELECT meta_value FROM wp_postmeta WHERE post_id = ? AND meta_key = ? ORDER BY meta_id", id, key)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var v string
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				out = append(out, v)
			}
			return out
		}

		t.Run(store+"/origin", func(t *testing.T) {
			for _, tc := range []struct {
				name, method, path, key string
				id                      int64
				body                    any
				prior                   []string // origin values before the save
				want                    []string
			}{
				{"event update adds a missing origin", "POST", eventsPath + "/34", "_EventOrigin", 34, map[string]any{"title": "Annual Meetup"}, nil, []string{"events-calendar"}},
				{"event update keeps another origin", "POST", eventsPath + "/36", "_EventOrigin", 36, map[string]any{"title": "Grand Meetup 2028"}, []string{"ical-importer"}, []string{"ical-importer"}},
				{"event update adds to a falsy origin", "POST", eventsPath + "/38", "_EventOrigin", 38, map[string]any{"title": "Community Meetup"}, []string{""}, []string{"", "events-calendar"}},
				{"event trash (DELETE) adds a missing origin", "DELETE", eventsPath + "/43", "_EventOrigin", 43, nil, nil, []string{"events-calendar"}},
				{"venue update adds a missing origin", "POST", venues + "/12", "_VenueOrigin", 12, map[string]any{"venue": "Lincoln Center Hall"}, nil, []string{"events-calendar"}},
				{"venue trash (DELETE) adds a missing origin", "DELETE", venues + "/13", "_VenueOrigin", 13, nil, nil, []string{"events-calendar"}},
				{"organizer update adds a missing origin", "POST", organizers + "/24", "_OrganizerOrigin", 24, map[string]any{"organizer": "Dev Conference Org"}, nil, []string{"events-calendar"}},
				{"organizer trash (DELETE) adds a missing origin", "DELETE", organizers + "/27", "_OrganizerOrigin", 27, nil, nil, []string{"events-calendar"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					setMeta(t, f, tc.id, tc.key, tc.prior...)
					a := call(t, f.srv, tc.method, tc.path, tc.body, "admin")
					if a.status != 200 {
						t.Fatalf("status %d: %.300s", a.status, a.raw)
					}
					if got := metaVals(t, tc.id, tc.key); strings.Join(got, "|") != strings.Join(tc.want, "|") {
						t.Errorf("%s = %q, want %q", tc.key, got, tc.want)
					}
				})
			}
		})

		t.Run(store+"/slug", func(t *testing.T) {
			for _, tc := range []struct {
				name, path string
				id         int64
				stored     string
				body       map[string]any
				want       string // post_name after the save and the answer's slug
				oldSlug    bool   // the stored name is kept in _wp_old_slug
			}{
				{"a stored name with capitals and spaces is rewritten on update", eventsPath + "/44", 44, "Annual Hackathon Ü",
					map[string]any{"title": "Annual Hackathon"}, "annual-hackathon-u", true},
				{"a stored raw UTF-8 name loses its accents", eventsPath + "/45", 45, "café-workshop",
					map[string]any{"title": "Global Workshop"}, "cafe-workshop", true},
				{"a stored percent-encoded name stays", eventsPath + "/46", 46, "caf%c3%a9-exhibition",
					map[string]any{"title": "Open Exhibition"}, "caf%c3%a9-exhibition", false},
				{"a stored en dash octet becomes a hyphen and is trimmed", eventsPath + "/47", 47, "%e2%80%93-local-fair",
					map[string]any{"title": "Local Fair"}, "local-fair", true},
				{"a stored name that sanitizes to nothing takes the title's", eventsPath + "/48", 48, "%e2%80%94",
					map[string]any{"title": "Winter Hackathon"}, "winter-hackathon", true},
				{"a venue's stored name is rewritten on update", venues + "/14", 14, "Adelaide Annex",
					map[string]any{"venue": "Adelaide Convention Annex"}, "adelaide-annex", true},
				{"an organizer's stored name is rewritten on update", organizers + "/28", 28, "Tokyo Makers!",
					map[string]any{"organizer": "Tokyo Makers"}, "tokyo-makers", true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					if _, err := f.db.Exec("UPDATE wp_posts SET post_name = ? WHERE ID = ?", tc.stored, tc.id); err != nil {
						t.Fatal(err)
					}
					settle(t, f.srv)
					a := call(t, f.srv, "POST", tc.path, tc.body, "admin")
					if a.status != 200 {
						t.Fatalf("status %d: %.300s", a.status, a.raw)
					}
					name := scalar[string](t, f.db, "SELECT post_name FROM wp_posts WHERE ID = ?", tc.id)
					if name != tc.want || a.body["slug"] != tc.want {
						t.Errorf("post_name %q, answer slug %v, want %q", name, a.body["slug"], tc.want)
					}
					if url, _ := a.body["url"].(string); !strings.HasSuffix(url, "/"+tc.want+"/") {
						t.Errorf("url %q does not end in the slug %q", url, tc.want)
					}
					olds := metaVals(t, tc.id, "_wp_old_slug")
					if has := strings.Contains("|"+strings.Join(olds, "|")+"|", "|"+tc.stored+"|"); has != tc.oldSlug {
						t.Errorf("_wp_old_slug %q: holds %q = %v, want %v", olds, tc.stored, has, tc.oldSlug)
					}
					// The new slug finds the record.
					kind := "events"
					if strings.Contains(tc.path, "venues") {
						kind = "venues"
					} else if strings.Contains(tc.path, "organizers") {
						kind = "organizers"
					}
					got := call(t, f.srv, "GET", "/wp-json/tribe/events/v1/"+kind+"/by-slug/"+tc.want, nil, "admin")
					if id, _ := got.body["id"].(float64); got.status != 200 || int64(id) != tc.id {
						t.Errorf("by-slug/%s: %d %.200s", tc.want, got.status, got.raw)
					}
				})
			}
		})

		t.Run(store+"/contributors set no slug on posts pending review", func(t *testing.T) {
			a := call(t, f.srv, "POST", eventsPath, map[string]any{"title": "Contributor Slug", "slug": "my-own-slug", "status": "publish",
				"start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}, "contributor")
			if a.status != 201 {
				t.Fatalf("status %d: %.300s", a.status, a.raw)
			}
			id := idOf(t, a)
			status := scalar[string](t, f.db, "SELECT post_status FROM wp_posts WHERE ID = ?", id)
			name := scalar[string](t, f.db, "SELECT post_name FROM wp_posts WHERE ID = ?", id)
			if status != "pending" || name != "" {
				t.Errorf("status %q post_name %q, want pending with no name", status, name)
			}
			b := call(t, f.srv, "POST", eventsPath, map[string]any{"title": "Author Slug", "slug": "author-own-slug", "status": "pending",
				"start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}, "author")
			if b.status != 201 {
				t.Fatalf("status %d: %.300s", b.status, b.raw)
			}
			if n := scalar[string](t, f.db, "SELECT post_name FROM wp_posts WHERE ID = ?", idOf(t, b)); n != "author-own-slug" {
				t.Errorf("author's pending post_name %q, want author-own-slug", n)
			}
		})
	}
}
