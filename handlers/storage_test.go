package handlers_test

import (
	"database/sql"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/wpdb"
)

// storeSite is one store serving the fixture, with a raw connection to its database.
type storeSite struct {
	srv *httptest.Server
	raw *sql.DB
}

// servedStores serves a fresh copy of the fixture on MariaDB and on SQLite, each with the setup
// statements run on it first (plain SQL both dialects take), the clock frozen at now; prefix names
// the MariaDB copy (one per prefix and test).
func servedStores(t *testing.T, now time.Time, prefix string, setup ...string) map[string]storeSite {
	t.Helper()
	cfg := handlers.Config{Environment: "local", Clock: func() time.Time { return now }}
	out := map[string]storeSite{}

	srv, raw, _ := serveFixture(t, cfg, prefix)
	for _, st := range setup {
		if _, err := raw.Exec(st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	if len(setup) > 0 {
		settle(t, srv)
	}
	out["mysql"] = storeSite{srv, raw}

	b, err := os.ReadFile(sqliteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wp.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	lite, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	for _, st := range setup {
		if _, err := lite.Exec(st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	db, err := wpdb.OpenSQLite(path, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	liteSrv := serveLive(t, cfg, db)
	out["sqlite"] = storeSite{liteSrv, lite}
	return out
}

// legacySetup switches the plugin's custom tables off as the plugin's own option does
// (update_option('tec_custom_tables_v1_active', false) stores ”) and empties them.
var legacySetup = []string{
	"INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('tec_custom_tables_v1_active', '', 'auto')",
	"DELETE FROM wp_tec_occurrences",
	"DELETE FROM wp_tec_events",
}

func customTableRows(t *testing.T, db *sql.DB) int {
	t.Helper()
	return scalar[int](t, db, "SELECT (SELECT COUNT(*) FROM wp_tec_events) + (SELECT COUNT(*) FROM wp_tec_occurrences)")
}

// On a site the plugin keeps on postmeta, creating, updating and trashing an event writes no
// custom-table row (the plugin's Updates provider is not registered there), and the event is listed
// and read from its postmeta. The same create on the fixture as recorded does write the rows.
func TestLegacySiteWritesNoCustomTableRows(t *testing.T) {
	for _, mode := range []struct {
		name, prefix string
		setup        []string
		wantRows     bool
	}{
		{"custom tables in use", "ct", nil, true},
		{"custom tables switched off", "pm", legacySetup, false},
	} {
		for name, s := range servedStores(t, recordedNow, mode.prefix, mode.setup...) {
			t.Run(mode.name+"/"+name, func(t *testing.T) {
				before := customTableRows(t, s.raw)
				a := call(t, s.srv, "POST", "/wp-json/tribe/events/v1/events", map[string]any{
					"title": "Legacy write", "start_date": "2027-06-01 10:00:00", "end_date": "2027-06-01 12:00:00"}, "admin")
				if a.status != 201 {
					t.Fatalf("create: %d %s", a.status, a.raw)
				}
				id := fmt.Sprint(a.body["id"])
				added := customTableRows(t, s.raw) - before
				if mode.wantRows && added != 2 {
					t.Errorf("the plugin writes a tec_events and a tec_occurrences row; %d rows added", added)
				}
				if !mode.wantRows && customTableRows(t, s.raw) != 0 {
					t.Errorf("create wrote %d custom-table rows on a postmeta site", customTableRows(t, s.raw))
				}
				if got := scalar[string](t, s.raw, "SELECT meta_value FROM wp_postmeta WHERE post_id = ? AND meta_key = '_EventStartDateUTC'", id); got != "2027-06-01 14:00:00" {
					t.Errorf("_EventStartDateUTC = %q", got)
				}
				listed := func(day string) bool {
					l := call(t, s.srv, "GET", "/wp-json/tribe/events/v1/events?start_date="+day+"&end_date="+day, nil, "")
					for _, e := range eventList(l) {
						if fmt.Sprint(e["id"]) == id {
							return true
						}
					}
					return false
				}
				if !listed("2027-06-01") {
					t.Error("the new event is not listed on its day")
				}
				u := call(t, s.srv, "POST", "/wp-json/tribe/events/v1/events/"+id, map[string]any{
					"title": "Legacy write", "start_date": "2027-06-03 09:00:00", "end_date": "2027-06-03 10:00:00"}, "admin")
				if u.status != 200 || u.body["start_date"] != "2027-06-03 09:00:00" {
					t.Fatalf("update: %d %s", u.status, u.raw)
				}
				if listed("2027-06-01") || !listed("2027-06-03") {
					t.Error("the list does not follow the updated dates")
				}
				if d := call(t, s.srv, "DELETE", "/wp-json/tribe/events/v1/events/"+id, nil, "admin"); d.status != 200 {
					t.Fatalf("trash: %d %s", d.status, d.raw)
				}
				if !mode.wantRows && customTableRows(t, s.raw) != 0 {
					t.Errorf("update or trash wrote %d custom-table rows on a postmeta site", customTableRows(t, s.raw))
				}
			})
		}
	}
}

func eventList(a answer) []map[string]any {
	var out []map[string]any
	list, _ := a.body["events"].([]any)
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
