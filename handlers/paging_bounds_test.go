package handlers_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// Negative, zero and huge page, per_page and offset values on every list, v1 and wp/v2, on both
// stores: never a 5xx, the same answer on both, and what WordPress' controllers (and the plugin's
// for v1) answer, from their code:
//   - page and per_page below 1 or not integers: 400 rest_invalid_param (minimum 1; per_page's
//     maximum of 100 on wp/v2); v1 reads them with is_positive_int, which 2^64 fails.
//   - a page past the last: the plugin's 404 (v1 posts) or an empty page (v1 terms); wp/v2 posts
//     400 rest_post_invalid_page_number, revisions rest_revision_invalid_page_number, terms and
//     users an empty page with the full totals.
//   - offset: WP_Query and WP_Term_Query read absint(offset), so -1 is 1; absint(PHP_INT_MIN) is a
//     float that makes their LIMIT an SQL error: no rows (posts: totals 0; terms: the count, which
//     is a query of its own). WP_User_Query writes a negative offset as is, an SQL error too: no
//     users, and the controller's recount gives the total. Revisions without per_page are not paged
//     at all (posts_per_page -1), so any offset below the count lists them all.
func TestListPagingBoundsOnBothStores(t *testing.T) {
	srvs := bothStores(t, handlers.Config{})
	const (
		i31 = "2147483648"
		max = "9223372036854775807"
		u64 = "18446744073709551616"
		min = "-9223372036854775808"
	)
	values := []string{"-1", "0", i31, max, u64, min, "1e3", " 1", "1abc"}
	huge := map[string]bool{i31: true, max: true, u64: true, "1e3": true}
	invalid := map[string]bool{"-1": true, "0": true, min: true, "1abc": true}
	lists := []struct {
		path, kind, notFound, user string
	}{
		{"/wp-json/tribe/events/v1/events", "v1post", "event-archive-page-not-found", ""},
		{"/wp-json/tribe/events/v1/venues", "v1post", "venue-archive-page-not-found", ""},
		{"/wp-json/tribe/events/v1/organizers", "v1post", "organizer-archive-page-not-found", ""},
		{"/wp-json/tribe/events/v1/categories", "v1term", "", ""},
		{"/wp-json/tribe/events/v1/tags", "v1term", "", ""},
		{"/wp-json/wp/v2/tribe_events", "v2post", "", ""},
		{"/wp-json/wp/v2/tribe_venue", "v2post", "", ""},
		{"/wp-json/wp/v2/tribe_organizer", "v2post", "", ""},
		{"/wp-json/wp/v2/media", "v2post", "", ""},
		{"/wp-json/wp/v2/tags", "v2term", "", ""},
		{"/wp-json/wp/v2/tribe_events_cat", "v2cat", "", ""},
		{"/wp-json/wp/v2/users", "users", "", ""},
		{"/wp-json/wp/v2/tribe_events/41/revisions", "revisions", "", "admin"},
	}
	// want is an expected answer: the status, the error code, and for a 200 whether the list is
	// empty and the X-WP-Total it carries ("" : not checked; "all": the list's own total).
	type want struct {
		status      int
		code, total string
		empty       bool
	}
	expect := func(kind, notFound, param, v string) want {
		v1 := kind == "v1post" || kind == "v1term"
		switch param {
		case "page", "per_page":
			switch {
			case invalid[v], v1 && v == u64, !v1 && param == "per_page" && huge[v]:
				return want{status: 400, code: "rest_invalid_param"}
			case !huge[v], param == "per_page":
				return want{status: 200}
			}
			switch kind { // a page past the last
			case "v1post":
				return want{status: 404, code: notFound}
			case "v2post":
				return want{status: 400, code: "rest_post_invalid_page_number"}
			case "revisions":
				return want{status: 400, code: "rest_revision_invalid_page_number"}
			}
			return want{status: 200, empty: true, total: "all"}
		}
		switch { // offset
		case v1, kind == "v2cat": // no offset argument: ignored
			return want{status: 200, total: "all"}
		case v == "1abc":
			return want{status: 400, code: "rest_invalid_param"}
		case kind == "revisions" && (v == "-1" || v == "0" || v == min):
			return want{status: 200, total: "all"}
		case kind == "revisions":
			return want{status: 400, code: "rest_revision_invalid_offset_number"}
		case v == "-1" && kind == "users", v == min && kind == "users":
			return want{status: 200, empty: true, total: "all"}
		case v == "0", v == " 1", v == "-1":
			return want{status: 200, total: "all"}
		case kind == "v2post": // huge, or PHP_INT_MIN
			return want{status: 200, empty: true, total: "0"}
		}
		return want{status: 200, empty: true, total: "all"}
	}
	for _, l := range lists {
		all := get1(t, srvs["mysql"], l.path, l.user).total()
		for _, param := range []string{"page", "per_page", "offset"} {
			for _, v := range values {
				path := l.path + "?" + param + "=" + url.QueryEscape(v)
				if param == "page" {
					path += "&per_page=3"
				}
				w := expect(l.kind, l.notFound, param, v)
				if w.total == "all" {
					w.total = all
				}
				answers := map[string]answer{}
				for name, srv := range srvs {
					a := get1(t, srv, path, l.user)
					answers[name] = a
					if a.status >= 500 || a.status != w.status || (w.code != "" && a.body["code"] != w.code) {
						t.Errorf("%s %s: %d %.300s, want %d %s", name, path, a.status, a.raw, w.status, w.code)
						continue
					}
					if w.status != 200 {
						continue
					}
					if w.total != "" && a.total() != w.total {
						t.Errorf("%s %s: total %q, want %q", name, path, a.total(), w.total)
					}
					if empty := a.raw == "[]" || a.items() == 0; w.empty != empty {
						t.Errorf("%s %s: %.200s, want an empty list: %v", name, path, a.raw, w.empty)
					}
				}
				if m, s := answers["mysql"], answers["sqlite"]; m.status != s.status || m.raw != s.raw || m.total() != s.total() ||
					m.header.Get("X-WP-TotalPages") != s.header.Get("X-WP-TotalPages") || m.header.Get("Link") != s.header.Get("Link") {
					t.Errorf("%s: the stores differ:\n mysql  %d %v %.300s\n sqlite %d %v %.300s", path, m.status, m.header, m.raw, s.status, s.header, s.raw)
				}
			}
		}
	}
	// absint(-1) is 1: the same rows as offset=1 (WP_Query, WP_Term_Query).
	for _, p := range []string{"/wp-json/wp/v2/tribe_events", "/wp-json/wp/v2/tribe_venue", "/wp-json/wp/v2/media", "/wp-json/wp/v2/tags"} {
		for name, srv := range srvs {
			if neg, one := get1(t, srv, p+"?offset=-1", ""), get1(t, srv, p+"?offset=1", ""); neg.raw != one.raw || neg.total() != one.total() {
				t.Errorf("%s %s: offset=-1 answers %d %.200s, offset=1 %d %.200s", name, p, neg.status, neg.raw, one.status, one.raw)
			}
		}
	}
	// Paged revisions: absint(-1) skips the one revision; PHP_INT_MIN is an SQL error; both leave
	// an empty page and the recount's total.
	for _, v := range []string{"-1", min} {
		path := "/wp-json/wp/v2/tribe_events/41/revisions?per_page=1&offset=" + url.QueryEscape(v)
		for name, srv := range srvs {
			if a := get1(t, srv, path, "admin"); a.status != 200 || a.raw != "[]" || a.total() != "1" {
				t.Errorf("%s %s: %d total %q %.200s, want 200 [] with the total 1", name, path, a.status, a.total(), a.raw)
			}
		}
	}
}

// A wp/v2 page just past the last. get_items counts again without the page when it is empty and
// divides that count by per_page: posts and media answer 400 rest_post_invalid_page_number,
// revisions rest_revision_invalid_page_number, terms and users an empty page whose
// X-WP-TotalPages is the real count of pages. With per_page=3 every list here has fewer pages than
// rows, so a page count made from a limit of 1 (one page per row) lets the page through.
func TestV2PagePastTheLast(t *testing.T) {
	srvs := bothStores(t, handlers.Config{})
	for _, l := range []struct{ path, code, user string }{
		{"/wp-json/wp/v2/tribe_events", "rest_post_invalid_page_number", ""},
		{"/wp-json/wp/v2/tribe_venue", "rest_post_invalid_page_number", ""},
		{"/wp-json/wp/v2/tribe_organizer", "rest_post_invalid_page_number", ""},
		{"/wp-json/wp/v2/media", "rest_post_invalid_page_number", ""},
		{"/wp-json/wp/v2/tribe_events/41/revisions", "rest_revision_invalid_page_number", "admin"},
		{"/wp-json/wp/v2/tags", "", ""},
		{"/wp-json/wp/v2/tribe_events_cat", "", ""},
		{"/wp-json/wp/v2/users", "", ""},
	} {
		for name, srv := range srvs {
			first := get1(t, srv, l.path+"?per_page=3", l.user)
			total, _ := strconv.Atoi(first.total())
			pages := (total + 2) / 3
			if first.status != 200 || first.header.Get("X-WP-TotalPages") != strconv.Itoa(pages) {
				t.Fatalf("%s %s: %d %v", name, l.path, first.status, first.header)
			}
			path := fmt.Sprintf("%s?per_page=3&page=%d", l.path, pages+1)
			a := get1(t, srv, path, l.user)
			if l.code != "" {
				if a.status != 400 || a.body["code"] != l.code {
					t.Errorf("%s %s (%d rows): %d %.300s, want 400 %s", name, path, total, a.status, a.raw, l.code)
				}
				continue
			}
			if a.status != 200 || a.raw != "[]" || a.total() != first.total() || a.header.Get("X-WP-TotalPages") != strconv.Itoa(pages) {
				t.Errorf("%s %s: %d total %s of %s pages %.200s, want 200 [] with %d rows in %d pages", name, path, a.status,
					a.total(), a.header.Get("X-WP-TotalPages"), a.raw, total, pages)
			}
		}
	}
}

// get1 is a GET as user ("" anonymous).
func get1(t *testing.T, srv *httptest.Server, path, user string) answer {
	t.Helper()
	return call(t, srv, "GET", path, nil, user)
}

// total is a list's total: X-WP-Total (wp/v2) or X-TEC-Total (v1).
func (a answer) total() string {
	if v := a.header.Get("X-WP-Total"); v != "" {
		return v
	}
	return a.header.Get("X-TEC-Total")
}

// items counts a v1 answer's listed records (events, venues, ...); -1 when it lists none.
func (a answer) items() int {
	for _, k := range []string{"events", "venues", "organizers", "categories", "tags"} {
		if l, ok := a.body[k].([]any); ok {
			return len(l)
		}
	}
	return -1
}
