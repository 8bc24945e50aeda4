package handlers_test

import (
	"encoding/json"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// coreListIDs decodes a wp/v2 collection answer into its items' IDs.
func coreListIDs(t *testing.T, a answer) []float64 {
	t.Helper()
	var items []map[string]any
	if err := json.Unmarshal([]byte(a.raw), &items); err != nil {
		t.Fatalf("not a list (%d): %s", a.status, a.raw)
	}
	out := make([]float64, len(items))
	for i, it := range items {
		out[i], _ = it["id"].(float64)
	}
	return out
}

func sameIDs(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// detail is the message rest_invalid_param gives one parameter.
func detail(a answer, param string) any {
	data, _ := a.body["data"].(map[string]any)
	params, _ := data["params"].(map[string]any)
	return params[param]
}

// TestCoreTermListsFollowWordPressParameters covers the wp/v2 term list parameters the recorded set
// does not reach, on both stores: offset (flat taxonomies only) and the page WordPress derives back
// from it in the Link header, slug lists ordered by include_slugs, the schema validation of arrays,
// enums and bounds, and the post filter's permission.
func TestCoreTermListsFollowWordPressParameters(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				name, path, user string
				status           int
				ids              []float64 // for 200 answers
				link             string    // Link header, when set
				code, param, msg string    // for errors: code, and the parameter's message
			}{
				{name: "offset_skips_terms_and_links_the_page_it_falls_in", path: "/wp-json/wp/v2/tags?offset=3&per_page=2&_fields=id",
					status: 200, ids: []float64{12, 13},
					link: `<http://127.0.0.1:8088/wp-json/wp/v2/tags?offset=3&per_page=2&_fields=id&page=2>; rel="prev", <http://127.0.0.1:8088/wp-json/wp/v2/tags?offset=3&per_page=2&_fields=id&page=4>; rel="next"`},
				{name: "slug_list_ordered_as_given_with_include_slugs", path: "/wp-json/wp/v2/tribe_events_cat?slug[]=music&slug[]=jazz&orderby=include_slugs",
					status: 200, ids: []float64{2, 3}},
				{name: "slug_list_ordered_by_name_by_default", path: "/wp-json/wp/v2/tribe_events_cat?slug=music,jazz",
					status: 200, ids: []float64{3, 2}},
				{name: "desc_order_reverses_names", path: "/wp-json/wp/v2/tags?order=desc&per_page=3", status: 200, ids: []float64{19, 16, 17}},
				{name: "offset_is_not_a_category_parameter", path: "/wp-json/wp/v2/tribe_events_cat?offset=8&_fields=id", status: 200,
					ids: []float64{7, 10, 3, 9, 2, 4, 6, 5, 8}},
				{name: "include_items_must_be_integers", path: "/wp-json/wp/v2/tags?include=12,abc", status: 400,
					code: "rest_invalid_param", param: "include", msg: "include[1] is not of type integer."},
				{name: "order_is_case_sensitive", path: "/wp-json/wp/v2/tags?order=ASC", status: 400,
					code: "rest_invalid_param", param: "order", msg: "order is not one of asc and desc."},
				{name: "page_zero_is_out_of_bounds", path: "/wp-json/wp/v2/tags?page=0", status: 400,
					code: "rest_invalid_param", param: "page", msg: "page must be greater than or equal to 1"},
				{name: "per_page_fraction_is_not_an_integer", path: "/wp-json/wp/v2/tags?per_page=2.5", status: 400,
					code: "rest_invalid_param", param: "per_page", msg: "per_page is not of type integer."},
				{name: "venue_has_no_categories_to_show", path: "/wp-json/wp/v2/tribe_events_cat?post=10", status: 401,
					code: "rest_forbidden_context"},
				{name: "venue_terms_refused_to_admin_too", path: "/wp-json/wp/v2/tags?post=10", user: "admin", status: 403,
					code: "rest_forbidden_context"},
				{name: "contributor_may_not_list_tags_for_editing", path: "/wp-json/wp/v2/tags?context=edit", user: "contributor",
					status: 403, code: "rest_forbidden_context"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					a := call(t, st.srv, "GET", tc.path, nil, tc.user)
					if a.status != tc.status {
						t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.raw)
					}
					if tc.status != 200 {
						if a.body["code"] != tc.code {
							t.Errorf("code %v, want %s", a.body["code"], tc.code)
						}
						if tc.param != "" && detail(a, tc.param) != tc.msg {
							t.Errorf("%s: %v, want %q", tc.param, detail(a, tc.param), tc.msg)
						}
						return
					}
					if got := coreListIDs(t, a); !sameIDs(got, tc.ids) {
						t.Errorf("ids %v, want %v", got, tc.ids)
					}
					if tc.link != "" {
						if got := a.header.Get("Link"); got != tc.link {
							t.Errorf("Link %s\nwant %s", got, tc.link)
						}
					}
				})
			}
		})
	}
}

// TestCoreTermWritesChangeRowsLikeWordPress writes through the wp/v2 term routes on both stores:
// each answer is WordPress', and the rows are what wp_insert_term, wp_update_term and wp_delete_term
// leave; refused writes leave every row as it was.
func TestCoreTermWritesChangeRowsLikeWordPress(t *testing.T) {
	termRows := func(t *testing.T, st storeFixture) string {
		return itoa(scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_terms")) + "/" +
			itoa(scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_term_taxonomy")) + "/" +
			itoa(scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_term_relationships"))
	}
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				name, method, path, user string
				body                     any
				status                   int
				code                     string
			}{
				{"tags_take_no_parent", "POST", "/wp-json/wp/v2/tags", "admin", map[string]any{"name": "Orphan", "parent": 2}, 400, "rest_taxonomy_not_hierarchical"},
				{"name_must_be_a_string", "POST", "/wp-json/wp/v2/tribe_events_cat", "admin", map[string]any{"name": 123}, 400, "rest_invalid_param"},
				{"meta_must_be_an_array", "POST", "/wp-json/wp/v2/tribe_events_cat", "admin", map[string]any{"name": "M", "meta": "x"}, 400, "rest_invalid_param"},
				{"empty_name_is_refused", "POST", "/wp-json/wp/v2/tags", "admin", map[string]any{"name": "  "}, 400, "empty_term_name"},
				{"no_force_no_trash", "DELETE", "/wp-json/wp/v2/tags/15?force=false", "admin", nil, 501, "rest_trash_not_supported"},
				{"unknown_term_is_404", "PATCH", "/wp-json/wp/v2/tags/99999", "admin", map[string]any{"name": "X"}, 404, "rest_term_invalid"},
				{"category_id_is_not_a_tag", "DELETE", "/wp-json/wp/v2/tags/2?force=true", "admin", nil, 404, "rest_term_invalid"},
				{"author_may_not_edit_tags", "PUT", "/wp-json/wp/v2/tags/15", "author", map[string]any{"name": "X"}, 403, "rest_cannot_update"},
				{"anonymous_may_not_delete", "DELETE", "/wp-json/wp/v2/tribe_events_cat/10?force=true", "", nil, 401, "rest_cannot_delete"},
			} {
				t.Run("refused_"+tc.name, func(t *testing.T) {
					before := termRows(t, st)
					a := call(t, st.srv, tc.method, tc.path, tc.body, tc.user)
					if a.status != tc.status || a.body["code"] != tc.code {
						t.Fatalf("%d %s, want %d %s", a.status, a.raw, tc.status, tc.code)
					}
					if after := termRows(t, st); after != before {
						t.Errorf("rows changed: %s -> %s", before, after)
					}
				})
			}

			t.Run("contributor_creates_a_tag_it_then_may_not_edit", func(t *testing.T) {
				a := call(t, st.srv, "POST", "/wp-json/wp/v2/tags", map[string]any{"name": "Brass & Wind", "slug": "Brass Wind!"}, "contributor")
				if a.status != 201 || a.body["name"] != "Brass &amp; Wind" || a.body["slug"] != "brass-wind" {
					t.Fatalf("%d %s", a.status, a.raw)
				}
				// The answer's context is edit, which a contributor may not list in: only POST is allowed.
				if got := a.header.Get("Allow"); got != "POST" {
					t.Errorf("Allow %q, want POST", got)
				}
				id := a.body["id"].(float64)
				if scalar[string](t, st.db, "SELECT taxonomy FROM wp_term_taxonomy WHERE term_id = ?", id) != "post_tag" {
					t.Error("no post_tag row")
				}
			})

			t.Run("put_moves_a_category_and_renames_it", func(t *testing.T) {
				a := call(t, st.srv, "PUT", "/wp-json/wp/v2/tribe_events_cat/9", map[string]any{"parent": 5, "name": "Youth"}, "editor")
				if a.status != 200 || a.body["parent"] != float64(5) || a.body["name"] != "Youth" ||
					a.body["link"] != "http://127.0.0.1:8088/events/category/sports/kids-workshops/" {
					t.Fatalf("%d %s", a.status, a.raw)
				}
				if got := scalar[int](t, st.db, "SELECT parent FROM wp_term_taxonomy WHERE term_id = 9"); got != 5 {
					t.Errorf("parent %d", got)
				}
			})

			t.Run("deleting_a_parent_category_moves_its_children_up", func(t *testing.T) {
				rels := scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_term_relationships WHERE term_taxonomy_id = 2")
				if rels == 0 {
					t.Fatal("fixture category 2 has no events")
				}
				a := call(t, st.srv, "DELETE", "/wp-json/wp/v2/tribe_events_cat/2?force=true", nil, "author")
				prev, _ := a.body["previous"].(map[string]any)
				if a.status != 200 || a.body["deleted"] != true || prev["id"] != float64(2) || prev["count"] != float64(17) {
					t.Fatalf("%d %s", a.status, a.raw)
				}
				if _, has := prev["_links"]; has {
					t.Error("previous carries _links")
				}
				// The term is gone: no method is allowed on it any more.
				if got := a.header.Get("Allow"); got != "" {
					t.Errorf("Allow %q after the delete", got)
				}
				for q, want := range map[string]int{
					"SELECT COUNT(*) FROM wp_terms WHERE term_id = 2":                                          0,
					"SELECT COUNT(*) FROM wp_term_taxonomy WHERE term_id = 2":                                  0,
					"SELECT COUNT(*) FROM wp_term_relationships WHERE term_taxonomy_id = 2":                    0,
					"SELECT COUNT(*) FROM wp_term_taxonomy WHERE term_id IN (3, 4) AND parent = 0":             2,
					"SELECT COUNT(*) FROM wp_term_taxonomy WHERE taxonomy = 'tribe_events_cat' AND parent = 2": 0,
				} {
					if got := scalar[int](t, st.db, q); got != want {
						t.Errorf("%s: %d, want %d", q, got, want)
					}
				}
				if g := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events_cat/3", nil, ""); g.status != 200 || g.body["parent"] != float64(0) {
					t.Errorf("child after delete: %d %s", g.status, g.raw)
				}
			})
		})
	}
}

// TestCoreTermOptionsAllowWhatTheUserMay: OPTIONS on a single term describes the route with its
// schema, and its Allow header runs the permission checks on that term for the user.
func TestCoreTermOptionsAllowWhatTheUserMay(t *testing.T) {
	srv, _, _ := fixtureServerIn(t, eventsNow, "wo")
	for _, tc := range []struct{ user, path, allow string }{
		{"editor", "/wp-json/wp/v2/tags/11", "GET, POST, PUT, PATCH, DELETE"},
		{"author", "/wp-json/wp/v2/tags/11", "GET"},
		{"author", "/wp-json/wp/v2/tribe_events_cat/2", "GET, POST, PUT, PATCH, DELETE"},
		{"subscriber", "/?rest_route=/wp/v2/tribe_events_cat/2", "GET"},
		{"editor", "/wp-json/wp/v2/tags/99999", ""},
	} {
		t.Run(tc.user+"_on_"+tc.path+"_allows_"+tc.allow, func(t *testing.T) {
			a := call(t, srv, "OPTIONS", tc.path, nil, tc.user)
			if a.status != 200 || a.header.Get("Allow") != tc.allow {
				t.Fatalf("%d allow %q: %s", a.status, a.header.Get("Allow"), a.raw)
			}
			s, _ := a.body["schema"].(map[string]any)
			if s["type"] != "object" || a.body["namespace"] != "wp/v2" {
				t.Errorf("no item schema: %s", a.raw)
			}
		})
	}
}

// TestCoreTermEmbedsItsParent: _embed on a child category embeds its parent (the "up" link) in the
// embed context, which leaves out count, description, parent and meta.
func TestCoreTermEmbedsItsParent(t *testing.T) {
	srv, _, _ := fixtureServerIn(t, eventsNow, "we")
	for _, tc := range []struct{ name, path string }{
		{"single_embeds_music_as_jazz_parent", "/wp-json/wp/v2/tribe_events_cat/3?_embed"},
		{"list_item_embeds_music_when_up_is_asked", "/wp-json/wp/v2/tribe_events_cat?include=3&_embed=up"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := call(t, srv, "GET", tc.path, nil, "")
			item := a.body
			if item == nil {
				var items []map[string]any
				if err := json.Unmarshal([]byte(a.raw), &items); err != nil || len(items) != 1 {
					t.Fatalf("%d %s", a.status, a.raw)
				}
				item = items[0]
			}
			emb, _ := item["_embedded"].(map[string]any)
			up, _ := emb["up"].([]any)
			if a.status != 200 || len(up) != 1 {
				t.Fatalf("%d %s", a.status, a.raw)
			}
			parent, _ := up[0].(map[string]any)
			if parent["id"] != float64(2) || parent["name"] != "Music" || parent["link"] != "http://127.0.0.1:8088/events/category/music/" {
				t.Errorf("embedded parent %v", parent)
			}
			for _, k := range []string{"count", "description", "parent", "meta"} {
				if _, has := parent[k]; has {
					t.Errorf("embedded parent has %s", k)
				}
			}
		})
	}
}
