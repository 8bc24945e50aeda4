package handlers_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
)

// pagedIDs pages through a v1 list (anonymous) and returns its IDs in order.
func pagedIDs(t *testing.T, st storeFixture, path, key string) []int64 {
	t.Helper()
	var ids []int64
	for page := 1; ; page++ {
		a := call(t, st.srv, "GET", path+"&per_page=50&page="+itoa(page), nil, "")
		if a.status != 200 {
			t.Fatalf("%s page %d: %d %.300s", path, page, a.status, a.raw)
		}
		recs, _ := a.body[key].([]any)
		for _, r := range recs {
			ids = append(ids, int64(r.(map[string]any)["id"].(float64)))
		}
		next, _ := a.body["next_rest_url"].(string)
		if next == "" {
			return ids
		}
		if strings.Contains(path, "modified_") != strings.Contains(next, "modified_") {
			t.Errorf("%s: next_rest_url %s does not keep the modified bounds", path, next)
		}
	}
}

// modified_after/modified_before on the plugin's post lists filter as WP_REST_Posts_Controller's:
// post_modified in the site's zone, both bounds exclusive, an offset read as such, a bad date a 400.
func TestV1ListsFilterByModifiedDate(t *testing.T) {
	for name, st := range storeFixtures(t, handlers.Config{}) {
		t.Run(name, func(t *testing.T) {
			for _, l := range []struct{ path, key, postType string }{
				{"/wp-json/tribe/events/v1/venues?status=publish", "venues", "tribe_venue"},
				{"/wp-json/tribe/events/v1/organizers?status=publish", "organizers", "tribe_organizer"},
				{eventsPath + "?start_date=2000-01-01&end_date=2040-01-01", "events", "tribe_events"},
			} {
				all := pagedIDs(t, st, l.path, l.key)
				if len(all) < 3 {
					t.Fatalf("%s: %d posts", l.path, len(all))
				}
				// Distinct modified dates, a few sharing one second, in January (New York at -05:00).
				for i, id := range all {
					local := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC).Add(time.Duration(i/2) * time.Minute)
					if _, err := st.db.Exec("UPDATE wp_posts SET post_modified = ?, post_modified_gmt = ? WHERE ID = ?",
						local.Format(time.DateTime), local.Add(5*time.Hour).Format(time.DateTime), id); err != nil {
						t.Fatal(err)
					}
				}
				settle(t, st.srv)
				modified := map[int64]string{}
				for _, id := range all {
					modified[id] = scalar[string](t, st.db, "SELECT post_modified FROM wp_posts WHERE ID = ?", id)
				}
				sortedDates := make([]string, 0, len(all))
				for _, d := range modified {
					sortedDates = append(sortedDates, d)
				}
				slices.Sort(sortedDates)
				pivot := sortedDates[len(sortedDates)/2]
				var pivotID int64
				for id, d := range modified {
					if d == pivot {
						pivotID = id
					}
				}
				pivotGMT := scalar[string](t, st.db, "SELECT post_modified_gmt FROM wp_posts WHERE ID = ?", pivotID)
				want := func(keep func(string) bool) []int64 {
					var out []int64
					for _, id := range all {
						if keep(modified[id]) {
							out = append(out, id)
						}
					}
					return out
				}
				after, before := want(func(d string) bool { return d > pivot }), want(func(d string) bool { return d < pivot })
				if len(after) == 0 || len(before) == 0 {
					t.Fatalf("%s: pivot %s splits nothing", l.path, pivot)
				}
				q := func(k, v string) string { return l.path + "&" + k + "=" + url.QueryEscape(v) }
				for _, c := range []struct {
					path string
					want []int64
				}{
					{q("modified_after", strings.Replace(pivot, " ", "T", 1)), after},
					{q("modified_after", pivot), after},
					// The same instant written in UTC: read with its offset, compared in the site's zone.
					{q("modified_after", strings.Replace(pivotGMT, " ", "T", 1)+"Z"), after},
					{q("modified_before", strings.Replace(pivot, " ", "T", 1)), before},
					{q("modified_after", "2000-01-01T00:00:00") + "&modified_before=" + url.QueryEscape(strings.Replace(pivot, " ", "T", 1)), before},
				} {
					if got := pagedIDs(t, st, c.path, l.key); !slices.Equal(got, c.want) {
						t.Errorf("%s: %v, want %v", c.path, got, c.want)
					}
				}
				a := call(t, st.srv, "GET", q("modified_after", "yesterday"), nil, "")
				if a.status != 400 || a.body["code"] != "rest_invalid_param" || !containsKey(a.body, "modified_after") {
					t.Errorf("%s with a bad date: %d %.300s", l.path, a.status, a.raw)
				}
			}
		})
	}
}
