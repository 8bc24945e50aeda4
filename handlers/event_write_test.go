package handlers_test

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/wpdb"
)

// eventsNow is the clock of the recorded event write cases.
var eventsNow = time.Date(2026, 11, 22, 4, 30, 10, 0, time.UTC)

const eventsPath = "/wp-json/tribe/events/v1/events"

// metaOf returns a post's meta values of key, in meta_id order.
func metaOf(t *testing.T, db *sql.DB, id int64, key string) []string {
	t.Helper()
	rows, err := db.Query("SELECT meta_value FROM wp_postmeta WHERE post_id = ? AND meta_key = ? ORDER BY meta_id", id, key)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func idOf(t *testing.T, a answer) int64 {
	t.Helper()
	id, ok := a.body["id"].(float64)
	if !ok {
		t.Fatalf("no id in answer %d: %.300s", a.status, a.raw)
	}
	return int64(id)
}

func TestEventCreateStoresThePluginsRows(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	a := call(t, srv, "POST", eventsPath, map[string]any{
		"title": "Harbour Gala", "description": "<p>Live</p>", "start_date": "2027-07-04 18:30:00",
		"end_date": "2027-07-04 22:00:00", "timezone": "America/Los_Angeles", "cost": "$15",
		"website": "https://gala.example.com", "featured": true, "sticky": true, "venue": 10,
		"organizer": []any{22, 23}, "categories": []any{2}, "tags": "12",
	}, "admin")
	if a.status != 201 {
		t.Fatalf("status %d: %.400s", a.status, a.raw)
	}
	id := idOf(t, a)
	var name, status string
	var order int
	if err := db.QueryRow("SELECT post_name, post_status, menu_order FROM wp_posts WHERE ID = ?", id).Scan(&name, &status, &order); err != nil {
		t.Fatal(err)
	}
	if name != "harbour-gala" || status != "publish" || order != -1 {
		t.Errorf("post row: name %q status %q menu_order %d", name, status, order)
	}
	want := map[string][]string{
		"_EventStartDate": {"2027-07-04 18:30:00"}, "_EventEndDate": {"2027-07-04 22:00:00"},
		"_EventStartDateUTC": {"2027-07-05 01:30:00"}, "_EventEndDateUTC": {"2027-07-05 05:00:00"},
		"_EventDuration": {"12600"}, "_EventTimezone": {"America/Los_Angeles"}, "_EventTimezoneAbbr": {"PDT"},
		"_EventCost": {"$15"}, "_EventCurrencySymbol": {"$"}, "_EventCurrencyPosition": {"prefix"},
		"_EventURL": {"https://gala.example.com"}, "_tribe_featured": {"1"}, "_EventVenueID": {"10"},
		"_EventOrganizerID": {"22", "23"}, "_EventOrigin": {"events-calendar"}, "_EventAllDay": nil,
	}
	for key, vals := range want {
		if got := metaOf(t, db, id, key); strings.Join(got, "|") != strings.Join(vals, "|") {
			t.Errorf("%s = %q, want %q", key, got, vals)
		}
	}
	if n := scalar[int](t, db, "SELECT COUNT(*) FROM wp_term_relationships WHERE object_id = ? AND term_taxonomy_id IN (2, 12)", id); n != 2 {
		t.Errorf("term relationships: %d, want 2", n)
	}
	if n := scalar[int](t, db, "SELECT COUNT(*) FROM wp_tec_occurrences WHERE post_id = ? AND start_date_utc = '2027-07-05 01:30:00'", id); n != 1 {
		t.Errorf("occurrence rows: %d, want 1", n)
	}
	if n := scalar[int](t, db, "SELECT COUNT(*) FROM wp_posts WHERE post_parent = ? AND post_type = 'revision'", id); n != 1 {
		t.Errorf("revisions after a sticky create: %d, want 1", n)
	}
	if a.body["sticky"] != true || a.body["featured"] != true || a.body["timezone_abbr"] != "PDT" {
		t.Errorf("record: sticky %v featured %v abbr %v", a.body["sticky"], a.body["featured"], a.body["timezone_abbr"])
	}
}

// An event longer than the plugin's MEDIUMINT duration column (97 days) is stored with the duration
// clamped, as MySQL does for WordPress, instead of failing.
func TestYearLongEventIsStored(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	a := call(t, srv, "POST", eventsPath, map[string]any{"title": "Season", "start_date": "2027-01-01 00:00:00",
		"end_date": "2027-12-31 23:00:00", "timezone": "America/Argentina/ComodRivadavia"}, "admin")
	if a.status != 201 {
		t.Fatalf("status %d: %.300s", a.status, a.raw)
	}
	id := idOf(t, a)
	if d := metaOf(t, db, id, "_EventDuration"); len(d) != 1 || d[0] != "31532400" {
		t.Errorf("_EventDuration %v", d)
	}
	var dur int64
	var zone string
	if err := db.QueryRow("SELECT duration, timezone FROM wp_tec_events WHERE post_id = ?", id).Scan(&dur, &zone); err != nil {
		t.Fatal(err)
	}
	if dur != 8388607 || zone != "America/Argentina/ComodRivadav" {
		t.Errorf("tec_events duration %d zone %q", dur, zone)
	}
}

func TestEventUpdateFollowsThePluginsOmissionRules(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	// Event 44 has a website, a cost and two organizers; an update sending only a title keeps the
	// title's neighbours (description, venue) and clears what the plugin clears.
	a := call(t, srv, "PATCH", eventsPath+"/44", map[string]any{"title": "Renamed"}, "admin")
	if a.status != 200 {
		t.Fatalf("status %d: %.300s", a.status, a.raw)
	}
	checks := []struct {
		key  string
		want []string
	}{
		{"_EventURL", []string{""}},
		{"_EventCost", nil},
		{"_EventOrganizerID", nil},
		{"_EventVenueID", []string{"15"}},
		{"_EventAllDay", []string{""}},
		{"_EventTimezone", []string{"America/New_York"}},
	}
	for _, c := range checks {
		if got := metaOf(t, db, 44, c.key); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s = %q, want %q", c.key, got, c.want)
		}
	}
	title := scalar[string](t, db, "SELECT post_title FROM wp_posts WHERE ID = 44")
	content := scalar[string](t, db, "SELECT post_content FROM wp_posts WHERE ID = 44")
	if title != "Renamed" || !strings.Contains(content, "Script tags") {
		t.Errorf("title %q content %q", title, content)
	}
	// Organizer 29 was a draft linked to the published event: the plugin publishes it.
	if s := scalar[string](t, db, "SELECT post_status FROM wp_posts WHERE ID = 29"); s != "publish" {
		t.Errorf("linked draft organizer is %q, want publish", s)
	}
}

func TestEventWriteErrors(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	valid := func(extra map[string]any) map[string]any {
		b := map[string]any{"title": "X", "start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	tests := []struct {
		name   string
		method string
		path   string
		body   any
		user   string
		status int
		code   string
	}{
		{"missing dates are listed", "POST", eventsPath, map[string]any{"title": "X"}, "admin", 400, "rest_missing_callback_param"},
		{"empty title is invalid", "POST", eventsPath, valid(map[string]any{"title": ""}), "admin", 400, "rest_invalid_param"},
		{"unparsable start is invalid", "POST", eventsPath, valid(map[string]any{"start_date": "not a date"}), "admin", 400, "rest_invalid_param"},
		{"numeric start date is the wrong type", "POST", eventsPath, valid(map[string]any{"start_date": 1800000000}), "admin", 400, "rest_invalid_param"},
		{"unknown venue is invalid", "POST", eventsPath, valid(map[string]any{"venue": 999999}), "admin", 400, "rest_invalid_param"},
		{"an event is not a venue", "POST", eventsPath, valid(map[string]any{"venue": 34}), "admin", 400, "rest_invalid_param"},
		{"unknown organizer is invalid", "POST", eventsPath, valid(map[string]any{"organizer": []any{999999}}), "admin", 400, "rest_invalid_param"},
		{"a venue list cannot be created", "POST", eventsPath, valid(map[string]any{"venue": []any{10, 11}}), "admin", 400, "could-not-create-venue"},
		{"a bare organizer object cannot be created", "POST", eventsPath, valid(map[string]any{"organizer": map[string]any{"organizer": "O", "phone": "1"}}), "admin", 400, "could-not-create-organizer"},
		{"non-boolean flag is the wrong type", "POST", eventsPath, valid(map[string]any{"featured": "maybe"}), "admin", 400, "rest_invalid_param"},
		{"unknown timezone is invalid", "POST", eventsPath, valid(map[string]any{"timezone": "Mars/Olympus"}), "admin", 400, "rest_invalid_param"},
		{"unknown status is invalid", "POST", eventsPath, valid(map[string]any{"status": "bogus"}), "admin", 400, "rest_invalid_param"},
		{"image that is no attachment is invalid", "POST", eventsPath, valid(map[string]any{"image": "999999"}), "admin", 400, "rest_invalid_param"},
		{"remote image is not fetched", "POST", eventsPath, valid(map[string]any{"image": "https://example.com/x.jpg"}), "admin", 400, "rest_invalid_param"},
		{"malformed JSON is refused", "POST", eventsPath, `{"title": "X",`, "admin", 400, "rest_invalid_json"},
		{"blank title with no content is empty", "POST", eventsPath, valid(map[string]any{"title": "   "}), "admin", 400, "empty_content"},
		{"unknown event is not found", "POST", eventsPath + "/999999", map[string]any{"title": "Y"}, "admin", 404, "rest-event-not-found"},
		{"a venue is not an event", "POST", eventsPath + "/10", map[string]any{"title": "Y"}, "admin", 400, "rest-invalid-event-id"},
		{"a trashed event cannot be deleted again", "DELETE", eventsPath + "/61", nil, "admin", 410, "event-is-in-trash"},
		{"unknown slug is not found", "POST", eventsPath + "/by-slug/no-such-event", map[string]any{"title": "Y"}, "admin", 404, "rest-event-not-found"},
		{"a title longer than its column is refused", "POST", eventsPath, valid(map[string]any{"title": strings.Repeat("é", 40000)}), "admin", 400, "db_insert_error"},
		{"an update to an over-long excerpt is refused", "POST", eventsPath + "/34", map[string]any{"excerpt": strings.Repeat("x", 65536)}, "admin", 400, "db_update_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tableChecksums(t, db)
			a := call(t, srv, tc.method, tc.path, tc.body, tc.user)
			if a.status != tc.status || a.body["code"] != tc.code {
				t.Fatalf("got %d %v, want %d %s: %.300s", a.status, a.body["code"], tc.status, tc.code, a.raw)
			}
			if data, _ := a.body["data"].(map[string]any); data == nil || data["status"] == nil {
				t.Errorf("error body lacks data.status: %.300s", a.raw)
			}
			sameTables(t, db, before, tc.name)
		})
	}
}

func TestEventWritePermissions(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	body := map[string]any{"title": "Perm", "start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}
	// Event 34 belongs to the admin; 59 to the author (published); 50 to the contributor (published).
	tests := []struct {
		name   string
		method string
		path   string
		user   string
		status int
		stored string // resulting post_status of a create
	}{
		{"anonymous cannot create", "POST", eventsPath, "", 401, ""},
		{"subscriber cannot create", "POST", eventsPath, "subscriber", 403, ""},
		{"contributor creates a draft", "POST", eventsPath, "contributor", 201, "draft"},
		{"author publishes", "POST", eventsPath, "author", 201, "publish"},
		{"anonymous cannot update", "POST", eventsPath + "/34", "", 401, ""},
		{"contributor cannot update others' events", "POST", eventsPath + "/34", "contributor", 403, ""},
		{"author cannot update others' events", "POST", eventsPath + "/34", "author", 403, ""},
		{"author cannot update others' events by slug", "POST", eventsPath + "/by-slug/annual-meetup", "author", 403, ""},
		{"contributor cannot update a published own event", "POST", eventsPath + "/50", "contributor", 403, ""},
		{"author updates an own event", "POST", eventsPath + "/59", "author", 200, ""},
		{"editor updates others' events", "POST", eventsPath + "/34", "editor", 200, ""},
		{"subscriber cannot delete", "DELETE", eventsPath + "/38", "subscriber", 403, ""},
		{"author cannot delete others' events", "DELETE", eventsPath + "/43", "author", 403, ""},
		{"author cannot delete others' events by slug", "DELETE", eventsPath + "/by-slug/autumn-hackathon-2026", "author", 403, ""},
		{"editor deletes others' events", "DELETE", eventsPath + "/44", "editor", 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b any
			if tc.method != "DELETE" {
				b = body
			}
			before := tableChecksums(t, db)
			a := call(t, srv, tc.method, tc.path, b, tc.user)
			if a.status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", a.status, tc.status, a.raw)
			}
			if tc.status >= 400 {
				sameTables(t, db, before, tc.name)
				return
			}
			if tc.stored != "" {
				if s := scalar[string](t, db, "SELECT post_status FROM wp_posts WHERE ID = ?", idOf(t, a)); s != tc.stored {
					t.Errorf("stored status %q, want %q", s, tc.stored)
				}
			}
		})
	}
}

// A connection killed between any two statements of a multi-row write leaves no trace of it.
func TestKilledConnectionLeavesNoPartialRows(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	body := map[string]any{
		"title": "Half Written", "start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00",
		"venue":      map[string]any{"venue": "Brand New Hall", "city": "Leeds"},
		"organizer":  []any{map[string]any{"organizer": "Brand New Org"}, 22},
		"categories": []any{"Brand New Category", 2}, "tags": []any{"brand-new-tag"}, "cost": "$5", "sticky": true,
	}
	var mu sync.Mutex
	statements, killAt := 0, 0
	killed := false
	wpdb.TestHookBeforeStatement = func(ctx context.Context, connID int64) error {
		mu.Lock()
		defer mu.Unlock()
		statements++
		if killAt > 0 && statements == killAt {
			killed = true
			_, err := db.Exec("KILL CONNECTION " + strconv.FormatInt(connID, 10))
			return err
		}
		return nil
	}
	t.Cleanup(func() { wpdb.TestHookBeforeStatement = nil })

	// A complete run counts the statements of the write; then every cut point is tried.
	probe, _, _ := fixtureServerIn(t, eventsNow, "probe")
	if a := call(t, probe, "POST", eventsPath, body, "admin"); a.status != 201 {
		t.Fatalf("probe write: %d %.300s", a.status, a.raw)
	}
	mu.Lock()
	total := statements
	mu.Unlock()
	if total < 40 {
		t.Fatalf("the write ran only %d statements; expected a multi-row write", total)
	}
	for _, cut := range []int{1, 2, total / 4, total / 2, 3 * total / 4, total - 1, total} {
		t.Run(fmt.Sprintf("killed before statement %d of %d", cut, total), func(t *testing.T) {
			before := tableChecksums(t, db)
			mu.Lock()
			statements, killAt, killed = 0, cut, false
			mu.Unlock()
			a := call(t, srv, "POST", eventsPath, body, "admin")
			mu.Lock()
			wasKilled := killed
			killAt = 0
			mu.Unlock()
			if !wasKilled {
				t.Fatalf("the connection was not killed after %d statements (answer %d)", statements, a.status)
			}
			if a.status != 503 || a.body["code"] != "service_unavailable" {
				t.Errorf("answer %d %v, want 503 service_unavailable: %.300s", a.status, a.body["code"], a.raw)
			}
			sameTables(t, db, before, "killed write")
		})
	}
}

func TestConcurrentCreatesOfOneTitleGetDistinctSlugs(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	const n = 50
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			a := call(t, srv, "POST", eventsPath, map[string]any{"title": "Crowded Night",
				"start_date": "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}, "admin")
			statuses[i] = a.status
		}(i)
	}
	wg.Wait()
	for i, s := range statuses {
		if s != 201 {
			t.Fatalf("create %d answered %d", i, s)
		}
	}
	rows, err := db.Query("SELECT post_name FROM wp_posts WHERE post_type = 'tribe_events' AND post_title = 'Crowded Night'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var slugs []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, s)
	}
	want := []string{"crowded-night"}
	for i := 2; i <= n; i++ {
		want = append(want, "crowded-night-"+strconv.Itoa(i))
	}
	sort.Strings(slugs)
	sort.Strings(want)
	if strings.Join(slugs, ",") != strings.Join(want, ",") {
		t.Errorf("slugs %v, want %v", slugs, want)
	}
}

// Updates of one event that each change a different field, sent at once, all survive: none works
// from a stale copy of the post.
func TestConcurrentUpdatesKeepEveryField(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	for round := 0; round < 3; round++ {
		r := strconv.Itoa(round)
		updates := []map[string]any{
			{"title": "Title " + r}, {"description": "Description " + r}, {"excerpt": "Excerpt " + r},
			{"slug": "slug-round-" + r}, {"author": 2 + round%2}, {"venue": 11 + round},
			{"categories": []any{3 + round}}, {"tags": []any{13 + round}},
		}
		var wg sync.WaitGroup
		for _, u := range updates {
			wg.Add(1)
			go func(u map[string]any) {
				defer wg.Done()
				if a := call(t, srv, "PATCH", eventsPath+"/34", u, "admin"); a.status != 200 {
					t.Errorf("update %v: %d %.200s", u, a.status, a.raw)
				}
			}(u)
		}
		wg.Wait()
		var title, content, excerpt, name string
		var author int
		if err := db.QueryRow("SELECT post_title, post_content, post_excerpt, post_name, post_author FROM wp_posts WHERE ID = 34").
			Scan(&title, &content, &excerpt, &name, &author); err != nil {
			t.Fatal(err)
		}
		if title != "Title "+r || content != "Description "+r || excerpt != "Excerpt "+r || name != "slug-round-"+r || author != 2+round%2 {
			t.Errorf("round %d: post fields lost: %q %q %q %q %d", round, title, content, excerpt, name, author)
		}
		if v := metaOf(t, db, 34, "_EventVenueID"); len(v) != 1 || v[0] != strconv.Itoa(11+round) {
			t.Errorf("round %d: venue %v", round, v)
		}
		for _, tt := range []struct{ tax, want string }{{"tribe_events_cat", strconv.Itoa(3 + round)}, {"post_tag", strconv.Itoa(13 + round)}} {
			got := scalar[string](t, db, `SELECT COALESCE(GROUP_CONCAT(tt.term_id), '') FROM wp_term_relationships tr
				JOIN wp_term_taxonomy tt ON tt.term_taxonomy_id = tr.term_taxonomy_id WHERE tr.object_id = 34 AND tt.taxonomy = ?`, tt.tax)
			if got != tt.want {
				t.Errorf("round %d: %s terms %q, want %q", round, tt.tax, got, tt.want)
			}
		}
	}
}

// Users without unfiltered_html (authors, contributors) cannot store scripts; editors and
// administrators store their markup as sent, as in WordPress.
func TestEventMarkupIsFilteredForUsersWithoutUnfilteredHTML(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	body := map[string]any{"title": `Night <img src=x onerror=alert(1)><b>Bold</b>`,
		"description": `<p onclick="x()">Hi</p><script>alert(1)</script><a href="javascript:alert(1)">a</a>`,
		"excerpt":     `<strong>Short</strong><iframe src="https://evil.example"></iframe>`,
		"start_date":  "2027-05-10 10:00:00", "end_date": "2027-05-10 12:00:00"}
	tests := []struct {
		user     string
		filtered bool
	}{{"author", true}, {"contributor", true}, {"editor", false}, {"admin", false}}
	for _, tc := range tests {
		t.Run(tc.user, func(t *testing.T) {
			a := call(t, srv, "POST", eventsPath, body, tc.user)
			if a.status != 201 {
				t.Fatalf("status %d: %.300s", a.status, a.raw)
			}
			var title, content, excerpt string
			if err := db.QueryRow("SELECT post_title, post_content, post_excerpt FROM wp_posts WHERE ID = ?", idOf(t, a)).
				Scan(&title, &content, &excerpt); err != nil {
				t.Fatal(err)
			}
			all := title + content + excerpt
			unsafe := strings.Contains(all, "<script") || strings.Contains(all, "onerror") || strings.Contains(all, "onclick") ||
				strings.Contains(all, "javascript:") || strings.Contains(all, "<iframe")
			if tc.filtered {
				if unsafe {
					t.Errorf("unsafe markup stored: %q %q %q", title, content, excerpt)
				}
				if !strings.Contains(title, "<b>Bold</b>") || !strings.Contains(excerpt, "<strong>Short</strong>") {
					t.Errorf("allowed markup lost: %q %q", title, excerpt)
				}
				return
			}
			if title != body["title"] || content != body["description"] || excerpt != body["excerpt"] {
				t.Errorf("markup of a user with unfiltered_html changed: %q %q %q", title, content, excerpt)
			}
		})
	}
}
