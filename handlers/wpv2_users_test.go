package handlers_test

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// TestCoreUsersListShowsAuthorsToVisitors: GET /wp/v2/users lists, to those who may not list
// users, only authors of published posts and searches only their public columns; users with
// list_users see everyone and may filter by role and order by e-mail; the same on both stores.
func TestCoreUsersListShowsAuthorsToVisitors(t *testing.T) {
	ids := func(t *testing.T, a answer) []float64 {
		var items []map[string]any
		if err := json.Unmarshal([]byte(a.raw), &items); err != nil {
			t.Fatalf("status %d: %s", a.status, a.raw)
		}
		var out []float64
		for _, it := range items {
			id, _ := it["id"].(float64)
			out = append(out, id)
			if _, private := it["email"]; private {
				t.Errorf("user %v shows an e-mail", id)
			}
		}
		return out
	}
	for name, st := range storeFixtures(t, handlers.Config{}) {
		runGetCases(t, name, st.srv, []getCase{
			// Users 1-4 authored published posts; the subscriber (5) did not. Ordered by name.
			{"visitors_see_authors_of_published_posts", "/wp-json/wp/v2/users", "", 200, func(t *testing.T, a answer) {
				if got := ids(t, a); !slices.Equal(got, []float64{1, 3, 4, 2}) || a.header.Get("X-WP-Total") != "4" {
					t.Errorf("ids %v, X-WP-Total %s", got, a.header.Get("X-WP-Total"))
				}
			}},
			{"administrators_see_every_user", "/wp-json/wp/v2/users?orderby=id&order=desc", "admin", 200, func(t *testing.T, a answer) {
				if got := ids(t, a); !slices.Equal(got, []float64{5, 4, 3, 2, 1}) {
					t.Errorf("ids %v", got)
				}
			}},
			{"pages_link_to_the_next", "/wp-json/wp/v2/users?per_page=2", "", 200, func(t *testing.T, a answer) {
				if a.header.Get("X-WP-TotalPages") != "2" || !strings.Contains(a.header.Get("Link"), `page=2>; rel="next"`) {
					t.Errorf("X-WP-TotalPages %s, Link %s", a.header.Get("X-WP-TotalPages"), a.header.Get("Link"))
				}
			}},
			{"visitors_search_no_email", "/wp-json/wp/v2/users?search=example.com", "", 200, func(t *testing.T, a answer) {
				if got := ids(t, a); len(got) != 0 {
					t.Errorf("ids %v", got)
				}
			}},
			{"visitors_search_names", "/wp-json/wp/v2/users?search=contrib", "", 200, func(t *testing.T, a answer) {
				if got := ids(t, a); !slices.Equal(got, []float64{4}) {
					t.Errorf("ids %v", got)
				}
			}},
			{"administrators_search_email", "/wp-json/wp/v2/users?search=subscriber@", "admin", 200, func(t *testing.T, a answer) {
				if got := ids(t, a); !slices.Equal(got, []float64{5}) {
					t.Errorf("ids %v", got)
				}
			}},
			{"visitors_cannot_search_email_by_naming_it", "/wp-json/wp/v2/users?search=example.com&search_columns=email", "", 200, func(t *testing.T, a answer) {
				if got := ids(t, a); len(got) != 0 {
					t.Errorf("ids %v", got)
				}
			}},
			{"administrators_search_every_column_by_default", "/wp-json/wp/v2/users?search=example", "admin", 200, func(t *testing.T, a answer) {
				if got := ids(t, a); len(got) != 5 {
					t.Errorf("ids %v", got)
				}
			}},
			{"administrators_search_only_the_named_columns", "/wp-json/wp/v2/users?search=example&search_columns=name", "admin", 200, func(t *testing.T, a answer) {
				// "example" is in every e-mail and in no display name.
				if got := ids(t, a); len(got) != 0 {
					t.Errorf("ids %v", got)
				}
			}},
			{"administrators_filter_by_role", "/wp-json/wp/v2/users?roles=editor,subscriber", "admin", 200, func(t *testing.T, a answer) {
				if got := ids(t, a); !slices.Equal(got, []float64{2, 5}) {
					t.Errorf("ids %v", got)
				}
			}},
			{"authors_query_by_level", "/wp-json/wp/v2/users?who=authors&orderby=id", "editor", 200, func(t *testing.T, a answer) {
				if got := ids(t, a); !slices.Equal(got, []float64{1, 2, 3, 4}) {
					t.Errorf("ids %v", got)
				}
			}},
			{"roles_refused_to_visitors", "/wp-json/wp/v2/users?roles=editor", "", 401, nil},
			{"email_order_refused_to_authors", "/wp-json/wp/v2/users?orderby=email", "author", 403, nil},
			{"edit_context_refused_to_editors", "/wp-json/wp/v2/users?context=edit", "editor", 403, nil},
			{"who_refused_to_subscribers", "/wp-json/wp/v2/users?who=authors", "subscriber", 403, nil},
			{"per_page_above_100_refused", "/wp-json/wp/v2/users?per_page=101", "", 400, nil},
		})
	}
}

// TestCoreUserWithPrivatePostsShownToWhoMayReadThem: a profile is public through count_user_posts
// over the REST types, which counts private posts only for users who may read private posts of
// the type: the subscriber, made author of one private event, is visible to an editor and not to
// an author or a visitor.
func TestCoreUserWithPrivatePostsShownToWhoMayReadThem(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		if _, err := st.db.Exec("UPDATE wp_posts SET post_author = 5, post_status = 'private' WHERE ID = 34"); err != nil {
			t.Fatal(err)
		}
		settle(t, st.srv)
		for _, tc := range []struct {
			name, user string
			status     int
		}{{"visitors_refused", "", 401}, {"authors_refused", "author", 403}, {"editors_see_it", "editor", 200}} {
			t.Run(name+"_"+tc.name, func(t *testing.T) {
				if a := call(t, st.srv, "GET", "/wp-json/wp/v2/users/5", nil, tc.user); a.status != tc.status {
					t.Errorf("status %d %s, want %d", a.status, a.raw, tc.status)
				}
			})
		}
	}
}

// TestCoreUserEditContextShowsRolesAndCapabilities: the edit context (oneself, or users who may
// list users) adds login, e-mail, names, locale, registration date, roles, WP_User's allcaps (role
// capabilities, then the user's own entries, a per-user denial included) and the capabilities
// usermeta, and the edit-only persisted_preferences meta.
func TestCoreUserEditContextShowsRolesAndCapabilities(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		if _, err := st.db.Exec(`UPDATE wp_usermeta SET meta_value = 'a:2:{s:6:"author";b:1;s:10:"edit_posts";b:0;}' WHERE user_id = 3 AND meta_key = 'wp_capabilities'`); err != nil {
			t.Fatal(err)
		}
		settle(t, st.srv)
		runGetCases(t, name, st.srv, []getCase{
			{"administrators_see_the_edit_fields", "/wp-json/wp/v2/users/3?context=edit", "admin", 200, func(t *testing.T, a answer) {
				want := map[string]any{"username": "author", "email": "author@example.com", "locale": "en_US",
					"registered_date": "2026-11-22T04:28:50+00:00", "first_name": "Author", "last_name": "User", "nickname": "author"}
				for k, v := range want {
					if a.body[k] != v {
						t.Errorf("%s = %v, want %v", k, a.body[k], v)
					}
				}
				roles, _ := a.body["roles"].([]any)
				caps, _ := a.body["capabilities"].(map[string]any)
				if len(roles) != 1 || roles[0] != "author" || caps["upload_files"] != true || caps["edit_posts"] != false || caps["author"] != true {
					t.Errorf("roles %v capabilities %v", roles, caps)
				}
				// allcaps: the role's capabilities in their order (a per-user denial overwrites one in
				// place, as array_merge does), then the user's new keys (the role's own name).
				if !strings.Contains(a.raw, `"capabilities":{"upload_files":true,"edit_posts":false,`) ||
					!strings.Contains(a.raw, `"author":true},"extra_capabilities":{"author":true,"edit_posts":false}`) {
					t.Errorf("capabilities order: %s", a.raw)
				}
				meta, _ := a.body["meta"].(map[string]any)
				if prefs, _ := meta["persisted_preferences"].([]any); prefs == nil || len(prefs) != 0 {
					t.Errorf("meta %v", a.body["meta"])
				}
			}},
			{"users_see_their_own_edit_fields", "/wp-json/wp/v2/users/5?context=edit", "subscriber", 200, func(t *testing.T, a answer) {
				if a.body["username"] != "subscriber" {
					t.Errorf("answer %s", a.raw)
				}
			}},
			{"others_refused", "/wp-json/wp/v2/users/3?context=edit", "editor", 403, nil},
			{"list_in_the_edit_context", "/wp-json/wp/v2/users?context=edit&orderby=id", "admin", 200, func(t *testing.T, a answer) {
				var items []map[string]any
				if err := json.Unmarshal([]byte(a.raw), &items); err != nil || len(items) != 5 {
					t.Fatalf("%s", a.raw)
				}
				for i, it := range items {
					if it["username"] == nil || it["id"] != float64(i+1) {
						t.Errorf("item %d: %v", i, it)
					}
				}
			}},
		})
	}
}

// getCase is one GET request of a table-driven wp/v2 test: the answer's status, then its checks.
type getCase struct {
	name, path, user string
	status           int
	check            func(t *testing.T, a answer)
}

// runGetCases sends each case as its user and checks the status, then the case's own checks.
func runGetCases(t *testing.T, prefix string, srv *httptest.Server, cases []getCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(prefix+"_"+tc.name, func(t *testing.T) {
			a := call(t, srv, "GET", tc.path, nil, tc.user)
			if a.status != tc.status {
				t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.raw)
			}
			if tc.check != nil {
				tc.check(t, a)
			}
		})
	}
}
