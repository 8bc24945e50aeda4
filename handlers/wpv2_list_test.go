package handlers_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// postListIDs reads the IDs of a wp/v2 collection answer.
func postListIDs(t *testing.T, a answer) []int64 {
	t.Helper()
	var items []map[string]any
	if err := json.Unmarshal([]byte(a.raw), &items); err != nil {
		t.Fatalf("status %d, not a list: %s", a.status, a.raw)
	}
	ids := make([]int64, len(items))
	for i, it := range items {
		f, _ := it["id"].(float64)
		ids[i] = int64(f)
	}
	return ids
}

var linkRe = regexp.MustCompile(`<([^>]*)>; rel="(prev|next)"`)

// TestCoreListsPageThroughEveryPost walks each type's list page by page, following the Link
// header as clients do: X-WP-TotalPages pages of X-WP-Total posts, the same posts in the same
// order on both stores. Where sort keys tie (venues sharing one publication second, two statuses
// filesorted), MariaDB pages them so that some posts show on two pages and others on none, as
// WordPress clients see them; the SQLite store must page them the same way.
func TestCoreListsPageThroughEveryPost(t *testing.T) {
	stores := storeFixtures(t, handlers.Config{})
	for _, tc := range []struct {
		name, path, user string
		ties             bool
	}{
		{"events_for_visitors", "/wp-json/wp/v2/tribe_events?per_page=7&_fields=id", "", false},
		{"venues_of_two_statuses_for_admins", "/wp-json/wp/v2/tribe_venue?per_page=5&status=publish,draft&_fields=id", "admin", true},
		{"organizers_by_title", "/wp-json/wp/v2/tribe_organizer?per_page=3&orderby=title&order=asc&_fields=id", "", false},
		{"events_by_category_through_rest_route", "/?rest_route=/wp/v2/tribe_events&tribe_events_cat=2&per_page=4&_fields=id", "", false},
	} {
		t.Run(tc.name+"_pages_agree_with_the_totals_and_across_stores", func(t *testing.T) {
			var orders [][]int64
			for _, name := range []string{"mysql", "sqlite"} {
				st := stores[name]
				var all []int64
				total, pages := -1, -1
				next := tc.path
				for n := 1; next != ""; n++ {
					a := call(t, st.srv, "GET", next, nil, tc.user)
					if a.status != 200 {
						t.Fatalf("%s page %d: status %d %s", name, n, a.status, a.raw)
					}
					all = append(all, postListIDs(t, a)...)
					total, _ = strconv.Atoi(a.header.Get("X-WP-Total"))
					pages, _ = strconv.Atoi(a.header.Get("X-WP-TotalPages"))
					next = ""
					for _, m := range linkRe.FindAllStringSubmatch(strings.Join(a.header.Values("Link"), ", "), -1) {
						if m[2] == "next" {
							next = strings.TrimPrefix(m[1], "http://127.0.0.1:8088")
						}
						if m[2] == "prev" && n == 1 {
							t.Errorf("%s: first page links a previous one", name)
						}
					}
					if n > 50 {
						t.Fatal("Link next never ends")
					}
					if next == "" && n != pages {
						t.Errorf("%s: %d pages followed, X-WP-TotalPages %d", name, n, pages)
					}
				}
				seen := map[int64]bool{}
				for _, id := range all {
					if seen[id] && !tc.ties {
						t.Errorf("%s: post %d listed twice", name, id)
					}
					seen[id] = true
				}
				if len(all) != total || total == 0 {
					t.Errorf("%s: %d posts listed, X-WP-Total %d", name, len(all), total)
				}
				orders = append(orders, all)
			}
			if !reflect.DeepEqual(orders[0], orders[1]) {
				t.Errorf("orders differ:\nmysql  %v\nsqlite %v", orders[0], orders[1])
			}
		})
	}
}

// TestCoreEventListLeavesOutEndedEvents: the plugin filters every front-end event query to events
// that end at or after now (in the site's time), as the wp/v2 list shows.
func TestCoreEventListLeavesOutEndedEvents(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name+"_lists_only_events_not_yet_ended", func(t *testing.T) {
			a := call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events?per_page=100&_fields=id", nil, "")
			ids := postListIDs(t, a)
			if len(ids) == 0 {
				t.Fatalf("no events listed: %s", a.raw)
			}
			published := scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish'")
			// recordedNow in the fixture site's zone (America/New_York).
			const now = "2026-11-21 23:29:21"
			open := scalar[int](t, st.db, "SELECT COUNT(*) FROM wp_posts p JOIN wp_tec_occurrences o ON o.post_id = p.ID"+
				" WHERE p.post_type = 'tribe_events' AND p.post_status = 'publish' AND o.end_date >= ?", now)
			if got, _ := strconv.Atoi(a.header.Get("X-WP-Total")); got != open || open >= published {
				t.Errorf("X-WP-Total %d, events not ended %d, published %d", got, open, published)
			}
			for _, id := range ids {
				if end := scalar[string](t, st.db, "SELECT MAX(end_date) FROM wp_tec_occurrences WHERE post_id = ?", id); end < now {
					t.Errorf("event %d ended %s, before now", id, end)
				}
			}
		})
	}
}

// TestCoreListRefusesWhatTheCallerMayNotSee: statuses other than publish need the type's edit
// capability, the edit context too, and bad parameters are WordPress' rest_invalid_param.
func TestCoreListRefusesWhatTheCallerMayNotSee(t *testing.T) {
	stores := storeFixtures(t, handlers.Config{})
	for _, tc := range []struct {
		name, path, user string
		status           int
		code             string
	}{
		{"drafts_refused_to_visitors", "/wp-json/wp/v2/tribe_events?status=draft", "", 400, "rest_invalid_param"},
		{"drafts_refused_to_subscribers", "/wp-json/wp/v2/tribe_venue?status=draft", "subscriber", 400, "rest_invalid_param"},
		{"edit_context_refused_to_visitors", "/wp-json/wp/v2/tribe_organizer?context=edit", "", 401, "rest_forbidden_context"},
		{"per_page_above_100_refused", "/wp-json/wp/v2/tribe_events?per_page=101", "", 400, "rest_invalid_param"},
		{"page_past_the_end_refused", "/wp-json/wp/v2/tribe_events?page=999", "", 400, "rest_post_invalid_page_number"},
		{"relevance_without_search_refused", "/wp-json/wp/v2/tribe_events?orderby=relevance", "", 400, "rest_no_search_term_defined"},
		{"bad_category_list_refused", "/wp-json/wp/v2/tribe_events?tribe_events_cat=abc", "", 400, "rest_invalid_param"},
		{"bad_date_refused", "/wp-json/wp/v2/tribe_events?after=yesterday", "", 400, "rest_invalid_param"},
	} {
		for name, st := range stores {
			t.Run(name+"_"+tc.name, func(t *testing.T) {
				a := call(t, st.srv, "GET", tc.path, nil, tc.user)
				if a.status != tc.status || a.body["code"] != tc.code {
					t.Errorf("status %d body %s, want %d %s", a.status, a.raw, tc.status, tc.code)
				}
			})
		}
	}
	for name, st := range stores {
		t.Run(name+"_drafts_listed_to_admins_and_never_to_visitors", func(t *testing.T) {
			drafts := postListIDs(t, call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_venue?status=draft&_fields=id", nil, "admin"))
			if len(drafts) == 0 {
				t.Fatal("fixture has no draft venue")
			}
			public := postListIDs(t, call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_venue?per_page=100&include="+strconv.FormatInt(drafts[0], 10), nil, ""))
			if len(public) != 0 {
				t.Errorf("draft venue %d listed to a visitor", drafts[0])
			}
		})
	}
}

// TestCoreIndexListsWhatIsServed: /wp-json/ and /wp-json/wp/v2 list the wp/v2 routes calendard
// registers, each listed route without parameters answers, and core routes calendard does not
// serve are neither listed nor answered.
func TestCoreIndexListsWhatIsServed(t *testing.T) {
	st := storeFixtures(t, handlers.Config{})["mysql"]
	site := call(t, st.srv, "GET", "/wp-json/", nil, "")
	ns, _ := site.body["namespaces"].([]any)
	if len(ns) != 3 || ns[2] != "wp/v2" {
		t.Fatalf("namespaces = %v", ns)
	}
	core := call(t, st.srv, "GET", "/wp-json/wp/v2", nil, "")
	routes, _ := core.body["routes"].(map[string]any)
	siteRoutes, _ := site.body["routes"].(map[string]any)
	for _, want := range []string{"/wp/v2", "/wp/v2/tribe_events", `/wp/v2/tribe_venue/(?P<id>[\d]+)`, "/wp/v2/types", "/wp/v2/taxonomies", "/wp/v2/settings"} {
		if _, ok := routes[want]; !ok {
			t.Errorf("namespace index lacks %s", want)
		}
		if _, ok := siteRoutes[want]; !ok {
			t.Errorf("site index lacks %s", want)
		}
	}
	for route := range routes {
		if strings.Contains(route, "(?P<") {
			continue
		}
		if a := call(t, st.srv, "GET", "/wp-json"+route, nil, "admin"); a.body["code"] == "rest_no_route" {
			t.Errorf("listed route %s is not served", route)
		}
	}
	for _, unserved := range []string{"/wp/v2/posts", "/wp/v2/pages", "/wp/v2/comments"} {
		if _, listed := routes[unserved]; listed {
			t.Errorf("%s listed but not served", unserved)
		}
		if a := call(t, st.srv, "GET", "/wp-json"+unserved, nil, ""); a.status != 404 || a.body["code"] != "rest_no_route" {
			t.Errorf("%s: status %d %s", unserved, a.status, a.raw)
		}
	}
}

// TestCoreListSearchExactMatchesWholeValues: search_semantics=exact matches a column's whole value
// (WP_Query's exact; a quoted phrase is one term), a plain search any substring.
func TestCoreListSearchExactMatchesWholeValues(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name+"_exact_search_finds_only_the_whole_title", func(t *testing.T) {
			exact := postListIDs(t, call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events?per_page=100&_fields=id&search=%22Community%20Meetup%22&search_semantics=exact", nil, ""))
			loose := postListIDs(t, call(t, st.srv, "GET", "/wp-json/wp/v2/tribe_events?per_page=100&_fields=id&search=Meetup", nil, ""))
			if len(exact) != 1 || exact[0] != 38 || len(loose) <= 1 {
				t.Errorf("exact %v, substring %v", exact, loose)
			}
		})
	}
}
