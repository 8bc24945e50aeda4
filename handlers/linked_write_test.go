package handlers_test

import (
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"
)

// lwNow is the clock of the recorded venue/organizer write cases.
var lwNow = time.Date(2026, 11, 22, 4, 31, 20, 0, time.UTC)

// lwRows counts the rows a write can touch, to prove a refused request changed nothing.
func lwRows(t *testing.T, db *sql.DB) [2]int {
	return [2]int{scalar[int](t, db, "SELECT COUNT(*) FROM wp_posts"), scalar[int](t, db, "SELECT COUNT(*) FROM wp_postmeta")}
}

const venuesPath = "/wp-json/tribe/events/v1/venues"
const organizersPath = "/wp-json/calendar/events/v1/organizers"

func TestLinkedWriteRefusesBadInputWithoutWriting(t *testing.T) {
	srv, db, _ := fixtureServer(t, lwNow)
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"missing name is a missing parameter", "POST", venuesPath, `{"city":"x"}`, 400, "rest_missing_callback_param"},
		{"empty name is invalid", "POST", venuesPath, `{"venue":""}`, 400, "rest_invalid_param"},
		{"name as a list is invalid", "POST", venuesPath, `{"venue":["a"]}`, 400, "rest_invalid_param"},
		{"JSON boolean map flag is not a string", "POST", venuesPath, `{"venue":"x","show_map":true}`, 400, "rest_invalid_param"},
		{"explicit null is not a string", "POST", venuesPath, `{"venue":"x","city":null}`, 400, "rest_invalid_param"},
		{"numeric city is not a string", "POST", venuesPath, `{"venue":"x","city":5}`, 400, "rest_invalid_param"},
		{"unknown author", "POST", venuesPath, `{"venue":"x","author":999}`, 400, "rest_invalid_param"},
		{"non-numeric author", "POST", venuesPath, `{"venue":"x","author":"abc"}`, 400, "rest_invalid_param"},
		{"unregistered status", "POST", venuesPath, `{"venue":"x","status":"bogus"}`, 400, "rest_invalid_param"},
		{"website that is not a URL", "POST", venuesPath, `{"venue":"x","website":"not a url"}`, 400, "rest_invalid_param"},
		{"website host with underscore", "POST", venuesPath, `{"venue":"x","website":"https://ex_ample.com"}`, 400, "rest_invalid_param"},
		{"image that is not an attachment", "POST", venuesPath, `{"venue":"x","image":"34"}`, 400, "rest_invalid_param"},
		{"image URL that is not in the library", "POST", venuesPath, `{"venue":"x","image":"https://img.example.com/a.jpg"}`, 400, "rest_invalid_param"},
		{"unparseable date", "POST", venuesPath, `{"venue":"x","date":"garbage"}`, 400, "rest_invalid_param"},
		{"malformed JSON", "POST", venuesPath, `{"venue":`, 400, "rest_invalid_json"},
		{"organizer null name", "POST", organizersPath, `{"organizer":null}`, 400, "rest_missing_callback_param"},
		{"organizer numeric email", "POST", organizersPath, `{"organizer":"x","email":7}`, 400, "rest_invalid_param"},
		{"update of a non-venue ID", "POST", venuesPath + "/34", `{"venue":"x"}`, 400, "rest_invalid_param"},
		{"update of an unknown ID", "PUT", venuesPath + "/999999", `{"venue":"x"}`, 400, "rest_invalid_param"},
		{"delete of an organizer through /venues", "DELETE", venuesPath + "/22", "", 400, "rest_invalid_param"},
		{"delete of an unknown slug", "DELETE", organizersPath + "/by-slug/nope", "", 400, "rest_invalid_param"},
		{"delete of a trashed venue", "DELETE", venuesPath + "/32", "", 410, "venue-is-in-trash"},
		{"delete of a trashed organizer", "DELETE", organizersPath + "/30", "", 410, "organizer-is-in-trash"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := lwRows(t, db)
			a := call(t, srv, tc.method, tc.path, tc.body, "admin")
			if a.status != tc.status || a.body["code"] != tc.code {
				t.Errorf("%d %v, want %d %s: %s", a.status, a.body["code"], tc.status, tc.code, a.raw)
			}
			if after := lwRows(t, db); after != before {
				t.Errorf("rows changed: %v -> %v", before, after)
			}
		})
	}
}

func TestLinkedWritePermissions(t *testing.T) {
	srv, _, _ := fixtureServer(t, lwNow)
	tests := []struct {
		name, method, path, body, user string
		status                         int
		allow                          string
	}{
		{"anonymous create is 401", "POST", venuesPath, `{"venue":"x"}`, "", 401, "GET"},
		{"subscriber create is 403", "POST", organizersPath, `{"organizer":"x"}`, "subscriber", 403, "GET"},
		{"author cannot edit the admin's venue", "POST", venuesPath + "/10", `{"venue":"x"}`, "author", 403, "GET"},
		{"author cannot delete the admin's organizer", "DELETE", organizersPath + "/26", "", "author", 403, "GET"},
		{"unknown ID shows no write methods", "DELETE", venuesPath + "/999999", "", "admin", 400, "GET"},
		{"editor may update any venue", "PATCH", venuesPath + "/10", `{"phone":"1"}`, "editor", 200, "GET, DELETE, POST, PUT, PATCH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := call(t, srv, tc.method, tc.path, tc.body, tc.user)
			if a.status != tc.status || a.header.Get("Allow") != tc.allow {
				t.Errorf("%d Allow %q, want %d %q: %s", a.status, a.header.Get("Allow"), tc.status, tc.allow, a.raw)
			}
		})
	}
}

func TestVenueLifecycle(t *testing.T) {
	srv, db, _ := fixtureServer(t, lwNow)
	a := call(t, srv, "POST", venuesPath, `{"venue":"Life \\\"Cycle\\\" Hall","city":"Leeds","state":"YK","country":"United Kingdom","show_map":"no"}`, "contributor")
	if a.status != 201 || a.body["status"] != "draft" || a.body["show_map"] != false || a.body["show_map_link"] != true {
		t.Fatalf("create: %d %s", a.status, a.raw)
	}
	id := int(a.body["id"].(float64))
	// The contributor cannot publish: the venue is a draft; the state of a UK venue is not its
	// state/province.
	if got := scalar[int](t, db, "SELECT COUNT(*) FROM wp_postmeta WHERE post_id = ? AND meta_key = '_VenueStateProvince' AND meta_value = ''", id); got != 1 {
		t.Errorf("_VenueStateProvince rows = %d", got)
	}
	// WordPress unslashes what the plugin passes: the backslashes are gone.
	var title string
	if err := db.QueryRow("SELECT post_title FROM wp_posts WHERE ID = ?", id).Scan(&title); err != nil || title != `Life "Cycle" Hall` {
		t.Errorf("title %q (%v)", title, err)
	}

	up := call(t, srv, "POST", venuesPath+"/"+itoa(id), `{"city":"York"}`, "admin")
	if up.status != 200 || up.body["city"] != "York" || up.body["status"] != "publish" || up.body["show_map"] != true {
		t.Errorf("update: %d %s", up.status, up.raw)
	}
	if _, ok := up.body["json_ld"]; ok {
		t.Error("write answers carry no json_ld")
	}

	del := call(t, srv, "DELETE", venuesPath+"/by-slug/life-cycle-hall", "", "admin")
	if del.status != 200 || del.body["status"] != "trash" || del.body["slug"] != "life-cycle-hall__trashed" {
		t.Errorf("delete: %d %s", del.status, del.raw)
	}
	again := call(t, srv, "DELETE", venuesPath+"/"+itoa(id), "", "admin")
	if again.status != 410 || again.body["code"] != "venue-is-in-trash" {
		t.Errorf("second delete: %d %s", again.status, again.raw)
	}
}

func TestOrganizerCreateReusesTheSameName(t *testing.T) {
	srv, db, _ := fixtureServer(t, lwNow)
	before := scalar[int](t, db, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_organizer'")
	a := call(t, srv, "POST", organizersPath, `{"organizer":"Jazz Collective","phone":"+1 555"}`, "admin")
	if a.status != 201 || a.body["id"] != float64(22) || a.body["phone"] != "+1 555" {
		t.Errorf("create: %d %s", a.status, a.raw)
	}
	if after := scalar[int](t, db, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_organizer'"); after != before {
		t.Errorf("organizers %d -> %d", before, after)
	}
}

func TestConcurrentCreatesOfOneNameStoreOnePost(t *testing.T) {
	srv, db, _ := fixtureServer(t, lwNow)
	var wg sync.WaitGroup
	ids := make([]float64, 6)
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			a := call(t, srv, "POST", venuesPath, `{"venue":"Race Hall"}`, "admin")
			if a.status == 201 {
				ids[i], _ = a.body["id"].(float64)
			}
		}(i)
	}
	wg.Wait()
	for _, id := range ids {
		if id == 0 || id != ids[0] {
			t.Fatalf("ids %v: want one post for every request", ids)
		}
	}
	if n := scalar[int](t, db, "SELECT COUNT(*) FROM wp_posts WHERE post_title = 'Race Hall'"); n != 1 {
		t.Errorf("%d posts named Race Hall", n)
	}
}

func TestInlineVenueOfAnEventIsCreatedOnce(t *testing.T) {
	srv, db, _ := fixtureServer(t, lwNow)
	body := `{"title":"Inline","start_date":"2027-05-10 10:00:00","end_date":"2027-05-10 12:00:00",` +
		`"venue":{"venue":"Inline Hall","city":"Leeds"},"organizer":[{"organizer":"Inline Org","email":"a@b.c"}]}`
	for i := 0; i < 2; i++ {
		a := call(t, srv, "POST", "/wp-json/tribe/events/v1/events", body, "admin")
		if a.status != 201 {
			t.Fatalf("event create %d: %d %s", i, a.status, a.raw)
		}
		v, _ := a.body["venue"].(map[string]any)
		if v["venue"] != "Inline Hall" || v["city"] != "Leeds" {
			t.Errorf("venue: %v", a.body["venue"])
		}
	}
	if n := scalar[int](t, db, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_venue' AND post_title = 'Inline Hall'"); n != 1 {
		t.Errorf("%d Inline Hall venues, want the second event to reuse the first", n)
	}
	if n := scalar[int](t, db, "SELECT COUNT(*) FROM wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id WHERE p.post_title = 'Inline Org' AND m.meta_key = '_OrganizerOrigin'"); n != 1 {
		t.Errorf("organizer origin rows = %d", n)
	}
	bad := call(t, srv, "POST", "/wp-json/tribe/events/v1/events", strings.Replace(body, `"city":"Leeds"`, `"website":"nope"`, 1), "admin")
	if bad.status != 400 {
		t.Errorf("inline venue with a bad website: %d %s", bad.status, bad.raw)
	}
}
