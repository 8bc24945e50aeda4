package handlers_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// Form bodies can carry bytes that are not UTF-8 (JSON bodies cannot: they fail to decode).
// WordPress' wpdb refuses such text: a post field makes wp_insert_post fail with db_insert_error
// (db_update_error on update) naming the field, and a meta value is dropped. calendard answers the
// same on every store, never with a 500, and a refused write changes nothing.
func TestInvalidUTF8InFormBodies(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	form := func(method, path, raw, user string) answer {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range basic(user, appPasswords[user]) {
			req.Header.Set(k, v)
		}
		return do(t, req)
	}
	const dates = "&start_date=2027-01-01T10:00&end_date=2027-01-01T11:00"
	refused := []struct {
		name, method, path, body, code, field string
	}{
		{"an event description is refused", "POST", eventsPath, "title=T&description=%ff" + dates, "db_insert_error", "post_content"},
		{"an event title is refused", "POST", eventsPath, "title=T%ff" + dates, "db_insert_error", "post_title"},
		{"an event excerpt is refused", "POST", eventsPath, "title=T&excerpt=%ff%fe" + dates, "db_insert_error", "post_excerpt"},
		{"an update of a description is refused", "PATCH", eventsPath + "/34", "description=ok%ff", "db_update_error", "post_content"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			before := tableChecksums(t, db)
			a := form(tc.method, tc.path, tc.body, "admin")
			msg, _ := a.body["message"].(string)
			if a.status != 400 || a.body["code"] != tc.code || !strings.Contains(msg, "field failed: "+tc.field+".") {
				t.Errorf("got %d %.300s, want 400 %s naming %s", a.status, a.raw, tc.code, tc.field)
			}
			sameTables(t, db, before, tc.name)
		})
	}
	t.Run("a term description is refused on create", func(t *testing.T) {
		before := tableChecksums(t, db)
		a := form("POST", "/wp-json/tribe/events/v1/categories", "name=Fresh&description=%ff", "admin")
		if a.status != 400 || a.body["code"] != "db_insert_error" {
			t.Errorf("got %d %.300s, want 400 db_insert_error", a.status, a.raw)
		}
		sameTables(t, db, before, "term create")
	})
	t.Run("a term update keeps its description and takes the new name", func(t *testing.T) {
		id := scalar[int](t, db, "SELECT term_id FROM wp_term_taxonomy WHERE taxonomy = 'tribe_events_cat' AND description <> '' ORDER BY term_id LIMIT 1")
		desc := scalar[string](t, db, "SELECT description FROM wp_term_taxonomy WHERE term_id = ?", id)
		a := form("POST", "/wp-json/tribe/events/v1/categories/"+itoa(id), "name=Renamed&description=%ff", "admin")
		if a.status != 200 || a.body["name"] != "Renamed" {
			t.Fatalf("got %d %.300s, want 200 with the new name", a.status, a.raw)
		}
		if got := scalar[string](t, db, "SELECT description FROM wp_term_taxonomy WHERE term_id = ?", id); got != desc {
			t.Errorf("description became %q, want %q kept", got, desc)
		}
	})
	// Every other text field: never a 5xx; a refusal writes nothing; what is stored is valid text.
	others := []struct{ path, body string }{
		{eventsPath, "title=T&cost=%ff" + dates},
		{eventsPath, "title=T&website=http://x.test/%ff" + dates},
		{eventsPath, "title=T&venue[venue]=V%ff&venue[city]=C" + dates},
		{eventsPath, "title=T&venue[venue]=V&venue[city]=C%ff" + dates},
		{eventsPath, "title=T&organizer[organizer]=O%ff" + dates},
		{eventsPath, "title=T&categories[]=%ff&tags[]=%ff" + dates},
		{eventsPath, "title=T&timezone=%ff" + dates},
		{venuesPath, "venue=V%ff"},
		{venuesPath, "venue=V&address=%ff&city=%ff&phone=%ff&website=%ff&stateprovince=%ff&zip=%ff"},
		{organizersPath, "organizer=O%ff"},
		{organizersPath, "organizer=O&email=a%ff@x.test&phone=%ff&website=%ff"},
		{"/wp-json/tribe/events/v1/categories", "name=%ff"},
		{"/wp-json/tribe/events/v1/categories", "name=C&description=%ff&slug=%ff"},
		{"/wp-json/tribe/events/v1/tags", "name=T%ff"},
		{"/wp-json/tribe/events/v1/tags", "name=T2&description=d%ff"},
	}
	for _, tc := range others {
		t.Run(strings.TrimPrefix(tc.path, "/wp-json/")+" "+tc.body+" is answered without a server error", func(t *testing.T) {
			before := tableChecksums(t, db)
			a := form("POST", tc.path, tc.body, "admin")
			switch {
			case a.status >= 500 || a.status == 0:
				t.Errorf("got %d %.300s", a.status, a.raw)
			case a.status >= 400:
				sameTables(t, db, before, tc.body)
			}
		})
	}
}

// multipart/form-data bodies fill the same parameters as urlencoded ones (PHP's $_POST).
func TestMultipartBodyCreatesAnEvent(t *testing.T) {
	srv, db, _ := fixtureServer(t, eventsNow)
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, kv := range [][2]string{{"title", "Multipart Night"}, {"start_date", "2027-01-01 10:00:00"},
		{"end_date", "2027-01-01 11:00:00"}, {"tags[]", "Form Tag"}} {
		if err := w.WriteField(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	req, err := http.NewRequest("POST", srv.URL+eventsPath, &b)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	for k, v := range basic("admin", appPasswords["admin"]) {
		req.Header.Set(k, v)
	}
	a := do(t, req)
	if a.status != 201 || a.body["title"] != "Multipart Night" {
		t.Fatalf("got %d %.300s", a.status, a.raw)
	}
	if tags, _ := a.body["tags"].([]any); len(tags) != 1 {
		t.Errorf("tags = %v, want the one sent", a.body["tags"])
	}
	if n := scalar[int](t, db, "SELECT COUNT(*) FROM wp_posts WHERE post_title = 'Multipart Night'"); n != 1 {
		t.Errorf("%d posts stored", n)
	}
}
