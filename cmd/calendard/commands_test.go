package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var fixture = filepath.Join("..", "..", "compat-tests", "testdata", "site-a", "fixture.sql")

var calendarTables = []string{"options", "users", "usermeta", "posts", "postmeta", "terms", "term_taxonomy",
	"term_relationships", "termmeta", "tec_events", "tec_occurrences"}

// dump renders every calendar table's rows (in primary-key order, values as text) and the next
// AUTO_INCREMENT values, so two stores can be compared exactly.
func dump(t *testing.T, db *wpdb.DB, raw *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, name := range calendarTables {
		cols, rows := testenv.Rows(t, raw, "SELECT * FROM wp_"+name)
		var lines []string
		for _, vals := range rows {
			parts := make([]string, len(cols))
			for i, v := range vals {
				parts[i] = cols[i] + "=" + fmt.Sprint(v.Valid, v.String)
			}
			lines = append(lines, strings.Join(parts, "|"))
		}
		sort.Strings(lines)
		fmt.Fprintf(&b, "## %s (%d rows)\n%s\n", name, len(lines), strings.Join(lines, "\n"))
	}
	next, err := db.NextIDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "## next ids %v\n", next)
	return b.String()
}

func openBoth(t *testing.T, spec string) (*wpdb.DB, *sql.DB) {
	t.Helper()
	db, err := wpdb.Open(spec, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var raw *sql.DB
	if dsn, ok := strings.CutPrefix(spec, "mysql://"); ok {
		raw, err = sql.Open("mysql", dsn)
	} else {
		path, _ := wpdb.SQLitePath(spec)
		raw, err = sql.Open("sqlite", wpdb.SQLiteDSN(path))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return db, raw
}

// A calendar copied MySQL → SQLite → MySQL comes back row for row, with the same counters.
func TestCopyRoundTripKeepsEveryRow(t *testing.T) {
	ctx := context.Background()
	maria := testenv.SharedMariaDB(t)
	srcSpec := "mysql://" + testenv.FixtureDB(t, fixture, testenv.DBName("cps", t))
	liteSpec := "sqlite://" + filepath.Join(t.TempDir(), "copy.db")
	backName := testenv.DBName("cpb", t)
	if err := maria.CreateDatabase(ctx, backName); err != nil {
		t.Fatal(err)
	}
	backSpec := "mysql://" + maria.DSN(backName)

	for _, hop := range [][2]string{{srcSpec, liteSpec}, {liteSpec, backSpec}} {
		if err := copyCalendar([]string{"--from", hop[0], "--to", hop[1], "--quiet"}); err != nil {
			t.Fatalf("copy %s → %s: %v", hop[0], hop[1], err)
		}
	}
	srcDB, srcRaw := openBoth(t, srcSpec)
	liteDB, liteRaw := openBoth(t, liteSpec)
	backDB, backRaw := openBoth(t, backSpec)
	want := dump(t, srcDB, srcRaw)
	if got := dump(t, liteDB, liteRaw); got != want {
		t.Errorf("SQLite copy differs from the MySQL source:\n%s", firstDifference(want, got))
	}
	if got := dump(t, backDB, backRaw); got != want {
		t.Errorf("copy back to MySQL differs from the source:\n%s", firstDifference(want, got))
	}
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n want %.300s\n  got %.300s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(al), len(bl))
}

func TestCopyRefusesATargetWithRows(t *testing.T) {
	src := "mysql://" + testenv.FixtureDB(t, fixture, testenv.DBName("crs", t))
	dst := "sqlite://" + filepath.Join(t.TempDir(), "full.db")
	if err := copyCalendar([]string{"--from", src, "--to", dst, "--quiet"}); err != nil {
		t.Fatal(err)
	}
	err := copyCalendar([]string{"--from", src, "--to", dst, "--quiet"})
	if err == nil || !strings.Contains(err.Error(), "already holds calendar rows") {
		t.Fatalf("second copy: %v, want a refusal", err)
	}
	if err := copyCalendar([]string{"--from", src, "--to", dst, "--quiet", "--replace"}); err != nil {
		t.Fatalf("copy --replace: %v", err)
	}
}

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	t.Run("an empty SQLite file gets tables, options and one administrator, once", func(t *testing.T) {
		spec := "sqlite://" + filepath.Join(t.TempDir(), "new.db")
		db, raw := openBoth(t, spec)
		res, err := db.Migrate(ctx, wpdb.MigrateOptions{SiteURL: "http://127.0.0.1:8080", Timezone: "UTC", SiteName: "Cal",
			AdminLogin: "admin", AdminEmail: "a@example.com"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if res.AppPassword == "" || len(strings.ReplaceAll(res.AppPassword, " ", "")) != 24 {
			t.Errorf("application password %q", res.AppPassword)
		}
		before := dump(t, db, raw)
		res2, err := db.Migrate(ctx, wpdb.MigrateOptions{SiteURL: "http://x", Timezone: "UTC", AdminLogin: "other"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if res2.AppPassword != "" || len(res2.AddedOptions) != 0 {
			t.Errorf("second run changed the site: %+v", res2)
		}
		if after := dump(t, db, raw); after != before {
			t.Errorf("second run changed rows:\n%s", firstDifference(before, after))
		}
	})
	t.Run("an existing WordPress install keeps every row", func(t *testing.T) {
		spec := "mysql://" + testenv.FixtureDB(t, fixture, testenv.DBName("mig", t))
		db, raw := openBoth(t, spec)
		before := dump(t, db, raw)
		res, err := db.Migrate(ctx, wpdb.MigrateOptions{SiteURL: "http://x", Timezone: "UTC", AdminLogin: "intruder"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if res.AppPassword != "" || len(res.AddedOptions) != 0 {
			t.Errorf("migrate changed an installed site: %+v", res)
		}
		if after := dump(t, db, raw); after != before {
			t.Errorf("rows changed:\n%s", firstDifference(before, after))
		}
		// The one thing it adds: the index the change feed's watermark reads, once.
		if !slices.Equal(res.AddedIndexes, []string{"wp_posts.calendard_modified_gmt"}) {
			t.Errorf("added indexes %v, want wp_posts.calendard_modified_gmt", res.AddedIndexes)
		}
		var plan string
		if err := raw.QueryRow("EXPLAIN SELECT MAX(post_modified_gmt) FROM wp_posts").Scan(new(any), new(any), new(any), new(any), new(any), new(any), new(any), new(any), new(any), &plan); err != nil || plan != "Select tables optimized away" {
			t.Errorf("MAX(post_modified_gmt) is planned %q (%v), want it read from the index", plan, err)
		}
		again, err := db.Migrate(ctx, wpdb.MigrateOptions{SiteURL: "http://x", Timezone: "UTC"}, time.Now())
		if err != nil || len(again.AddedIndexes) != 0 {
			t.Errorf("a second migrate added %v (%v)", again.AddedIndexes, err)
		}
	})
	t.Run("an empty MySQL database is set up like SQLite", func(t *testing.T) {
		maria := testenv.SharedMariaDB(t)
		name := testenv.DBName("mie", t)
		if err := maria.CreateDatabase(ctx, name); err != nil {
			t.Fatal(err)
		}
		db, raw := openBoth(t, "mysql://"+maria.DSN(name))
		res, err := db.Migrate(ctx, wpdb.MigrateOptions{SiteURL: "http://127.0.0.1:8080", Timezone: "UTC", SiteName: "Cal",
			AdminLogin: "admin", AdminEmail: "a@example.com"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := raw.QueryRow("SELECT COUNT(*) FROM wp_usermeta WHERE meta_key = '_application_passwords'").Scan(&n); err != nil || n != 1 {
			t.Errorf("application password rows: %d (%v)", n, err)
		}
		if res.AppPassword == "" {
			t.Error("no application password printed")
		}
	})
}
