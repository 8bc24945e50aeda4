package gen_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/bench/gen"
	"github.com/calendard/calendard/wpdb"
)

// migratedSQLite makes a SQLite file named name in a temporary directory, migrated as `calendard
// migrate` does for a site in timezone, and returns its store spec.
func migratedSQLite(t *testing.T, name, timezone string) string {
	t.Helper()
	spec := "sqlite://" + filepath.Join(t.TempDir(), name)
	w, err := wpdb.Open(spec, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Migrate(context.Background(), wpdb.MigrateOptions{SiteURL: "http://127.0.0.1:8080", Timezone: timezone, SiteName: "Calendar",
		AdminLogin: "admin", AdminEmail: "admin@example.com"}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return spec
}

// The SQLite load drops the written tables' secondary indexes and creates them again after the
// rows: the schema it leaves is the one calendard migrate made (sqlite_master's every index and
// table with its statement; a user's own index too), the database is back in WAL mode, and the
// indexes hold the rows (integrity_check compares every index with its table). Once on a freshly
// migrated store, once over that calendar (Replace, with rows already in the tables).
func TestSQLiteLoadKeepsTheSchema(t *testing.T) {
	ctx := context.Background()
	spec := migratedSQLite(t, "schema.db", "UTC")
	db, store, err := gen.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE INDEX site_own_index ON wp_postmeta (meta_value) WHERE meta_key = '_site_key'"); err != nil {
		t.Fatal(err)
	}
	const schemaQ = "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name"
	migrated := dump(t, db, schemaQ)
	if len(migrated) < 40 {
		t.Fatalf("the migrated schema has %d entries:\n%v", len(migrated), migrated)
	}
	for i, replace := range []bool{false, true} {
		if _, err := gen.Generate(ctx, db, store, gen.Options{Events: 300, Seed: 5, Now: anchor, Replace: replace}); err != nil {
			t.Fatal(err)
		}
		if got := dump(t, db, schemaQ); !reflect.DeepEqual(got, migrated) {
			t.Errorf("generation %d: the schema is not migrate's:\nlost %q\nnew %q", i+1, minus(migrated, got), minus(got, migrated))
		}
		for q, want := range map[string]string{"PRAGMA journal_mode": "wal", "PRAGMA integrity_check": "ok",
			"SELECT COUNT(*) >= 300 FROM wp_postmeta INDEXED BY wp_postmeta_meta_key WHERE meta_key = '_EventStartDate'": "1"} {
			var got string
			if err := db.QueryRowContext(ctx, q).Scan(&got); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if got != want {
				t.Errorf("generation %d: %s = %q, want %q", i+1, q, got, want)
			}
		}
	}
}

// With another connection open on the database (a server reading it), the load cannot leave WAL
// mode for its in-memory journal: it writes in WAL mode instead of failing.
func TestSQLiteLoadBesideAnotherConnection(t *testing.T) {
	ctx := context.Background()
	spec := "sqlite://" + filepath.Join(t.TempDir(), "shared.db")
	w, err := wpdb.Open(spec, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Migrate(ctx, wpdb.MigrateOptions{SiteURL: "http://127.0.0.1:8080", Timezone: "UTC", SiteName: "Calendar",
		AdminLogin: "admin", AdminEmail: "admin@example.com"}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	other, _, err := gen.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var n int
	if err := other.QueryRowContext(ctx, "SELECT COUNT(*) FROM wp_posts").Scan(&n); err != nil {
		t.Fatal(err)
	}
	db, store, err := gen.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := gen.Generate(ctx, db, store, gen.Options{Events: 100, Seed: 5, Now: anchor}); err != nil {
		t.Fatal(err)
	}
	if err := other.QueryRowContext(ctx, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_events'").Scan(&n); err != nil || n != 100 {
		t.Errorf("the other connection reads %d events (%v), want 100", n, err)
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q (%v), want wal", mode, err)
	}
}

// A load that fails (here the occurrences' unique hash index, created again after the rows, finds a
// duplicate) leaves the database as it was: no event, the schema whole, WAL mode.
func TestSQLiteLoadFailureRollsBack(t *testing.T) {
	ctx := context.Background()
	migrate := func(name string) (*sql.DB, gen.Store, []string) {
		db, store, err := gen.Open(migratedSQLite(t, name, "UTC"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db, store, dump(t, db, "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name")
	}
	opts := gen.Options{Events: 50, Seed: 5, Now: anchor}
	first, store, _ := migrate("first.db")
	if _, err := gen.Generate(ctx, first, store, opts); err != nil {
		t.Fatal(err)
	}
	var hash string
	if err := first.QueryRowContext(ctx, "SELECT hash FROM wp_tec_occurrences ORDER BY occurrence_id DESC LIMIT 1").Scan(&hash); err != nil {
		t.Fatal(err)
	}
	db, store, migrated := migrate("second.db")
	if _, err := db.ExecContext(ctx, "INSERT INTO wp_tec_occurrences (occurrence_id, event_id, post_id, start_date, start_date_utc, end_date, end_date_utc, hash) "+
		"VALUES (900000, 900000, 900000, '2020-01-01 00:00:00', '2020-01-01 00:00:00', '2020-01-01 01:00:00', '2020-01-01 01:00:00', ?)", hash); err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Generate(ctx, db, store, opts); err == nil || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("generating over a duplicate occurrence hash: %v, want the unique index's error", err)
	}
	if got := dump(t, db, "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name"); !reflect.DeepEqual(got, migrated) {
		t.Errorf("after the failure the schema is not migrate's:\nlost %q\nnew %q", minus(migrated, got), minus(got, migrated))
	}
	for q, want := range map[string]string{"PRAGMA journal_mode": "wal", "PRAGMA integrity_check": "ok",
		"SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_events'": "0", "SELECT COUNT(*) FROM wp_tec_occurrences": "1"} {
		var got string
		if err := db.QueryRowContext(ctx, q).Scan(&got); err != nil || got != want {
			t.Errorf("after the failure %s = %q (%v), want %q", q, got, err, want)
		}
	}
}

// minus is what a holds and b does not.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
