package compattests

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// TestImportSince imports site-a into SQLite, changes two events and a venue at the source, and
// runs `--since last`: exactly those three are written. A third event whose title changes without
// a new modified date is not read again (the run goes by the source's dates). Then `--follow
// --interval 1s` sees an event changed while it runs and ends cleanly on SIGTERM.
func TestImportSince(t *testing.T) {
	testenv.SkipIfShort(t, "mariadbd")
	ctx := context.Background()
	// The source answers from its rows (no response or record cache), so a change made in SQL
	// shows at once, as it would on WordPress.
	set, bin, db, src := importSourceEnv(t, "import_since_source", map[string]string{
		"CALENDAR_CACHE": "off", "CALENDAR_RECORD_CACHE": "0", "CALENDAR_EVENT_INDEX": "off", "CALENDAR_ACCESS_LOG": "on"})
	dbPath := filepath.Join(t.TempDir(), "since.db")
	spec := "sqlite://" + dbPath
	pw := set.AppPassword("admin")
	runImport(t, bin, src.Base, "admin", pw, spec)
	fullLog := src.stderr.String()

	change := func(ids, mark string, touch bool) {
		t.Helper()
		q := "UPDATE wp_posts SET post_title = CONCAT(post_title, ' " + mark + "')"
		if touch {
			// Now, in the site's time zone (the post's own offset) and in UTC; MariaDB assigns
			// left to right, so the offset is read before post_modified_gmt changes.
			q += ", post_modified = UTC_TIMESTAMP() + INTERVAL TIMESTAMPDIFF(SECOND, post_modified_gmt, post_modified) SECOND" +
				", post_modified_gmt = UTC_TIMESTAMP()"
		}
		if err := db.Exec(ctx, "USE import_since_source", q+" WHERE ID IN ("+ids+")"); err != nil {
			t.Fatal(err)
		}
	}
	change("38, 43, 11", "(changed)", true) // events 38 and 43, venue 11
	change("44", "(silent)", false)

	out := runImport(t, bin, src.Base, "admin", pw, spec, "--since", "last")
	sinceLog := strings.TrimPrefix(src.stderr.String(), fullLog)
	for _, typ := range []string{"tribe_events", "tribe_venue", "tribe_organizer"} {
		if !regexp.MustCompile(`path=/wp-json/wp/v2/` + typ + ` query="[^"]*modified_after=`).MatchString(sinceLog) {
			t.Errorf("--since last did not ask wp/v2/%s for modified_after", typ)
		}
	}
	requests := func(log string) int { return strings.Count(log, "msg=request ") }
	t.Logf("requests to the source: full run %d, --since last %d", requests(fullLog), requests(sinceLog))
	if !strings.Contains(out, "changes since ") {
		t.Errorf("--since last did not run from the last run:\n%s", out)
	}
	want := map[string]string{"media": "0", "categories": "0", "tags": "0", "venues": "1", "organizers": "0", "events": "2"}
	if got := summaryWrites(out); len(got) != len(want) {
		t.Errorf("summary: %v\n%s", got, out)
	} else {
		for res, n := range want {
			if got[res] != n {
				t.Errorf("--since last wrote %s %s, want %s:\n%s", got[res], res, n, out)
			}
		}
	}
	titles := func(ids ...string) map[string]string {
		t.Helper()
		store, err := wpdb.OpenSQLite(dbPath, "wp_") // registers the store's collation
		if err != nil {
			t.Fatal(err)
		}
		store.Close()
		sdb, err := sql.Open("sqlite", wpdb.SQLiteDSN(dbPath))
		if err != nil {
			t.Fatal(err)
		}
		defer sdb.Close()
		_, rows := testenv.Rows(t, sdb, `SELECT ID, post_title FROM wp_posts WHERE ID IN (`+strings.Join(ids, ",")+`)`)
		m := map[string]string{}
		for _, r := range rows {
			m[r[0].String] = r[1].String
		}
		return m
	}
	got := titles("38", "43", "11", "44")
	for _, id := range []string{"38", "43", "11"} {
		if !strings.HasSuffix(got[id], "(changed)") {
			t.Errorf("post %s: title %q, want the source's change", id, got[id])
		}
	}
	if strings.Contains(got["44"], "(silent)") {
		t.Errorf("post 44 was read again though its modified date is old: %q", got["44"])
	}

	// --follow: each round one line; a change made while it runs is written by a later round.
	stdout, stderr := &testenv.SyncBuffer{}, &testenv.SyncBuffer{}
	cmd := exec.Command(bin, "import", "--from", src.Base, "--to", spec, "--checkpoint", "off",
		"--user", "admin", "--follow", "--interval", "1s")
	cmd.Env = append(os.Environ(), "CALENDAR_IMPORT_APP_PASSWORD="+pw, "CALENDAR_ENVIRONMENT=local")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	beforeFollow := src.stderr.String()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	waitFor := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for !ok(stdout.String()) {
			select {
			case err := <-exited:
				t.Fatalf("--follow exited (%v) before %s:\n%s\n%s", err, what, stdout.String(), stderr.String())
			case <-time.After(50 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s within 3 minutes:\n%s\n%s", what, stdout.String(), stderr.String())
			}
		}
	}
	waitFor("first round", func(s string) bool { return strings.Contains(s, "round 1 (since ") })
	t.Logf("requests to the source: follow round 1 (nothing new; the earlier changes still in its window) %d", requests(strings.TrimPrefix(src.stderr.String(), beforeFollow)))
	if !regexp.MustCompile(`round 1 \(since [^)]*\) in \S+: seen \d+, written 0 \[\], unchanged \d+, failed 0, gone 0`).MatchString(stdout.String()) {
		t.Errorf("round 1 wrote something or failed:\n%s", stdout.String())
	}
	change("40", "(followed)", true)
	written := regexp.MustCompile(`round \d+ \(since [^)]*\) in \S+: seen \d+, written 1 \[events 1\], unchanged \d+, failed 0`)
	waitFor("round writing the changed event", written.MatchString)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("--follow ended with %v after SIGTERM:\n%s", err, stderr.String())
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("--follow did not end within 3 minutes of SIGTERM:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "stopped after round") {
		t.Errorf("--follow did not say it stopped:\n%s", stderr.String())
	}
	if !strings.HasSuffix(titles("40")["40"], "(followed)") {
		t.Errorf("event 40 was not updated by --follow: %q", titles("40")["40"])
	}
	t.Log(stdout.String())

	// An explicit --since after every change: nothing is dated in the window, nothing is written,
	// and no event's children are asked for.
	at := time.Now().Add(3 * time.Minute).UTC().Format(time.RFC3339)
	beforeQuiet := src.stderr.String()
	quiet := runImport(t, bin, src.Base, "admin", pw, spec, "--since", at)
	if !strings.Contains(quiet, "changes since "+at) {
		t.Errorf("--since %s: not in the summary:\n%s", at, quiet)
	}
	for res, n := range summaryWrites(quiet) {
		if n != "0" {
			t.Errorf("--since %s wrote %s %s", at, n, res)
		}
	}
	quietLog := strings.TrimPrefix(src.stderr.String(), beforeQuiet)
	if strings.Contains(quietLog, "post_parent=") {
		t.Errorf("--since %s asked for events' children though no event is in the window", at)
	}
	t.Logf("requests to the source: --since with nothing in the window %d", requests(quietLog))
}
