package handlers_test

import (
	"database/sql"
	"net/http"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// eventIDsIn returns the IDs of a plugin event list answer.
func eventIDsIn(a answer) map[float64]bool {
	out := map[float64]bool{}
	evs, _ := a.body["events"].([]any)
	for _, e := range evs {
		if m, ok := e.(map[string]any); ok {
			id, _ := m["id"].(float64)
			out[id] = true
		}
	}
	return out
}

// TestCoreHardDeleteRemovesTheEventEverywhere sends the plugin vendor's MCP server's permanent
// delete (DELETE /wp-json/wp/v2/tribe_events/ID?force=true), in both route forms, on both stores:
// the answer is WordPress' {"deleted":true,"previous":{...}}, every row of the event is gone, the
// term counts are recomputed, and the plugin's own routes no longer know it.
func TestCoreHardDeleteRemovesTheEventEverywhere(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				form string
				id   string
				path string
			}{
				{"pretty", "46", "/wp-json/wp/v2/tribe_events/46?force=true"},
				{"rest_route", "47", "/?rest_route=/wp/v2/tribe_events/47&force=true"},
			} {
				t.Run(tc.form+"_deletes_every_row", func(t *testing.T) {
					day := scalar[string](t, st.db, "SELECT SUBSTR(meta_value, 1, 10) FROM wp_postmeta WHERE post_id = ? AND meta_key = '_EventStartDate'", tc.id)
					window := "/wp-json/tribe/events/v1/events?per_page=50&start_date=" + day + "&end_date=" + day
					before := call(t, st.srv, "GET", window, nil, "")
					if !eventIDsIn(before)[atof(tc.id)] {
						t.Fatalf("event %s not listed before the delete", tc.id)
					}
					counts := termCounts(t, st.db, tc.id)
					if len(counts) == 0 {
						t.Fatalf("fixture event %s has no terms to recount", tc.id)
					}

					a := call(t, st.srv, "DELETE", tc.path, nil, "admin")
					if a.status != 200 || a.body["deleted"] != true {
						t.Fatalf("status %d body %s", a.status, a.raw)
					}
					prev, _ := a.body["previous"].(map[string]any)
					if prev["id"] != atof(tc.id) || prev["status"] != "publish" || prev["type"] != "tribe_events" {
						t.Errorf("previous = %v", prev)
					}
					if _, has := prev["_links"]; has {
						t.Error("previous carries _links; WordPress sends the data alone")
					}
					for _, q := range []string{
						"SELECT COUNT(*) FROM wp_posts WHERE ID = ? OR (post_parent = ? AND post_type = 'revision')",
						"SELECT COUNT(*) FROM wp_postmeta WHERE post_id = ? OR post_id = ?",
						"SELECT COUNT(*) FROM wp_term_relationships WHERE object_id = ? OR object_id = ?",
						"SELECT COUNT(*) FROM wp_tec_events WHERE post_id = ? OR post_id = ?",
						"SELECT COUNT(*) FROM wp_tec_occurrences WHERE post_id = ? OR post_id = ?",
					} {
						if n := scalar[int](t, st.db, q, tc.id, tc.id); n != 0 {
							t.Errorf("%s: %d rows left", q, n)
						}
					}
					// Each term the published event had counts one post less.
					for tt, n := range counts {
						if got := scalar[int](t, st.db, "SELECT count FROM wp_term_taxonomy WHERE term_taxonomy_id = ?", tt); got != n-1 {
							t.Errorf("term_taxonomy %d count %d, want %d", tt, got, n-1)
						}
					}

					if g := call(t, st.srv, "GET", "/wp-json/tribe/events/v1/events/"+tc.id, nil, "admin"); g.status != 404 || g.body["code"] != "rest-event-not-found" {
						t.Errorf("plugin single after delete: %d %s", g.status, g.raw)
					}
					if eventIDsIn(call(t, st.srv, "GET", window, nil, ""))[atof(tc.id)] {
						t.Error("the plugin's list still shows the deleted event")
					}
					again := call(t, st.srv, "DELETE", tc.path, nil, "admin")
					if again.status != 404 || again.body["code"] != "rest_post_invalid_id" {
						t.Errorf("second delete: %d %s", again.status, again.raw)
					}
				})
			}
		})
	}
}

// termCounts maps the term_taxonomy rows of a post to their counts.
func termCounts(t *testing.T, db *sql.DB, id string) map[int]int {
	t.Helper()
	rows, err := db.Query("SELECT tt.term_taxonomy_id, tt.count FROM wp_term_taxonomy tt JOIN wp_term_relationships tr ON tr.term_taxonomy_id = tt.term_taxonomy_id WHERE tr.object_id = ?", id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int]int{}
	for rows.Next() {
		var tt, n int
		if err := rows.Scan(&tt, &n); err != nil {
			t.Fatal(err)
		}
		out[tt] = n
	}
	return out
}

func atof(s string) float64 {
	var f float64
	for _, c := range s {
		f = f*10 + float64(c-'0')
	}
	return f
}

// TestCoreDeletePermissionsFollowEachRole replays the reference's delete permissions: only those
// with delete_post on the event may trash or delete it; refusals are WordPress' rest_cannot_delete
// (401 anonymous, 403 logged in) and change nothing.
func TestCoreDeletePermissionsFollowEachRole(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				name, user, id, query string
				status                int
				code                  string
			}{
				{"anonymous_is_refused_401", "", "36", "", 401, "rest_cannot_delete"},
				{"subscriber_is_refused_403", "subscriber", "38", "?force=true", 403, "rest_cannot_delete"},
				{"contributor_may_not_delete_others", "contributor", "41", "", 403, "rest_cannot_delete"},
				{"author_may_not_delete_others", "author", "43", "?force=true", 403, "rest_cannot_delete"},
				{"contributor_may_not_delete_own_published", "contributor", "189", "", 403, "rest_cannot_delete"},
				{"bad_force_is_rest_invalid_param", "admin", "50", "?force=maybe", 400, "rest_invalid_param"},
				{"venue_id_is_not_an_event", "admin", "10", "?force=true", 404, "rest_post_invalid_id"},
				{"unknown_id_is_404", "admin", "999999", "?force=true", 404, "rest_post_invalid_id"},
				{"trashed_event_cannot_be_trashed_again", "admin", "93", "", 410, "rest_already_trashed"},
				{"editor_trashes_others", "editor", "44", "", 200, ""},
				{"author_deletes_own_published", "author", "168", "?force=true", 200, ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					before := rowCounts(t, st.db)
					a := call(t, st.srv, "DELETE", "/wp-json/wp/v2/tribe_events/"+tc.id+tc.query, nil, tc.user)
					if a.status != tc.status {
						t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.raw)
					}
					if tc.code != "" {
						if a.body["code"] != tc.code {
							t.Errorf("code %v, want %s", a.body["code"], tc.code)
						}
						if after := rowCounts(t, st.db); after != before {
							t.Errorf("refused delete changed rows: %s -> %s", before, after)
						}
						return
					}
					if tc.query == "" && a.body["status"] != "trash" {
						t.Errorf("trash answered status %v", a.body["status"])
					}
					if tc.query != "" && a.body["deleted"] != true {
						t.Errorf("delete answered %s", a.raw)
					}
				})
			}
		})
	}
}

// TestCoreSettingsOnlyForAdministrators: wp/v2/settings answers administrators with the site's
// settings (in both route forms) and everyone else with rest_forbidden.
func TestCoreSettingsOnlyForAdministrators(t *testing.T) {
	srv, _, _ := fixtureServerIn(t, eventsNow, "wv")
	for _, tc := range []struct {
		user   string
		status int
	}{{"", 401}, {"subscriber", 403}, {"contributor", 403}, {"author", 403}, {"editor", 403}, {"admin", 200}} {
		t.Run("role_"+tc.user+"_gets_"+itoa(tc.status), func(t *testing.T) {
			for _, path := range []string{"/wp-json/wp/v2/settings", "/?rest_route=/wp/v2/settings"} {
				a := call(t, srv, "GET", path, nil, tc.user)
				if a.status != tc.status {
					t.Fatalf("%s: status %d: %s", path, a.status, a.raw)
				}
				if tc.status != 200 {
					if a.body["code"] != "rest_forbidden" {
						t.Errorf("code %v", a.body["code"])
					}
					continue
				}
				if a.body["timezone"] != "America/New_York" || a.body["start_of_week"] != float64(1) || a.body["use_smilies"] != true {
					t.Errorf("settings %s", a.raw)
				}
			}
		})
	}
}

// TestCoreSingleAnswersHeadAndOptions: HEAD gets the GET's headers without a body; OPTIONS
// describes the route in the wp/v2 namespace.
func TestCoreSingleAnswersHeadAndOptions(t *testing.T) {
	srv, _, _ := fixtureServerIn(t, eventsNow, "wh")
	req, _ := http.NewRequest("HEAD", srv.URL+"/wp-json/wp/v2/tribe_events/34", nil)
	h := do(t, req)
	if h.status != 200 || h.raw != "" || h.header.Get("Allow") != "GET" {
		t.Errorf("HEAD: %d %q allow %q", h.status, h.raw, h.header.Get("Allow"))
	}
	o := call(t, srv, "OPTIONS", "/wp-json/wp/v2/tribe_events/34", nil, "admin")
	if o.status != 200 || o.body["namespace"] != "wp/v2" {
		t.Errorf("OPTIONS: %d %s", o.status, o.raw)
	}
}
