package handlers_test

import (
	"testing"

	"github.com/calendard/calendard/handlers"
)

// Pages far past the end (up to PHP_INT_MAX and beyond, where (page-1)*per_page overflows 64 bits)
// get the plugin's answer for a page out of range on every list and both stores, identically:
// 404 <kind>-archive-page-not-found for events, venues and organizers, an empty page with a link
// back for terms (the plugin never 404s there).
func TestPagesPastTheEndNeverOverflow(t *testing.T) {
	srvs := bothStores(t, handlers.Config{})
	lists := []struct{ path, notFound, key string }{
		{"events", "event-archive-page-not-found", "events"},
		{"venues", "venue-archive-page-not-found", "venues"},
		{"organizers", "organizer-archive-page-not-found", "organizers"},
		{"categories", "", "categories"},
		{"tags", "", "tags"},
	}
	queries := []string{
		"page=922337203685477580&per_page=10",
		"page=184467440737095517&per_page=50",
		"page=9223372036854775807&per_page=50",
		"page=9223372036854775807&per_page=1",
		"page=9223372036854775808&per_page=7", // intval() caps it, and PHP_INT_MAX == "9223372036854775808"
		"page=4611686018427387904&per_page=2",
		"page=1000000&per_page=50",
	}
	for _, l := range lists {
		for _, q := range queries {
			path := "/wp-json/tribe/events/v1/" + l.path + "?" + q
			answers := map[string]answer{}
			for name, srv := range srvs {
				a := get(t, srv, path, nil)
				answers[name] = a
				if l.notFound != "" {
					data, _ := a.body["data"].(map[string]any)
					if a.status != 404 || a.body["code"] != l.notFound || data["status"] != float64(404) {
						t.Errorf("%s %s: %d %.300s, want 404 %s", name, path, a.status, a.raw, l.notFound)
					}
					continue
				}
				list, isList := a.body[l.key].([]any)
				total, _ := a.body["total"].(float64)
				if a.status != 200 || !isList || len(list) != 0 || total == 0 || a.body["previous_rest_url"] == nil || a.body["next_rest_url"] != nil {
					t.Errorf("%s %s: %d %.400s, want 200 with an empty page, the total and only a previous link", name, path, a.status, a.raw)
				}
			}
			if m, s := answers["mysql"], answers["sqlite"]; m.status != s.status || m.raw != s.raw {
				t.Errorf("%s: the stores differ:\n mysql  %d %.300s\n sqlite %d %.300s", path, m.status, m.raw, s.status, s.raw)
			}
		}
		// Beyond what intval() can hold the page is no integer to is_positive_int: a 400.
		for name, srv := range srvs {
			path := "/wp-json/tribe/events/v1/" + l.path + "?page=99999999999999999999999"
			if a := get(t, srv, path, nil); a.status != 400 || a.body["code"] != "rest_invalid_param" {
				t.Errorf("%s %s: %d %.300s, want 400 rest_invalid_param", name, path, a.status, a.raw)
			}
		}
	}
}
