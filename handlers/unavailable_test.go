package handlers_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// With MariaDB stopped (connections refused), a read that needs the database answers 503
// service_unavailable, as a write does, never a 500. What this guards against: uncached singles and
// list pages answering 500 internal_server_error while the server is down, because with the site
// options in memory (a started store, as calendard serve runs it) the read's own query fails and its
// error must be recognised as the database's.
func TestStoppedDatabaseAnswers503(t *testing.T) {
	testenv.SkipIfShort(t, "mariadbd")
	m, err := testenv.StartMariaDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := m.CreateDatabase(ctx, "wp"); err != nil {
		t.Fatal(err)
	}
	if err := m.LoadSQL(ctx, "wp", fixture); err != nil {
		t.Fatal(err)
	}
	db, err := wpdb.OpenMySQL(m.DSN("wp"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// Site options kept in memory, but no event index or loaded records: every read below must
	// reach the database that goes away.
	store := service.Start(ctx, db, wpdb.SiteOverrides{}, wpdb.StartOptions{WatchInterval: time.Hour, NoIndex: true})
	srv := httptest.NewServer(service.Handler(handlers.Config{Environment: "local", Clock: func() time.Time { return eventsNow }}, store))
	t.Cleanup(srv.Close)
	if a := call(t, srv, "GET", eventsPath+"/41", nil, ""); a.status != 200 {
		t.Fatalf("before: %d %.200s", a.status, a.raw)
	}

	m.Stop()
	for _, path := range []string{eventsPath + "/42", eventsPath + "?per_page=3&page=7", "/wp-json/tribe/events/v1/venues/21",
		"/wp-json/tribe/events/v1/organizers?page=2&per_page=2"} {
		if a := call(t, srv, "GET", path, nil, ""); a.status != 503 || a.body["code"] != "service_unavailable" || !wpShaped(a) {
			t.Errorf("GET %s: %d %.200s, want 503 service_unavailable", path, a.status, a.raw)
		}
	}
	if a := call(t, srv, "POST", eventsPath, map[string]any{"title": "Down", "start_date": "2027-01-01 10:00:00",
		"end_date": "2027-01-01 11:00:00"}, "admin"); a.status != 503 || a.body["code"] != "service_unavailable" {
		t.Errorf("write: %d %.200s, want 503 service_unavailable", a.status, a.raw)
	}
}
