package handlers_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/calendard/calendard/wpdb"
)

// Fixture terms the tests rely on. Categories: 2 Music, 3 Jazz (under 2), 4 Rock &amp; Roll (under
// 2), 5 Sports, 6 Running (under 5), 7 Conferences. Tags: 11 Live Music, 12 food-drink, 15 Charity.
// New terms get ID 21 onwards.

// termAppPasswords are the fixture users' application passwords.
// termCall sends a JSON request to a path under the tribe namespace as user ("" for anonymous).
func termCall(t *testing.T, srv *httptest.Server, method, path string, body any, user string) answer {
	t.Helper()
	return call(t, srv, method, "/wp-json/tribe/events/v1/"+path, body, user)
}

// storedTerm is a term as the database holds it.
type storedTerm struct {
	Name, Slug, Taxonomy, Description string
	Parent, Count                     int64
}

// termRow reads a term; ok is false when it does not exist.
func termRow(t *testing.T, db *sql.DB, id int64) (storedTerm, bool) {
	t.Helper()
	var s storedTerm
	err := db.QueryRow(`SELECT t.name, t.slug, tt.taxonomy, tt.description, tt.parent, tt.count FROM wp_terms t
		JOIN wp_term_taxonomy tt ON tt.term_id = t.term_id WHERE t.term_id = ?`, id).
		Scan(&s.Name, &s.Slug, &s.Taxonomy, &s.Description, &s.Parent, &s.Count)
	if errors.Is(err, sql.ErrNoRows) {
		return s, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return s, true
}

// termTables dumps every row of the term tables, to prove a request changed nothing.
func termTables(t *testing.T, db *sql.DB) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		"SELECT CONCAT_WS('|', term_id, name, slug, term_group) FROM wp_terms ORDER BY term_id",
		"SELECT CONCAT_WS('|', term_taxonomy_id, term_id, taxonomy, description, parent, count) FROM wp_term_taxonomy ORDER BY term_taxonomy_id",
		"SELECT CONCAT_WS('|', object_id, term_taxonomy_id, term_order) FROM wp_term_relationships ORDER BY object_id, term_taxonomy_id",
		"SELECT CONCAT_WS('|', meta_id, term_id, meta_key, meta_value) FROM wp_termmeta ORDER BY meta_id",
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		rows.Close()
	}
	return out
}

func TestTermCreate(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		body   map[string]any
		status int
		code   string
		id     int64
		want   storedTerm // checked when status is 201
	}{
		{"a category is stored under its parent with the name escaped", "categories",
			map[string]any{"name": "Full Term ✓ & Co", "slug": "full-term", "description": "<b>Full</b> description", "parent": 2},
			201, "", 21, storedTerm{"Full Term ✓ &amp; Co", "full-term", "tribe_events_cat", "<b>Full</b> description", 2, 0}},
		{"a tag gets a slug derived from its name", "tags", map[string]any{"name": "Brand New Term"},
			201, "", 21, storedTerm{"Brand New Term", "brand-new-term", "post_tag", "", 0, 0}},
		{"a taken slug gets a number appended", "categories", map[string]any{"name": "Other Name", "slug": "music"},
			201, "", 21, storedTerm{"Other Name", "music-2", "tribe_events_cat", "", 0, 0}},
		{"a known name under another parent gets the parent's slug appended", "categories", map[string]any{"name": "Jazz", "parent": 5},
			201, "", 21, storedTerm{"Jazz", "jazz-sports", "tribe_events_cat", "", 5, 0}},
		{"a slug that sanitizes away is derived from the name", "tags", map[string]any{"name": "Plain", "slug": "!!!"},
			201, "", 21, storedTerm{"Plain", "plain", "post_tag", "", 0, 0}},
		{"a name without slug characters gets the term ID as slug", "tags", map[string]any{"name": "&"},
			201, "", 21, storedTerm{"&amp;", "21", "post_tag", "", 0, 0}},
		{"markup outside the allowed tags is removed from the description", "tags",
			map[string]any{"name": "Kses", "description": `<script>alert(1)</script><a href="javascript:x" rel="me" onclick="y">l</a>`},
			201, "", 21, storedTerm{"Kses", "kses", "post_tag", `alert(1)<a href="x" rel="me">l</a>`, 0, 0}},
		{"a name already used under the same parent is refused", "categories", map[string]any{"name": "Music"}, 400, "term_exists", 2, storedTerm{}},
		{"a tag name already used is refused", "tags", map[string]any{"name": "live music"}, 400, "term_exists", 11, storedTerm{}},
		{"a missing name is refused", "tags", map[string]any{"slug": "x"}, 400, "rest_missing_callback_param", 0, storedTerm{}},
		{"an empty name is refused", "categories", map[string]any{"name": ""}, 400, "rest_invalid_param", 0, storedTerm{}},
		{"a name that sanitizes to nothing is refused", "categories", map[string]any{"name": "<b></b>"}, 400, "empty_term_name", 0, storedTerm{}},
		{"an unknown parent is refused", "categories", map[string]any{"name": "Orphan", "parent": 99999}, 400, "rest_invalid_param", 0, storedTerm{}},
		{"parent 0 is refused", "categories", map[string]any{"name": "Orphan", "parent": 0}, 400, "rest_invalid_param", 0, storedTerm{}},
		{"a parent on a tag is refused", "tags", map[string]any{"name": "Child", "parent": 11}, 400, "rest_taxonomy_not_hierarchical", 0, storedTerm{}},
		{"a name too long for the database is refused as wpdb refuses it", "tags", map[string]any{"name": strings.Repeat("é", 201)},
			400, "db_insert_error", 0, storedTerm{}},
		{"an empty description is refused", "tags", map[string]any{"name": "Child", "description": ""}, 400, "rest_invalid_param", 0, storedTerm{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, db, _ := fixtureServer(t, recordedNow)
			before := termTables(t, db)
			a := termCall(t, srv, "POST", tc.path, tc.body, "admin")
			if a.status != tc.status {
				t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.raw)
			}
			if tc.status != 201 {
				if a.body["code"] != tc.code {
					t.Errorf("code %v, want %s", a.body["code"], tc.code)
				}
				if tc.code == "term_exists" {
					data, _ := a.body["data"].(map[string]any)
					if data["term_id"] != float64(tc.id) || !reflect.DeepEqual(a.body["additional_data"], []any{float64(tc.id), float64(tc.id)}) {
						t.Errorf("existing term not named: %s", a.raw)
					}
				}
				if tc.code == "empty_term_name" {
					if d, has := a.body["data"]; !has || d != nil {
						t.Errorf("data = %v, want null", a.body["data"])
					}
				}
				if tc.code == "db_insert_error" {
					const want = "WordPress database error: Processing the value for the following field failed: name. The supplied value may be too long or contains invalid data."
					if a.body["data"] != want {
						t.Errorf("data = %v, want wpdb's last error", a.body["data"])
					}
				}
				if after := termTables(t, db); !reflect.DeepEqual(before, after) {
					t.Errorf("a refused create changed the term tables")
				}
				return
			}
			got, ok := termRow(t, db, tc.id)
			if !ok || got != tc.want {
				t.Errorf("stored %+v (exists %v), want %+v", got, ok, tc.want)
			}
			if a.body["id"] != float64(tc.id) || a.body["slug"] != tc.want.Slug || a.body["name"] != tc.want.Name {
				t.Errorf("answer does not show the stored term: %s", a.raw)
			}
			if _, ok := a.body["_links"]; !ok {
				t.Errorf("no _links in %s", a.raw)
			}
			base := "tribe_events_cat"
			if tc.path == "tags" {
				base = "tags"
			}
			// The core route, under the site's home URL.
			if loc := a.header.Get("Location"); loc != fmt.Sprintf("http://127.0.0.1:8088/wp-json/wp/v2/%s/%d", base, tc.id) {
				t.Errorf("Location = %q", loc)
			}
			if n := len(termTables(t, db)) - len(before); n != 2 {
				t.Errorf("%d rows added, want 2 (term and taxonomy row)", n)
			}
		})
	}
}

func TestTermUpdate(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		body   map[string]any
		status int
		code   string
		id     int64
		want   storedTerm
	}{
		{"a new name keeps the slug", "categories/3", map[string]any{"name": "Renamed"}, 200, "", 3,
			storedTerm{"Renamed", "jazz", "tribe_events_cat", "Jazz nights", 2, 16}},
		{"a new slug is sanitized", "tags/12", map[string]any{"slug": "New Slug"}, 200, "", 12,
			storedTerm{"Food &amp; Drink", "new-slug", "post_tag", "", 0, 22}},
		{"a new parent moves the category", "categories/3", map[string]any{"parent": 5}, 200, "", 3,
			storedTerm{"Jazz", "jazz", "tribe_events_cat", "Jazz nights", 5, 16}},
		{"the term itself as parent means top level", "categories/3", map[string]any{"parent": 3}, 200, "", 3,
			storedTerm{"Jazz", "jazz", "tribe_events_cat", "Jazz nights", 0, 16}},
		{"a descendant as parent means top level", "categories/2", map[string]any{"parent": 3}, 200, "", 2,
			storedTerm{"Music", "music", "tribe_events_cat", "Concerts and live music", 0, 17}},
		{"a taken slug with a new parent gets the parent's slug appended", "categories/4", map[string]any{"slug": "running", "parent": 5}, 200, "", 4,
			storedTerm{"Rock &amp; Roll", "running-sports", "tribe_events_cat", "", 5, 19}},
		{"a slug taken in the taxonomy is refused", "categories/3", map[string]any{"slug": "rock-and-roll"}, 400, "duplicate_term_slug", 3,
			storedTerm{"Jazz", "jazz", "tribe_events_cat", "Jazz nights", 2, 16}},
		{"a name too long for the database keeps the term row but updates the rest", "tags/12",
			map[string]any{"name": strings.Repeat("a", 201), "description": "Kept"}, 200, "", 12,
			storedTerm{"Food &amp; Drink", "food-drink", "post_tag", "Kept", 0, 22}},
		{"an empty update changes nothing", "tags/12", map[string]any{}, 200, "", 12,
			storedTerm{"Food &amp; Drink", "food-drink", "post_tag", "", 0, 22}},
		{"a parent on a tag is refused", "tags/12", map[string]any{"parent": 11}, 400, "rest_taxonomy_not_hierarchical", 12,
			storedTerm{"Food &amp; Drink", "food-drink", "post_tag", "", 0, 22}},
		{"parent 0 is refused", "categories/3", map[string]any{"parent": 0}, 400, "rest_invalid_param", 3,
			storedTerm{"Jazz", "jazz", "tribe_events_cat", "Jazz nights", 2, 16}},
		{"a term of the other taxonomy is not found", "tags/3", map[string]any{"name": "x"}, 400, "rest_invalid_param", 3,
			storedTerm{"Jazz", "jazz", "tribe_events_cat", "Jazz nights", 2, 16}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, db, _ := fixtureServer(t, recordedNow)
			before := termTables(t, db)
			a := termCall(t, srv, "POST", tc.path, tc.body, "admin")
			if a.status != tc.status {
				t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.raw)
			}
			if got, _ := termRow(t, db, tc.id); got != tc.want {
				t.Errorf("stored %+v, want %+v", got, tc.want)
			}
			if tc.status != 200 {
				if a.body["code"] != tc.code {
					t.Errorf("code %v, want %s", a.body["code"], tc.code)
				}
				if tc.code == "duplicate_term_slug" {
					if d, has := a.body["data"]; !has || d != nil {
						t.Errorf("data = %v, want null", a.body["data"])
					}
				}
				if after := termTables(t, db); !reflect.DeepEqual(before, after) {
					t.Errorf("a refused update changed the term tables")
				}
				return
			}
			if len(tc.body) == 0 {
				if after := termTables(t, db); !reflect.DeepEqual(before, after) {
					t.Errorf("an empty update changed the term tables")
				}
			}
			if a.body["id"] != float64(tc.id) || a.body["slug"] != tc.want.Slug || a.body["name"] != tc.want.Name {
				t.Errorf("answer does not show the stored term: %s", a.raw)
			}
			if _, ok := a.body["_links"]; !ok {
				t.Errorf("no _links in %s", a.raw)
			}
		})
	}
}

func TestTermDelete(t *testing.T) {
	t.Run("a category goes with its relationships and its children move up", func(t *testing.T) {
		srv, db, _ := fixtureServer(t, recordedNow)
		// Running (6, under Sports) gets a child so the move to the grandparent shows.
		if _, err := db.Exec("UPDATE wp_term_taxonomy SET parent = 6 WHERE term_id = 7"); err != nil {
			t.Fatal(err)
		}
		settle(t, srv)
		jazz, _ := termRow(t, db, 3)
		a := termCall(t, srv, "DELETE", "categories/6", nil, "admin")
		if a.status != 200 {
			t.Fatalf("status %d: %s", a.status, a.raw)
		}
		if a.body["id"] != float64(6) || a.body["count"] != float64(19) || a.body["parent"] != float64(5) {
			t.Errorf("answer is not the term as it was: %s", a.raw)
		}
		if _, ok := a.body["_links"]; ok {
			t.Errorf("delete answers carry no _links")
		}
		if _, ok := termRow(t, db, 6); ok {
			t.Errorf("term 6 still stored")
		}
		if n := scalar[int](t, db, "SELECT COUNT(*) FROM wp_term_relationships WHERE term_taxonomy_id = 6"); n != 0 {
			t.Errorf("%d relationships left", n)
		}
		if child, _ := termRow(t, db, 7); child.Parent != 5 {
			t.Errorf("child's parent = %d, want 5", child.Parent)
		}
		if after, _ := termRow(t, db, 3); after != jazz {
			t.Errorf("an unrelated term changed: %+v", after)
		}
		if again := termCall(t, srv, "DELETE", "categories/6", nil, "admin"); again.status != 400 || again.body["code"] != "rest_invalid_param" {
			t.Errorf("second delete: %d %s", again.status, again.raw)
		}
	})
	t.Run("a tag goes with its relationships and other tags keep their counts", func(t *testing.T) {
		srv, db, _ := fixtureServer(t, recordedNow)
		charity, _ := termRow(t, db, 15)
		a := termCall(t, srv, "DELETE", "tags/11", nil, "editor")
		if a.status != 200 || a.body["name"] != "Live Music" {
			t.Fatalf("status %d: %s", a.status, a.raw)
		}
		if _, ok := termRow(t, db, 11); ok {
			t.Errorf("tag 11 still stored")
		}
		if n := scalar[int](t, db, "SELECT COUNT(*) FROM wp_term_relationships WHERE term_taxonomy_id = 11"); n != 0 {
			t.Errorf("%d relationships left", n)
		}
		if after, _ := termRow(t, db, 15); after != charity {
			t.Errorf("another tag changed: %+v, was %+v", after, charity)
		}
	})
}

// Only users with edit_tribe_events and the taxonomy's manage capability write; the others get
// rest_forbidden (401 anonymous, 403 logged in) and nothing is written.
func TestTermWritePermissions(t *testing.T) {
	srv, db, _ := fixtureServer(t, recordedNow)
	tests := []struct {
		name, method, path, user string
		status                   int
	}{
		{"anonymous visitors may not create", "POST", "categories", "", 401},
		{"subscribers may not create", "POST", "categories", "subscriber", 403},
		{"contributors may not create categories", "POST", "categories", "contributor", 403},
		{"authors may not create tags", "POST", "tags", "author", 403},
		{"anonymous visitors may not update", "POST", "categories/5", "", 401},
		{"subscribers may not update", "PUT", "tags/14", "subscriber", 403},
		{"authors may not update tags", "PATCH", "tags/14", "author", 403},
		{"anonymous visitors may not delete", "DELETE", "tags/16", "", 401},
		{"subscribers may not delete", "DELETE", "categories/7", "subscriber", 403},
		{"authors may not delete tags", "DELETE", "tags/16", "author", 403},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := termTables(t, db)
			var body any
			if tc.method != "DELETE" {
				body = map[string]any{"name": "Perm " + tc.name}
			}
			a := termCall(t, srv, tc.method, tc.path, body, tc.user)
			if a.status != tc.status || a.body["code"] != "rest_forbidden" {
				t.Errorf("got %d %s, want %d rest_forbidden", a.status, a.raw, tc.status)
			}
			if after := termTables(t, db); !reflect.DeepEqual(before, after) {
				t.Errorf("a forbidden request changed the term tables")
			}
		})
	}
	t.Run("authors manage categories", func(t *testing.T) {
		if a := termCall(t, srv, "POST", "categories", map[string]any{"name": "By Author"}, "author"); a.status != 201 {
			t.Errorf("create: %d %s", a.status, a.raw)
		}
		if a := termCall(t, srv, "PATCH", "categories/5", map[string]any{"name": "Sports by Author"}, "author"); a.status != 200 {
			t.Errorf("update: %d %s", a.status, a.raw)
		}
		if got, _ := termRow(t, db, 5); got.Name != "Sports by Author" {
			t.Errorf("name = %q", got.Name)
		}
	})
}

// A write that fails at any statement leaves no row behind: the whole request is one transaction.
func TestTermWriteFailureLeavesNoRows(t *testing.T) {
	srv, db, _ := fixtureServer(t, recordedNow)
	before := termTables(t, db)
	var mu sync.Mutex
	failAt, calls := 0, 0
	wpdb.TestHookBeforeStatement = func(context.Context, int64) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls >= failAt {
			return errors.New("connection lost")
		}
		return nil
	}
	t.Cleanup(func() { wpdb.TestHookBeforeStatement = nil })
	// Deleting Music moves its two children and removes 17 relationships: several statements.
	for failAt = 1; failAt < 50; failAt++ {
		mu.Lock()
		calls = 0
		mu.Unlock()
		a := termCall(t, srv, "DELETE", "categories/2", nil, "admin")
		if a.status == 200 {
			break
		}
		if a.status != 500 || a.body["code"] != "internal_server_error" {
			t.Fatalf("failing at statement %d: %d %s", failAt, a.status, a.raw)
		}
		if after := termTables(t, db); !reflect.DeepEqual(before, after) {
			t.Fatalf("failing at statement %d left rows changed", failAt)
		}
	}
	if failAt < 4 || failAt == 50 {
		t.Fatalf("the delete succeeded at %d statements; the test did not interrupt it midway", failAt)
	}
	if _, ok := termRow(t, db, 2); ok {
		t.Errorf("the delete that went through left the term")
	}
}

// Concurrent creates of one name store it once; the others learn that it exists.
func TestConcurrentTermCreatesStoreOneTerm(t *testing.T) {
	srv, db, _ := fixtureServer(t, recordedNow)
	const n = 6
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i] = termCall(t, srv, "POST", "tags", map[string]any{"name": "Race Tag"}, "admin").status
		}(i)
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case 201:
			created++
		case 400:
		default:
			t.Errorf("status %d", s)
		}
	}
	if created != 1 {
		t.Errorf("%d creates succeeded (%v), want 1", created, statuses)
	}
	if got := scalar[int](t, db, "SELECT COUNT(*) FROM wp_terms WHERE name = 'Race Tag'"); got != 1 {
		t.Errorf("%d rows named Race Tag", got)
	}
}

// Hostile values in every write parameter get a WordPress-shaped 4xx or a normal answer, never a 5xx.
func TestTermWritesNeverFailOnBadParameters(t *testing.T) {
	srv, _, _ := fixtureServer(t, recordedNow)
	hostile := []any{"", "0", "-1", "abc", "2.5", "99999999999999999999999", " ", "\x00", "'", `"`, `\`, "%", "_",
		"<script>x</script>", "<b></b>", "&", "&foo;", "日本語", "🎉", strings.Repeat("a", 300), strings.Repeat("é", 250),
		strings.Repeat("-", 300), 0, -5, 2.5, true, nil, []any{"x"}, map[string]any{"a": 1}}
	for _, path := range []string{"categories", "tags", "categories/3", "tags/12"} {
		for _, p := range []string{"name", "slug", "description", "parent"} {
			for i, v := range hostile {
				body := map[string]any{p: v}
				if p != "name" {
					body["name"] = fmt.Sprintf("Hostile %s %d", p, i)
				}
				a := termCall(t, srv, "POST", path, body, "admin")
				if a.status >= 500 {
					t.Errorf("%s %s=%.40v: status %d: %.300s", path, p, v, a.status, a.raw)
					continue
				}
				if a.status >= 400 {
					if a.body["code"] == nil || a.body["message"] == nil {
						t.Errorf("%s %s=%.40v: error body not WordPress-shaped: %.300s", path, p, v, a.raw)
					}
				}
			}
		}
	}
}

// A parent chain that already loops (damaged data) is broken when a term is moved under it, as
// wp_check_term_hierarchy_for_loops does: the loop's members go to the top level.
func TestTermUpdateBreaksAnExistingParentLoop(t *testing.T) {
	srv, db, _ := fixtureServer(t, recordedNow)
	if _, err := db.Exec("UPDATE wp_term_taxonomy SET parent = CASE term_id WHEN 7 THEN 8 ELSE 7 END WHERE term_id IN (7, 8)"); err != nil {
		t.Fatal(err)
	}
	settle(t, srv)
	a := termCall(t, srv, "POST", "categories/3", map[string]any{"parent": 7}, "admin")
	if a.status != 200 || a.body["parent"] != float64(7) {
		t.Fatalf("status %d: %s", a.status, a.raw)
	}
	for id, want := range map[int64]int64{3: 7, 7: 0, 8: 0} {
		if got, _ := termRow(t, db, id); got.Parent != want {
			t.Errorf("term %d parent = %d, want %d", id, got.Parent, want)
		}
	}
}
