package handlers_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// The embedded store is tested through the same HTTP stack: a SQLite copy of the fixture, made once
// per test binary by wpdb.CopyCalendar (what `calendard copy` runs), then copied per test.

var (
	sqliteFixtureOnce sync.Once
	sqliteFixtureFile string
	sqliteFixtureErr  error
)

func sqliteFixture(t *testing.T) string {
	t.Helper()
	testenv.SkipIfShort(t, "mariadbd, which the SQLite copy of the fixture is made from") // not in the Once: a skip there would end it
	sqliteFixtureOnce.Do(func() {
		src, err := wpdb.OpenMySQL(testenv.FixtureDB(t, fixture, "h_sqlite_source"), "wp_")
		if err != nil {
			sqliteFixtureErr = err
			return
		}
		defer src.Close()
		// The shared server's directory goes away with it at the end of the test binary.
		sqliteFixtureFile = filepath.Join(testenv.SharedMariaDB(t).Dir, "handlers-fixture.db")
		dst, err := wpdb.OpenSQLite(sqliteFixtureFile, "wp_")
		if err != nil {
			sqliteFixtureErr = err
			return
		}
		defer dst.Close()
		_, sqliteFixtureErr = wpdb.CopyCalendar(context.Background(), src, dst, false, nil)
	})
	if sqliteFixtureErr != nil {
		t.Fatalf("copying the fixture to SQLite: %v", sqliteFixtureErr)
	}
	return sqliteFixtureFile
}

// serveSQLiteFixture serves a fresh SQLite copy of the fixture with cfg.
func serveSQLiteFixture(t *testing.T, cfg handlers.Config) *httptest.Server {
	t.Helper()
	srv, _ := serveSQLiteFixtureAt(t, cfg)
	return srv
}

// serveSQLiteFixtureAt is serveSQLiteFixture that also returns the database file.
func serveSQLiteFixtureAt(t *testing.T, cfg handlers.Config) (*httptest.Server, string) {
	t.Helper()
	b, err := os.ReadFile(sqliteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wp.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := wpdb.OpenSQLite(path, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return serveLive(t, cfg, db), path
}

// bothStores serves the fixture on MariaDB and on SQLite with the same configuration (the clock
// frozen at recordedNow and the local environment unless cfg says otherwise).
func bothStores(t *testing.T, cfg handlers.Config) map[string]*httptest.Server {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = func() time.Time { return recordedNow }
	}
	if cfg.Environment == "" {
		cfg.Environment = "local"
	}
	mysqlSrv, _, _ := serveFixture(t, cfg, "s")
	return map[string]*httptest.Server{"mysql": mysqlSrv, "sqlite": serveSQLiteFixture(t, cfg)}
}
