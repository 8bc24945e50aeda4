package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/collation"
	"github.com/calendard/calendard/internal/testenv"
)

// emptyStores returns an empty calendar schema on each store (MariaDB, SQLite), in that order.
func emptyStores(t *testing.T) []*DB {
	t.Helper()
	ctx := context.Background()
	m := testenv.SharedMariaDB(t)
	name := testenv.DBName("wpdb", t)
	if err := m.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	my, err := OpenMySQL(m.DSN(name), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	lite, err := OpenSQLite(filepath.Join(t.TempDir(), "wp.db"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range []*DB{my, lite} {
		t.Cleanup(func() { db.Close() })
		if err := db.CreateTables(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return []*DB{my, lite}
}

// The helpers' SQL for each dialect: MySQL gets WordPress' own spelling and nothing more.
func TestDialectHelpersSpellTheirDialect(t *testing.T) {
	my, lite := &DB{prefix: "wp_"}, &DB{prefix: "wp_", dialect: SQLite}
	tests := []struct {
		name        string
		mysql, sqli string
	}{
		{"castInt", my.castInt("m.meta_value"), lite.castInt("m.meta_value")},
		{"orderByList", my.orderByList("t.term_id", []int64{4, 2}), lite.orderByList("t.term_id", []int64{4, 2})},
		{"forUpdate", my.forUpdate(), lite.forUpdate()},
		{"tieBreak", my.tieBreak("p.ID DESC"), lite.tieBreak("p.ID DESC")},
		{"tieBreak without terms", my.tieBreak(), lite.tieBreak()},
		{"planOrder", my.planOrder("tt.term_taxonomy_id"), lite.planOrder("tt.term_taxonomy_id")},
	}
	want := map[string][2]string{
		"castInt":                {"CAST(m.meta_value AS SIGNED)", "mysql_cast_signed(m.meta_value)"},
		"orderByList":            {"FIELD( t.term_id, 4,2 )", "(CASE t.term_id WHEN 4 THEN 1 WHEN 2 THEN 2 ELSE 0 END)"},
		"forUpdate":              {" FOR UPDATE", ""},
		"tieBreak":               {"", ", p.ID DESC"},
		"tieBreak without terms": {"", ""},
		"planOrder":              {"", " ORDER BY tt.term_taxonomy_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if w := want[tc.name]; tc.mysql != w[0] || tc.sqli != w[1] {
				t.Errorf("mysql %q, sqlite %q; want %q, %q", tc.mysql, tc.sqli, w[0], w[1])
			}
		})
	}
	if got := refOrder("x"); !strings.HasPrefix(got, "((x >> 0) & 255), ((x >> 8) & 255), ") || strings.Count(got, "& 255") != 8 {
		t.Errorf("refOrder = %q", got)
	}
	if !lite.filesortTies() || my.filesortTies() {
		t.Error("only SQLite reproduces MariaDB's filesort")
	}
}

// A filesort sorting row references orders equal keys by the InnoDB reference: the BIGINT key
// stored least significant byte first (checked against MariaDB in TestTiesAgreeAcrossStores).
func TestRefOrderIsLittleEndianBytes(t *testing.T) {
	lite := emptyStores(t)[1]
	for _, id := range []int64{1, 2, 255, 256, 257, 300, 512, 513, 3, 1000, 65536} {
		if _, err := lite.sql.Exec("INSERT INTO wp_terms (term_id, name, slug) VALUES (?, '', '')", id); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := lite.sql.Query("SELECT term_id FROM wp_terms ORDER BY " + refOrder("term_id"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := scanIDs(rows)
	if err != nil {
		t.Fatal(err)
	}
	// MariaDB 10.11: SELECT id FROM t ORDER BY <longtext, all equal> on these IDs.
	if want := []int64{65536, 256, 512, 1, 257, 513, 2, 3, 300, 1000, 255}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

var castSample = []string{"12", " 12", "\t12", "\n12", "\v12", "\f12", "\r12", "12 ", "12abc", "abc", "", "-5", "+5", "--5",
	"1e3", "12.7", "-12.7", "0x10", "007", "1,000", "１２", "\u00a012", " +12", "- 5", ".5", "5.", "0", "-0", "\x0012", "12\x00",
	"9223372036854775807", "9223372036854775808", "99999999999999999999", "18446744073709551615", "18446744073709551616",
	"-9223372036854775808", "-9223372036854775809", "-18446744073709551616"}

// castInt gives what MySQL's CAST(x AS SIGNED) gives, on both stores, beyond the signed range too.
func TestCastIntAgreesWithMariaDB(t *testing.T) {
	var got [2][]string
	for k, db := range emptyStores(t) {
		for i, v := range castSample {
			if _, err := db.sql.Exec("INSERT INTO wp_postmeta (meta_id, post_id, meta_key, meta_value) VALUES (?, 1, 'k', ?)", i+1, v); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := db.sql.Query("SELECT " + db.castInt("meta_value") + " FROM wp_postmeta ORDER BY meta_id")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got[k] = append(got[k], s)
		}
		rows.Close()
	}
	named := map[string]string{"12abc": "12", " +12": "12", "abc": "0", "12.7": "12", "9223372036854775808": "-9223372036854775808",
		"99999999999999999999": "-1", "-9223372036854775809": "-9223372036854775808"}
	for i, v := range castSample {
		if got[0][i] != got[1][i] {
			t.Errorf("CAST(%q): MariaDB %s, SQLite %s", v, got[0][i], got[1][i])
		}
		if w, ok := named[v]; ok && got[1][i] != w {
			t.Errorf("CAST(%q) = %s, want %s", v, got[1][i], w)
		}
	}
}

// The text columns equate, order and match LIKE patterns alike on both stores.
func TestTextColumnsCompareAlike(t *testing.T) {
	dbs := emptyStores(t)
	for _, db := range dbs {
		for i, w := range collation.Sample {
			if _, err := db.sql.Exec("INSERT INTO wp_terms (term_id, name, slug) VALUES (?, ?, '')", i+1, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	query := func(db *DB, q string, args ...any) []int64 {
		rows, err := db.sql.Query(q, args...)
		if err != nil {
			t.Fatal(q, err)
		}
		ids, err := scanIDs(rows)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	words := func(ids []int64) []string {
		var out []string
		for _, id := range ids {
			out = append(out, collation.Sample[id-1])
		}
		return out
	}
	same := func(what string, q string, args ...any) []string {
		a, b := query(dbs[0], q, args...), query(dbs[1], q, args...)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s:\nMariaDB %q\nSQLite  %q", what, words(a), words(b))
		}
		return words(b)
	}
	same("ORDER BY name", "SELECT term_id FROM wp_terms ORDER BY name, term_id")
	for _, w := range collation.Sample {
		same("= "+w, "SELECT term_id FROM wp_terms WHERE name = ? ORDER BY term_id", w)
		for _, p := range []string{w, "%" + w + "%", w + "_", "_" + w} {
			same("LIKE "+p, "SELECT term_id FROM wp_terms WHERE name LIKE ? ORDER BY term_id", p)
		}
	}
	if got := same("= ø", "SELECT term_id FROM wp_terms WHERE name = ? ORDER BY term_id", "O"); !reflect.DeepEqual(got, []string{"ø", "o", "ö"}) {
		t.Errorf("= O matched %q", got)
	}
	if got := same("LIKE caf_", "SELECT term_id FROM wp_terms WHERE name LIKE ? ORDER BY term_id", "caf_"); !reflect.DeepEqual(got, []string{"Café", "cafe"}) {
		t.Errorf("LIKE caf_ matched %q", got)
	}
}

// The SQLite schema refuses what MySQL's strict mode refuses, so a write fails on both stores alike;
// the limits themselves are accepted.
func TestStrictLimitsAlike(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		arg  any
		ok   bool
	}{
		{"varchar at its length", "INSERT INTO wp_terms (name, slug) VALUES (?, '')", strings.Repeat("é", 200), true},
		{"varchar beyond its length", "INSERT INTO wp_terms (name, slug) VALUES (?, '')", strings.Repeat("é", 201), false},
		{"post title at 65,535 bytes", postInsert, strings.Repeat("a", 65535), true},
		{"post title beyond 65,535 bytes", postInsert, strings.Repeat("é", 32768), false},
		{"mediumint in range", "INSERT INTO wp_tec_events (post_id, start_date, start_date_utc, duration, hash) VALUES (1, '', '', ?, '')", 8388607, true},
		{"mediumint out of range", "INSERT INTO wp_tec_events (post_id, start_date, start_date_utc, duration, hash) VALUES (2, '', '', ?, '')", 8388608, false},
		{"unsigned below zero", "INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, 'k', 'v')", -1, false},
		{"int out of range", "INSERT INTO wp_term_relationships (object_id, term_taxonomy_id, term_order) VALUES (1, 1, ?)", int64(2147483648), false},
	}
	dbs := emptyStores(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, db := range dbs {
				_, err := db.sql.Exec(tc.sql, tc.arg)
				if (err == nil) != tc.ok {
					t.Errorf("%s: err = %v, want ok=%v", db.Dialect(), err, tc.ok)
				}
			}
		})
	}
}

const postInsert = "INSERT INTO wp_posts (post_content, post_title, post_excerpt, to_ping, pinged, post_content_filtered) VALUES ('', ?, '', '', '', '')"

var errAbort = errors.New("abort")

// IDs a rolled-back write took stay used, as InnoDB never hands AUTO_INCREMENT values back; an
// upsert that updates uses one up, too.
func TestAutoIncrementsAlike(t *testing.T) {
	ctx := context.Background()
	clock := func() time.Time { return time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC) }
	for _, db := range emptyStores(t) {
		t.Run(db.Dialect().String(), func(t *testing.T) {
			insert := func(tx calendard.WriteTx) (int64, error) {
				return tx.(*Tx).InsertPost(ctx, &calendard.Post{Title: "t", Status: "publish", Type: calendard.PostTypeEvent,
					Date: "2026-11-22 00:00:00", DateGMT: "2026-11-22 05:00:00", Modified: "2026-11-22 00:00:00", ModifiedGMT: "2026-11-22 05:00:00"})
			}
			var ids []int64
			write := func(fail bool) {
				err := db.Write(ctx, clock, func(tx calendard.WriteTx) error {
					id, err := insert(tx)
					if err != nil {
						return err
					}
					if err := tx.AddMeta(ctx, id, "k", "v"); err != nil {
						return err
					}
					ids = append(ids, id)
					if fail {
						return errAbort
					}
					return tx.UpsertTECEvent(ctx, &calendard.TECEventRow{PostID: 1, StartDate: "2027-01-01 10:00:00",
						EndDate: "2027-01-01 11:00:00", Timezone: "UTC", StartDateUTC: "2027-01-01 10:00:00", EndDateUTC: "2027-01-01 11:00:00", Duration: 3600})
				})
				if (err != nil) != fail {
					t.Fatalf("write: %v", err)
				}
			}
			// The first write of all rolls back: even the counters it created must survive.
			write(true)
			write(false)
			write(true)
			write(true)
			write(false)
			write(false)
			if want := []int64{1, 2, 3, 4, 5, 6}; !reflect.DeepEqual(ids, want) {
				t.Errorf("post IDs %v, want %v", ids, want)
			}
			var metaIDs, eventIDs []int64
			for _, q := range []struct {
				sql string
				out *[]int64
			}{{"SELECT meta_id FROM wp_postmeta ORDER BY meta_id", &metaIDs}, {"SELECT event_id FROM wp_tec_events", &eventIDs}} {
				rows, err := db.sql.Query(q.sql)
				if err != nil {
					t.Fatal(err)
				}
				if *q.out, err = scanIDs(rows); err != nil {
					t.Fatal(err)
				}
			}
			if want := []int64{2, 5, 6}; !reflect.DeepEqual(metaIDs, want) {
				t.Errorf("meta IDs %v, want %v", metaIDs, want)
			}
			// Three upserts of post 1: the insert took ID 1, each update used one up.
			var next int64
			if err := db.Write(ctx, clock, func(tx calendard.WriteTx) error {
				r := &calendard.TECEventRow{PostID: 2, StartDate: "2027-01-01 10:00:00", EndDate: "2027-01-01 11:00:00", Timezone: "UTC",
					StartDateUTC: "2027-01-01 10:00:00", EndDateUTC: "2027-01-01 11:00:00", Duration: 3600}
				err := tx.UpsertTECEvent(ctx, r)
				next = r.EventID
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(eventIDs, []int64{1}) || next != 4 {
				t.Errorf("tec_events IDs %v then %d, want [1] then 4", eventIDs, next)
			}
		})
	}
}

// Every connection of the embedded store's pool keeps a page cache of sqliteCacheKiB, not SQLite's
// 2,000 KiB default: eight connections would hold eight copies of the same pages.
func TestSQLiteConnectionsKeepASmallPageCache(t *testing.T) {
	db, err := OpenSQLite(filepath.Join(t.TempDir(), "cache.db"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var conns []*sql.Conn
	for range 3 { // held at once, so each is another connection
		c, err := db.sql.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i, c := range conns {
		var kib int
		if err := c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil {
			t.Fatal(err)
		}
		if kib != -sqliteCacheKiB {
			t.Fatalf("connection %d: cache_size %d, want %d (KiB)", i, kib, -sqliteCacheKiB)
		}
	}
}

// A named lock waits as long as the request's database deadline lets it, and one not taken in
// that time is the database being busy (503), not a failure of the request (500).
func TestNamedLockWaitsForTheDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	if got := lockWait(ctx); got < 44 || got > 45 {
		t.Errorf("lockWait with 45 s left = %d s", got)
	}
	short, cancel2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	if got := lockWait(short); got != 1 {
		t.Errorf("lockWait with 1 ms left = %d s, want 1", got)
	}
	if got := lockWait(context.Background()); got != 3600 {
		t.Errorf("lockWait without a deadline = %d s, want 3600", got)
	}
	if !connectionLost(fmt.Errorf("create: %w", errLockTimeout)) {
		t.Error("a lock not taken in time is not reported as the database being unavailable")
	}
}
