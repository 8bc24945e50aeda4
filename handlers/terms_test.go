package handlers_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// termServer serves the fixture after running setup statements on its copy (tables are named with
// a %s placeholder for the database).
func termServer(t *testing.T, setup ...string) *httptest.Server {
	t.Helper()
	srv, _, _ := fixtureServerIn(t, recordedNow, "ht", setup...)
	return srv
}

func listIDs(a answer, key string) []int64 {
	var out []int64
	items, _ := a.body[key].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		f, _ := m["id"].(float64)
		out = append(out, int64(f))
	}
	return out
}

// Hostile parameters on the term archives and single routes answer 4xx or 200, never 5xx.
func TestTermRoutesNeverFailOnBadParameters(t *testing.T) {
	srv := termServer(t)
	hostile := []string{"", "0", "-1", "abc", "2.5", "99999999999999999999999", "1e400", " ", "%00", "'", `"`,
		"1' OR '1'='1", "\\", "%", "_", "1,2,,3", "日本語", "<script>", "true", strings.Repeat("a", 3000)}
	params := []string{"page", "per_page", "search", "exclude", "include", "order", "orderby", "hide_empty",
		"parent", "post", "event", "slug"}
	for _, base := range []string{"categories", "tags"} {
		for _, p := range params {
			for _, v := range hostile {
				for _, form := range []string{p + "=" + url.QueryEscape(v), p + "[]=" + url.QueryEscape(v), p + "[x][y]=" + url.QueryEscape(v)} {
					if a := get(t, srv, "/wp-json/tribe/events/v1/"+base+"?"+form, nil); a.status >= 500 {
						t.Errorf("%s?%s: status %d: %.300s", base, form, a.status, a.raw)
					}
				}
			}
		}
		for _, id := range []string{"0", "99999999999999999999999", "007"} {
			if a := get(t, srv, "/wp-json/tribe/events/v1/"+base+"/"+id, nil); a.status >= 500 {
				t.Errorf("%s/%s: status %d: %.300s", base, id, a.status, a.raw)
			}
		}
	}
}

// With hide_empty an empty category whose descendant has posts is listed, but total counts only
// terms with posts of their own, so the pages can outrun total_pages (reference quirk, §18.1 row 9).
func TestCategoryListCountsOnlyNonEmptyTerms(t *testing.T) {
	// Conferences (7, 11 events) moves under Empty Category (10, no events), which moves under Music (2).
	srv := termServer(t, "UPDATE %s.wp_term_taxonomy SET parent = 10 WHERE term_id = 7",
		"UPDATE %s.wp_term_taxonomy SET parent = 2 WHERE term_id = 10")
	tests := []struct {
		name       string
		query      string
		ids        []int64
		total      float64
		pages      float64
		next, prev bool
	}{
		{"the empty ancestor is listed and not counted", "per_page=50", []int64{7, 10, 3, 9, 2, 4, 6, 5, 8}, 8, 1, false, false},
		{"the last counted page has no next link although items follow", "per_page=4&page=2", []int64{2, 4, 6, 5}, 8, 2, false, true},
		{"the page past total_pages still lists the rest", "per_page=4&page=3", []int64{8}, 8, 2, false, true},
		{"hide_empty=false counts every term", "per_page=50&hide_empty=false", []int64{7, 10, 3, 9, 2, 4, 6, 5, 8}, 9, 1, false, false},
		{"a parent filter lists an empty child with posts below it without counting it", "parent=2", []int64{10, 3, 4}, 2, 1, false, false},
		{"a parent without children lists and counts nothing", "parent=3&hide_empty=false", nil, 0, 0, false, false},
		{"a search lists the empty ancestor it matches without counting it", "search=e", []int64{7, 10}, 1, 1, false, false},
		{"orderby term_order without a post is an SQL error in WordPress: no items, counts kept", "orderby=Term_Order", nil, 8, 1, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := get(t, srv, "/wp-json/tribe/events/v1/categories?"+tc.query, nil)
			if a.status != 200 {
				t.Fatalf("status %d: %s", a.status, a.raw)
			}
			if got := listIDs(a, "categories"); !reflect.DeepEqual(got, tc.ids) {
				t.Errorf("ids = %v, want %v", got, tc.ids)
			}
			if a.body["total"] != tc.total || a.body["total_pages"] != tc.pages {
				t.Errorf("total %v pages %v, want %v %v", a.body["total"], a.body["total_pages"], tc.total, tc.pages)
			}
			if _, ok := a.body["next_rest_url"]; ok != tc.next {
				t.Errorf("next_rest_url present = %v", ok)
			}
			if _, ok := a.body["previous_rest_url"]; ok != tc.prev {
				t.Errorf("previous_rest_url present = %v", ok)
			}
			if a.header.Get("X-TEC-Total") != fmt.Sprint(tc.total) {
				t.Errorf("X-TEC-Total = %q", a.header.Get("X-TEC-Total"))
			}
		})
	}
}

// Single terms carry the core controller's links; targetHints list what the caller may do on the
// core route, and the up link only exists while the parent term does.
func TestSingleTermLinks(t *testing.T) {
	srv := termServer(t, "DELETE FROM %s.wp_terms WHERE term_id = 8", "DELETE FROM %s.wp_term_taxonomy WHERE term_id = 8")
	tests := []struct {
		name   string
		path   string
		admin  bool
		allow  []any
		up     bool
		types  int
		urlEnd string
	}{
		{"a visitor may only read", "categories/3", false, []any{"GET"}, true, 2, "/events/category/music/jazz/"},
		{"an administrator may edit and delete", "categories/3", true, []any{"GET", "POST", "PUT", "PATCH", "DELETE"}, true, 2, "/events/category/music/jazz/"},
		{"a missing parent drops the up link but keeps urls.up", "categories/9", false, []any{"GET"}, false, 2, "/events/category//kids-workshops/"},
		{"tags link blog posts too", "tags/11", false, []any{"GET"}, false, 3, "/tag/live-music/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hdr map[string]string
			if tc.admin {
				hdr = basic("admin", adminPass)
			}
			a := get(t, srv, "/wp-json/tribe/events/v1/"+tc.path, hdr)
			if a.status != 200 {
				t.Fatalf("status %d: %s", a.status, a.raw)
			}
			links, _ := a.body["_links"].(map[string]any)
			self, _ := links["self"].([]any)
			if len(self) != 1 {
				t.Fatalf("_links.self = %v", links["self"])
			}
			hints, _ := self[0].(map[string]any)["targetHints"].(map[string]any)
			if !reflect.DeepEqual(hints["allow"], tc.allow) {
				t.Errorf("allow = %v, want %v", hints["allow"], tc.allow)
			}
			if _, ok := links["up"]; ok != tc.up {
				t.Errorf("_links.up present = %v", ok)
			}
			if types, _ := links["wp:post_type"].([]any); len(types) != tc.types {
				t.Errorf("wp:post_type = %v", links["wp:post_type"])
			}
			if u, _ := a.body["url"].(string); !strings.HasSuffix(u, tc.urlEnd) {
				t.Errorf("url = %q, want suffix %q", u, tc.urlEnd)
			}
		})
	}
	if a := get(t, srv, "/wp-json/tribe/events/v1/categories/8", nil); a.status != 400 || a.body["code"] != "rest_invalid_param" {
		t.Errorf("deleted term: %d %s", a.status, a.raw)
	}
}
