package wpdb

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.StopShared()
	if sqliteFixtureDir != "" {
		os.RemoveAll(sqliteFixtureDir)
	}
	os.Exit(code)
}

var fixtureFile = filepath.Join("..", "compat-tests", "testdata", "site-a", "fixture.sql")

// fixtureStore loads the recorded WordPress database into a fresh MariaDB database.
func fixtureStore(t *testing.T) (*Store, *testenv.MariaDB) {
	t.Helper()
	dsn := testenv.FixtureDB(t, fixtureFile, testenv.DBName("wpdb", t))
	db, err := OpenMySQL(dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return NewStore(db, SiteOverrides{}), testenv.SharedMariaDB(t)
}

var (
	sqliteFixtureOnce sync.Once
	sqliteFixture     string // a SQLite file CopyCalendar made from the fixture
	sqliteFixtureErr  error
	sqliteFixtureDir  string
)

// sqliteFixtureStore opens a fresh copy of the fixture as a SQLite file. The file is made once per
// test binary by CopyCalendar (what `calendard copy` runs) from the fixture on MariaDB.
func sqliteFixtureStore(t *testing.T) *Store {
	t.Helper()
	testenv.SkipIfShort(t, "mariadbd, which the SQLite copy of the fixture is made from") // not in the Once: a skip there would end it
	sqliteFixtureOnce.Do(func() {
		dsn := testenv.FixtureDB(t, fixtureFile, "wpdb_sqlite_source")
		src, err := OpenMySQL(dsn, "wp_")
		if err != nil {
			sqliteFixtureErr = err
			return
		}
		defer src.Close()
		if sqliteFixtureDir, err = os.MkdirTemp("", "calendard-wpdb-"); err != nil {
			sqliteFixtureErr = err
			return
		}
		sqliteFixture = filepath.Join(sqliteFixtureDir, "fixture.db")
		dst, err := OpenSQLite(sqliteFixture, "wp_")
		if err != nil {
			sqliteFixtureErr = err
			return
		}
		defer dst.Close()
		_, sqliteFixtureErr = CopyCalendar(context.Background(), src, dst, false, nil)
	})
	if sqliteFixtureErr != nil {
		t.Fatalf("copying the fixture to SQLite: %v", sqliteFixtureErr)
	}
	path := filepath.Join(t.TempDir(), "wp.db")
	b, err := os.ReadFile(sqliteFixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := OpenSQLite(path, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return NewStore(db, SiteOverrides{})
}

// eachStore runs fn as a subtest per store ("mysql", "sqlite"), each on a fresh copy of the fixture:
// the store-level tests hold on both.
func eachStore(t *testing.T, fn func(t *testing.T, s *Store)) {
	t.Helper()
	t.Run("mysql", func(t *testing.T) {
		s, _ := fixtureStore(t)
		fn(t, s)
	})
	t.Run("sqlite", func(t *testing.T) { fn(t, sqliteFixtureStore(t)) })
}

func TestLoadSiteReadsOptions(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		site, err := s.Site(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if site.HomeURL != "http://127.0.0.1:8088" || !site.PrettyPermalinks || site.TimezoneString != "America/New_York" {
			t.Errorf("site basics: %+v", site)
		}
		if site.PerPage != 10 || site.PerPageRaw != "10" {
			t.Errorf("per page = %d (%q), want the WP option 10", site.PerPage, site.PerPageRaw)
		}
		if !site.UseCustomTables {
			t.Error("tec_ct1_migration_state says migration-not-required: custom tables are in use")
		}
		if !site.UsingAppPasswords {
			t.Error("using_application_passwords is 1")
		}
		if !site.Roles["administrator"].Capabilities["manage_options"] || !site.Roles["author"].Capabilities["publish_tribe_events"] {
			t.Errorf("roles not decoded: %v", site.Roles["author"])
		}
		over, err := NewStore(s.DB, SiteOverrides{HomeURL: "https://cal.example.com/"}).Site(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if over.HomeURL != "https://cal.example.com" || over.SiteURL != "https://cal.example.com" {
			t.Errorf("override: home %q site %q", over.HomeURL, over.SiteURL)
		}
	})
}

func ptr(s string) *string { return &s }

func eventIDs(evs []*calendard.Event) []int64 {
	var ids []int64
	for _, e := range evs {
		ids = append(ids, e.ID)
	}
	return ids
}

func TestFindEventsPagesAndOrders(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		site, err := s.Site(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f := calendard.EventFilter{Statuses: []string{"publish"}, StartOnOrAfter: ptr("2026-11-21 00:00:00"),
			EndOnOrBefore: ptr("2028-11-22 23:59:59"), Limit: 10}
		page1, total, err := s.FindEvents(ctx, site, f)
		if err != nil {
			t.Fatal(err)
		}
		// The reference answered 92 events, first page 88, 56, 70, ... (compat case events/list/default).
		if total != 92 {
			t.Errorf("total = %d, want 92", total)
		}
		if want := []int64{88, 56, 70, 43, 62, 98, 182, 84, 65, 75}; !reflect.DeepEqual(eventIDs(page1), want) {
			t.Errorf("page 1 = %v, want %v", eventIDs(page1), want)
		}
		f.Offset = 90
		last, _, err := s.FindEvents(ctx, site, f)
		if err != nil || len(last) != 2 {
			t.Errorf("last page has %d events (err %v), want 2", len(last), err)
		}
		f.Offset = 200
		none, total2, err := s.FindEvents(ctx, site, f)
		if err != nil || len(none) != 0 || total2 != 92 {
			t.Errorf("beyond the end: %d events, total %d, err %v", len(none), total2, err)
		}
	})
}

func TestFindEventsLoadsLinkedDataForTheWholePage(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		site, _ := s.Site(ctx)
		evs, _, err := s.FindEvents(ctx, site, calendard.EventFilter{Include: []int64{38}, Limit: 5, OrderByPostDate: true})
		if err != nil || len(evs) != 1 {
			t.Fatalf("events %v err %v", evs, err)
		}
		e := evs[0]
		if len(e.Venues) != 1 || e.Venues[0].ID != 14 || e.Venues[0].Image == nil {
			t.Errorf("venue of event 38 with its image: %+v", e.Venues)
		}
		if e.Image == nil || e.Image.Meta.Value("_wp_attached_file") == "" {
			t.Error("event 38 has a featured image")
		}
		if e.Meta.Value("_EventStartDate") == "" {
			t.Error("meta not loaded")
		}
	})
}

// The date source follows the plugin's switch: the occurrence table when custom tables are in use,
// postmeta otherwise. On the fixture both hold the same dates, so both modes must agree.
func TestFindEventsCustomTablesAndPostmetaAgree(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		site, _ := s.Site(ctx)
		filters := map[string]calendard.EventFilter{
			"window":       {StartOnOrAfter: ptr("2025-01-01 00:00:00"), EndOnOrBefore: ptr("2028-12-31 23:59:59"), Limit: 50},
			"starts after": {StartsAfter: ptr("2027-01-01 23:59:59"), EndsBefore: ptr("2027-03-01 23:59:59"), Limit: 50},
			"search":       {Search: calendard.ParseSearch("festival"), Limit: 50},
			"categories":   {CategoryIDs: []int64{2, 3, 4}, Statuses: []string{"publish"}, Limit: 50},
		}
		for name, f := range filters {
			t.Run(name+" gives the same events from both sources", func(t *testing.T) {
				ct := *site
				ct.UseCustomTables = true
				pm := *site
				pm.UseCustomTables = false
				a, ta, err := s.FindEvents(ctx, &ct, f)
				if err != nil {
					t.Fatal(err)
				}
				b, tb, err := s.FindEvents(ctx, &pm, f)
				if err != nil {
					t.Fatal(err)
				}
				if ta != tb || !reflect.DeepEqual(eventIDs(a), eventIDs(b)) || ta == 0 {
					t.Errorf("custom tables %d %v\npostmeta      %d %v", ta, eventIDs(a), tb, eventIDs(b))
				}
			})
		}
	})
}

// questions reads the server's statement counter (the SHOW itself counts as one).
func questions(t *testing.T, db *sql.DB) int {
	t.Helper()
	var name string
	var n int
	if err := db.QueryRow("SHOW GLOBAL STATUS LIKE 'Questions'").Scan(&name, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A page of records costs a fixed number of queries whatever its size: no query per record.
func TestFindEventsQueryCountDoesNotGrowWithPageSize(t *testing.T) {
	s, m := fixtureStore(t)
	ctx := context.Background()
	site, _ := s.Site(ctx)
	admin, err := sql.Open("mysql", m.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// The server's Questions counter is global: other tests' stores and background work (watermark
	// polls, index passes) add to it now and then, never take away. The fewest of a few tries is
	// FindEvents' own count.
	count := func(limit int) int {
		fewest := -1
		for range 3 {
			before := questions(t, admin)
			evs, _, err := s.FindEvents(ctx, site, calendard.EventFilter{Limit: limit})
			if err != nil || len(evs) != limit {
				t.Fatalf("FindEvents(%d): %d events, %v", limit, len(evs), err)
			}
			if n := questions(t, admin) - before - 1; fewest < 0 || n < fewest {
				fewest = n
			}
		}
		return fewest
	}
	small, large := count(2), count(50)
	if small != large || large > 10 {
		t.Errorf("queries for 2 events = %d, for 50 events = %d; want the same small number", small, large)
	}
}

func TestUsersAndApplicationPasswordUsage(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		u, err := s.UserByLogin(ctx, "ADMIN")
		if err != nil || u == nil || u.ID != 1 {
			t.Fatalf("login lookup follows the case-insensitive collation: %+v %v", u, err)
		}
		if !strings.Contains(u.CapsMeta, "administrator") || !strings.Contains(u.AppPasswords, "$generic$") {
			t.Errorf("usermeta not loaded: %+v", u)
		}
		if u, _ := s.UserByEmail(ctx, "Admin@Example.com"); u == nil || u.ID != 1 {
			t.Errorf("email lookup: %+v", u)
		}
		if u, _ := s.UserByLogin(ctx, "nobody"); u != nil {
			t.Errorf("unknown login found %+v", u)
		}

		sub, _ := s.UserByLogin(ctx, "subscriber")
		site, _ := s.Site(ctx)
		user := calendard.UserFromRecord(site, sub)
		if !user.Can("read") || user.Can("edit_tribe_events") {
			t.Errorf("subscriber caps: %v", user.Caps)
		}
		now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
		uuidStart := strings.Index(sub.AppPasswords, `"uuid";s:36:"`) + len(`"uuid";s:36:"`)
		uuid := sub.AppPasswords[uuidStart : uuidStart+36]
		if err := s.RecordAppPasswordUsage(ctx, sub.ID, uuid, "203.0.113.9", now); err != nil {
			t.Fatal(err)
		}
		after, _ := s.UserByLogin(ctx, "subscriber")
		if !strings.Contains(after.AppPasswords, `s:9:"last_used";i:1795323600;`) || !strings.Contains(after.AppPasswords, `"203.0.113.9"`) {
			t.Errorf("usage not recorded: %s", after.AppPasswords)
		}
		if err := s.RecordAppPasswordUsage(ctx, sub.ID, uuid, "198.51.100.1", now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		again, _ := s.UserByLogin(ctx, "subscriber")
		if again.AppPasswords != after.AppPasswords {
			t.Error("usage is recorded at most once a day")
		}
	})
}

func TestPostsByNameUsesTheCollation(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		posts, err := s.PostsByName(context.Background(), "ANNUAL-MEETUP", calendard.PostTypeEvent)
		if err != nil || len(posts) != 1 || posts[0].ID != 34 {
			t.Errorf("posts = %v, err %v", posts, err)
		}
	})
}
