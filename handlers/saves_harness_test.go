package handlers_test

import (
	"database/sql"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/wpdb"
)

// storeFixture is one store's server over a fresh fixture copy and a plain connection to its rows.
type storeFixture struct {
	srv *httptest.Server
	db  *sql.DB
}

// storeFixtures serves a fresh copy of the fixture on MariaDB and on SQLite with cfg (clock frozen
// at eventsNow and the local environment unless cfg says otherwise), each with a raw connection.
func storeFixtures(t *testing.T, cfg handlers.Config) map[string]storeFixture {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = func() time.Time { return eventsNow }
	}
	if cfg.Environment == "" {
		cfg.Environment = "local"
	}
	mysqlSrv, mysqlDB, _ := serveFixture(t, cfg, "sv")
	path := sqliteCopy(t)
	db, err := wpdb.OpenSQLite(path, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	raw, err := sql.Open("sqlite", wpdb.SQLiteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	srv := serveLive(t, cfg, db)
	return map[string]storeFixture{"mysql": {mysqlSrv, mysqlDB}, "sqlite": {srv, raw}}
}

// rowCounts fingerprints the rows a write adds, portably across the two stores.
func rowCounts(t *testing.T, db *sql.DB) string {
	t.Helper()
	return itoa(scalar[int](t, db, "SELECT COUNT(*) FROM wp_posts")) + "/" + itoa(scalar[int](t, db, "SELECT COALESCE(MAX(ID),0) FROM wp_posts")) +
		"/" + itoa(scalar[int](t, db, "SELECT COUNT(*) FROM wp_postmeta")) + "/" + itoa(scalar[int](t, db, "SELECT COUNT(*) FROM wp_tec_events"))
}
