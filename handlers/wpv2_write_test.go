package handlers_test

import (
	"testing"

	"github.com/calendard/calendard/handlers"
)

// TestCoreCreateWithRefusedMetaWritesNothing: where WordPress inserts the draft and then refuses a
// meta value (a half-write), calendard answers the same error and no row changes; the next create
// still gets a fresh ID (the refused insert's ID stays used, as MariaDB keeps it), on both stores.
func TestCoreCreateWithRefusedMetaWritesNothing(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				name, param, typ string
				meta             map[string]any
			}{
				{"bad_boolean_is_rest_invalid_type", "meta._EventAllDay", "boolean", map[string]any{"_EventAllDay": "maybe"}},
				{"bad_id_list_item_is_rest_invalid_type", "meta._EventVenueID[0]", "number", map[string]any{"_EventVenueID": "abc"}},
				{"number_for_text_is_rest_invalid_type", "meta._EventCost", "string", map[string]any{"_EventCost": 5, "_EventURL": "https://x.example"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					before := rowCounts(t, st.db)
					a := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "x", "status": "publish", "meta": tc.meta}, "admin")
					if a.status != 400 || a.body["code"] != "rest_invalid_type" || a.body["message"] != tc.param+" is not of type "+tc.typ+"." {
						t.Fatalf("status %d body %s", a.status, a.raw)
					}
					extra, _ := a.body["additional_data"].([]any)
					if len(extra) != 1 || extra[0].(map[string]any)["param"] != tc.param {
						t.Errorf("additional_data %v", a.body["additional_data"])
					}
					if after := rowCounts(t, st.db); after != before {
						t.Errorf("refused create changed rows: %s -> %s", before, after)
					}
				})
			}
			t.Run("a_later_create_gets_a_new_id", func(t *testing.T) {
				maxID := scalar[int](t, st.db, "SELECT MAX(ID) FROM wp_posts")
				a := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "after"}, "admin")
				if a.status != 201 {
					t.Fatalf("status %d: %s", a.status, a.raw)
				}
				if id := int(a.body["id"].(float64)); id <= maxID+1 {
					t.Errorf("id %d reuses an ID a refused create used (max before %d)", id, maxID)
				}
			})
		})
	}
}

// TestCoreCreateAndUpdateWriteWhatWordPressWrites: a create stores the post, its origin marker, its
// terms and its meta as update_metadata does; an update of an event re-saves its cost (the plugin's
// rest_after_insert hook), recomputes the UTC dates when the JSON meta sends dates, and rebuilds the
// custom-table row from them.
func TestCoreCreateAndUpdateWriteWhatWordPressWrites(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name, func(t *testing.T) {
			t.Run("create_stores_post_terms_and_meta", func(t *testing.T) {
				a := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_events", map[string]any{
					"title": "Made in wp/v2", "status": "publish", "tribe_events_cat": []int{2, 99999}, "tags": []int{11},
					"meta": map[string]any{"_EventAllDay": true, "_EventOrganizerID": []int{22, 23}, "_EventCost": "25", "_NotRegistered": "y"},
				}, "admin")
				if a.status != 201 || a.body["status"] != "publish" || a.body["slug"] != "made-in-wp-v2" {
					t.Fatalf("status %d body %s", a.status, a.raw)
				}
				id := int(a.body["id"].(float64))
				if loc := a.header.Get("Location"); loc == "" || loc[len(loc)-len(itoa(id)):] != itoa(id) {
					t.Errorf("Location %q", loc)
				}
				for key, want := range map[string]string{"_EventOrigin": "events-calendar", "_EventAllDay": "1", "_EventCost": "25"} {
					if got := scalar[string](t, st.db, "SELECT meta_value FROM wp_postmeta WHERE post_id = ? AND meta_key = ?", id, key); got != want {
						t.Errorf("%s = %q, want %q", key, got, want)
					}
				}
				if n := scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_postmeta WHERE post_id = ? AND meta_key = '_EventOrganizerID'", id); n != 2 {
					t.Errorf("%d organizer rows, want 2", n)
				}
				if n := scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_postmeta WHERE post_id = ? AND meta_key = '_NotRegistered'", id); n != 0 {
					t.Error("an unregistered meta key was stored")
				}
				if n := scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_term_relationships WHERE object_id = ?", id); n != 2 {
					t.Errorf("%d term relationships, want 2 (the unknown category skipped)", n)
				}
			})
			t.Run("update_resaves_cost_and_rebuilds_dates", func(t *testing.T) {
				a := call(t, st.srv, "POST", "/wp-json/wp/v2/tribe_events/41", map[string]any{
					"meta": map[string]any{"_EventStartDate": "2027-09-01 09:00:00", "_EventEndDate": "2027-09-01 17:00:00"},
				}, "admin")
				if a.status != 200 {
					t.Fatalf("status %d body %s", a.status, a.raw)
				}
				zone := scalar[string](t, st.db, "SELECT meta_value FROM wp_postmeta WHERE post_id = 41 AND meta_key = '_EventTimezone'")
				if zone != "UTC" {
					t.Fatalf("fixture event 41 zone %q; the test expects UTC", zone)
				}
				if got := scalar[string](t, st.db, "SELECT meta_value FROM wp_postmeta WHERE post_id = 41 AND meta_key = '_EventStartDateUTC'"); got != "2027-09-01 09:00:00" {
					t.Errorf("_EventStartDateUTC %q", got)
				}
				if got := scalar[string](t, st.db, "SELECT start_date_utc FROM wp_tec_events WHERE post_id = 41"); got != "2027-09-01 09:00:00" {
					t.Errorf("tec_events start_date_utc %q", got)
				}
				if n := scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_postmeta WHERE post_id = 41 AND meta_key = '_EventCost'"); n != 1 {
					t.Errorf("%d cost rows after the re-save, want 1", n)
				}
			})
		})
	}
}

// TestCoreWritePermissionsFollowEachRole: create and update answer each role as WordPress does, and
// a refused write changes nothing.
func TestCoreWritePermissionsFollowEachRole(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				name, user, method, path string
				body                     map[string]any
				status                   int
				code                     string
			}{
				{"anonymous_cannot_create", "", "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "x"}, 401, "rest_cannot_create"},
				{"subscriber_cannot_create", "subscriber", "POST", "/wp-json/wp/v2/tribe_venue", map[string]any{"title": "x"}, 403, "rest_cannot_create"},
				{"contributor_cannot_publish", "contributor", "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "x", "status": "publish"}, 403, "rest_cannot_publish"},
				{"author_cannot_create_for_another", "author", "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "x", "author": 2}, 403, "rest_cannot_edit_others"},
				{"author_cannot_edit_others", "author", "POST", "/wp-json/wp/v2/tribe_events/34", map[string]any{"title": "x"}, 403, "rest_cannot_edit"},
				{"contributor_cannot_edit_own_published", "contributor", "PUT", "/wp-json/wp/v2/tribe_events/50", map[string]any{"title": "x"}, 403, "rest_cannot_edit"},
				{"create_with_id_is_refused", "admin", "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "x", "id": 34}, 400, "rest_post_exists"},
				{"unknown_author_is_refused", "admin", "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "x", "author": 9999}, 400, "rest_invalid_author"},
				{"bad_status_is_refused", "admin", "PATCH", "/wp-json/wp/v2/tribe_events/41", map[string]any{"status": "bogus"}, 400, "rest_invalid_param"},
				{"empty_post_is_refused", "admin", "POST", "/wp-json/wp/v2/tribe_events", map[string]any{}, 400, "empty_content"},
				{"venue_id_is_not_an_event", "admin", "POST", "/wp-json/wp/v2/tribe_events/10", map[string]any{"title": "x"}, 404, "rest_post_invalid_id"},
				{"contributor_creates_a_draft", "contributor", "POST", "/wp-json/wp/v2/tribe_events", map[string]any{"title": "Contrib draft"}, 201, ""},
				{"editor_edits_others", "editor", "POST", "/wp-json/wp/v2/tribe_organizer/22", map[string]any{"title": "By editor"}, 200, ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					before := rowCounts(t, st.db)
					a := call(t, st.srv, tc.method, tc.path, tc.body, tc.user)
					if a.status != tc.status {
						t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.raw)
					}
					if tc.code == "" {
						if after := rowCounts(t, st.db); after == before {
							t.Error("the write changed no row")
						}
						return
					}
					if a.body["code"] != tc.code {
						t.Errorf("code %v, want %s", a.body["code"], tc.code)
					}
					if after := rowCounts(t, st.db); after != before {
						t.Errorf("refused write changed rows: %s -> %s", before, after)
					}
				})
			}
		})
	}
}

// TestCoreSettingsUpdate: administrators change settings (a zone PHP does not know is ignored, as
// sanitize_option keeps the stored one); others get rest_forbidden and nothing changes.
func TestCoreSettingsUpdate(t *testing.T) {
	srv, db, _ := fixtureServerIn(t, eventsNow, "ws")
	if a := call(t, srv, "POST", "/wp-json/wp/v2/settings", map[string]any{"title": "x"}, "editor"); a.status != 403 || a.body["code"] != "rest_forbidden" {
		t.Errorf("editor: %d %s", a.status, a.raw)
	}
	if got := scalar[string](t, db, "SELECT option_value FROM wp_options WHERE option_name = 'blogname'"); got == "x" {
		t.Error("a refused settings update changed blogname")
	}
	for _, tc := range []struct {
		name string
		body map[string]any
		key  string
		want any
	}{
		{"title_is_stored", map[string]any{"title": "Renamed Site"}, "title", "Renamed Site"},
		{"unknown_zone_is_ignored", map[string]any{"timezone": "Mars/Base"}, "timezone", "America/New_York"},
		{"zone_and_week_start_are_stored", map[string]any{"timezone": "Europe/Paris", "start_of_week": 0}, "start_of_week", float64(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := call(t, srv, "POST", "/wp-json/wp/v2/settings", tc.body, "admin")
			if a.status != 200 || a.body[tc.key] != tc.want {
				t.Fatalf("status %d %s = %v: %s", a.status, tc.key, a.body[tc.key], a.raw)
			}
			if g := call(t, srv, "GET", "/wp-json/wp/v2/settings", nil, "admin"); g.body[tc.key] != tc.want {
				t.Errorf("read back %s = %v", tc.key, g.body[tc.key])
			}
		})
	}
	if got := scalar[string](t, db, "SELECT option_value FROM wp_options WHERE option_name = 'timezone_string'"); got != "Europe/Paris" {
		t.Errorf("timezone_string %q", got)
	}
}
