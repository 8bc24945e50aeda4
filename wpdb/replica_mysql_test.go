package wpdb

import (
	"context"
	"database/sql"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
)

// MySQL positions are GTID sets: a set covers another when it holds each of its ranges, whatever
// the order or line breaks @@gtid_executed prints them with; a merge is the union, and leaves both
// sets as they were. A MariaDB position never covers a MySQL set, nor the other way round.
func TestMySQLGTIDSetsCompareByRanges(t *testing.T) {
	const a, b = "3e11fa47-71ca-11e1-9e33-c80aa9429562", "0cc46c84-ec61-11f1-83cf-02fc00000001"
	p, ok := parseMySQLGTIDs(a + ":1-100,\n" + b + ":1-5")
	if !ok {
		t.Fatal("unparsed")
	}
	for _, c := range []struct {
		q    string
		want bool
	}{{"", true}, {a + ":1-100", true}, {a + ":7", true}, {b + ":2-5," + a + ":50-60", true},
		{a + ":1-101", false}, {b + ":6", false}, {"4d11fa47-71ca-11e1-9e33-c80aa9429562:1", false}} {
		q, ok := parseMySQLGTIDs(c.q)
		if !ok {
			t.Fatalf("%q unparsed", c.q)
		}
		if got := covers(p, q); got != c.want {
			t.Errorf("%s covers %q = %v, want %v", p, c.q, got, c.want)
		}
	}
	q, _ := parseMySQLGTIDs(a + ":101-120," + b + ":9")
	m := merged(p, q)
	if !covers(m, p) || !covers(m, q) || covers(p, q) {
		t.Errorf("merge %s + %s = %s", p, q, m)
	}
	if want := a + ":1-120"; !strings.Contains(m.String(), want) {
		t.Errorf("merge: %s, want the ranges joined (%s)", m, want)
	}
	if covers(p, q) || p.String() != a+":1-100,"+b+":1-5" && p.String() != b+":1-5,"+a+":1-100" {
		t.Errorf("the merge changed its operand: %s", p)
	}
	if _, ok := parseMySQLGTIDs("not-a-uuid:1"); ok {
		t.Error("a set with no UUID parsed")
	}
	maria, _ := parseMariaDBPos("0-1-5")
	if covers(p, maria) || covers(maria, p) {
		t.Error("positions of different families compare")
	}
}

// calendard's connections run with WordPress' sql_mode: MySQL's default one, less the modes
// WordPress takes out (a draft's zero post_date_gmt is then stored, as WordPress stores it), but
// strict. On a server whose sql_mode is empty, strict all the same.
func TestConnectionsRunWithWordPressSQLMode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := testenv.NewMySQL(t)
	if err := m.CreateDatabase(ctx, "wp"); err != nil {
		t.Fatal(err)
	}
	db, err := OpenMySQL(m.DSN("wp"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var global, session string
	if err := db.sql.QueryRowContext(ctx, "SELECT @@GLOBAL.sql_mode, @@SESSION.sql_mode").Scan(&global, &session); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, mode := range strings.Split(global, ",") {
		if !slices.Contains(wpIncompatibleModes, mode) {
			want = append(want, mode)
		}
	}
	if !strings.Contains(global, "NO_ZERO_DATE") || !strings.Contains(global, "STRICT_TRANS_TABLES") {
		t.Fatalf("MySQL's default sql_mode %q lacks the modes this test is about", global)
	}
	want = append(want, "STRICT_TRANS_TABLES")
	got := strings.Split(session, ",")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) { // the server keeps its own order
		t.Fatalf("session sql_mode %q, want %q (global %q)", session, strings.Join(want, ","), global)
	}
	if err := m.Exec(ctx, "SET GLOBAL sql_mode = ''"); err != nil {
		t.Fatal(err)
	}
	empty, err := OpenMySQL(m.DSN("wp"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if err := empty.sql.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode").Scan(&session); err != nil {
		t.Fatal(err)
	}
	if session != "STRICT_TRANS_TABLES" {
		t.Fatalf("on a server without modes, session sql_mode %q, want STRICT_TRANS_TABLES", session)
	}
	if err := db.CreateTables(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx, "INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type) VALUES (1, '2026-11-30 00:00:00', '0000-00-00 00:00:00', '', 'Draft', '', 'draft', '', '', '', '2026-11-30 00:00:00', '0000-00-00 00:00:00', '', 'tribe_events')"); err != nil {
		t.Fatalf("a draft's zero dates: %v", err)
	}
}

// A MySQL primary that does not give every transaction a GTID cannot tell whether a replica has a
// write: no replica is read, every read goes to the primary, and the log says why, once.
func TestMySQLPrimaryWithoutGTIDsIsReadAlone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := testenv.NewMySQL(t, "--server-id=1", "--gtid-mode=OFF")
	if err := m.CreateDatabase(ctx, "wp"); err != nil {
		t.Fatal(err)
	}
	db, err := OpenMySQL(m.DSN("wp"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateTables(ctx); err != nil {
		t.Fatal(err)
	}
	logs := &testenv.SyncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	// The server itself as its "replica": it would cover every position it writes.
	if err := db.UseReplicas([]string{m.DSN("wp")}, ReplicaOptions{MaxLag: time.Second, Check: 20 * time.Millisecond, Logger: logger}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if rs, _ := db.Replicas(); rs[0].State == "down" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica of a primary without GTIDs was never left out")
		}
	}
	if _, err := db.Options(ctx, "siteurl"); err != nil {
		t.Fatal(err)
	}
	rs, primaryReads := db.Replicas()
	if rs[0].Up || rs[0].Reads != 0 || primaryReads == 0 {
		t.Fatalf("replica %+v, primary reads %d: want every read on the primary", rs[0], primaryReads)
	}
	// Five more checks (two SELECTs each) of the unchanged state, then the log still says it once.
	selects := func() int {
		var name string
		var n int
		if err := db.sql.primary().QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Com_select'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for from := selects(); selects()-from < 10; time.Sleep(20 * time.Millisecond) {
		if ctx.Err() != nil {
			t.Fatal("the health checker stopped checking")
		}
	}
	if n := logs.Count("gtid_mode=OFF"); n != 1 {
		t.Fatalf("the reason is logged %d times, want once:\n%s", n, logs)
	}
}

// The family is read from the server's variables when its version string does not say it (a
// proxy in front of MariaDB may rewrite it): a MariaDB that calls itself 8.0 is still MariaDB.
func TestPrimaryFamilyWithARewrittenVersion(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []struct {
		name   string
		server func() *testenv.MariaDB
		want   *flavor
	}{
		{"MariaDB as 8.0.40-proxy", func() *testenv.MariaDB { return testenv.NewMariaDB(t, "--version=8.0.40-proxy") }, mariadbFlavor},
		{"MySQL", func() *testenv.MariaDB {
			return testenv.NewMySQL(t, "--server-id=1", "--gtid-mode=ON", "--enforce-gtid-consistency=ON")
		}, mysqlFlavor},
	} {
		m := c.server()
		db, err := sql.Open("mysql", m.DSN(""))
		if err != nil {
			t.Fatal(err)
		}
		var version string
		if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
			t.Fatal(err)
		}
		got, err := detectFlavor(ctx, db)
		db.Close()
		if err != nil || got != c.want {
			t.Fatalf("%s (VERSION() %q): %v, %v; want %s", c.name, version, got, err, c.want.name)
		}
	}
}
