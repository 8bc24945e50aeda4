package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/eventindex"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// The diagnostics listener serves the runtime counters and profiles, and only on loopback.
// The command line it shows has the configured secrets masked.
func TestDebugListener(t *testing.T) {
	const key = "ZGVidWctd2ViaG9vay1zZWNyZXQtMDEyMzQ1Njc4OQ=="
	args, scrub := os.Args, secrets
	t.Cleanup(func() { os.Args, secrets = args, scrub })
	os.Args = []string{"calendard", "serve", "--db=mysql://u:Db-Secret-77@tcp(127.0.0.1:1)/wp",
		`--webhooks=[{"url":"https://h.test/","secret":"whsec_` + key + `"}]`}
	secrets = &scrubber{}
	secrets.collect(func(string) string { return "" }, os.Args[1:])
	for _, addr := range []string{"0.0.0.0:6060", ":6060", "192.0.2.1:6060", "example.com:6060", "127.0.0.1"} {
		if err := startDebug(addr); err == nil {
			t.Errorf("startDebug(%q) accepted a non-loopback address", addr)
		}
	}
	var addr string
	if err := testenv.OnFreePort(func(port int) error {
		addr = "127.0.0.1:" + strconv.Itoa(port)
		return startDebug(addr)
	}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/debug/vars": `"Mallocs"`, "/debug/pprof/": "goroutine", "/debug/pprof/cmdline": "--webhooks"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, no %s in %.200s", path, resp.StatusCode, want, body)
		}
		if strings.Contains(string(body), key) || strings.Contains(string(body), "Db-Secret-77") {
			t.Errorf("%s shows a secret", path)
		}
		if path == "/debug/vars" {
			var vars map[string]json.RawMessage
			if err := json.Unmarshal(body, &vars); err != nil || !strings.Contains(string(vars["cmdline"]), "xxxxx") {
				t.Errorf("/debug/vars: %v, cmdline %s", err, vars["cmdline"])
			}
		}
	}
}

// migratedSQLite is an empty site on a SQLite file, migrated as `calendard migrate` does, closed
// when the test ends.
func migratedSQLite(t *testing.T) *wpdb.DB {
	t.Helper()
	db, err := wpdb.Open("sqlite://"+filepath.Join(t.TempDir(), "wp.db"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background(), wpdb.MigrateOptions{SiteURL: "http://127.0.0.1:8080", Timezone: "UTC", SiteName: "Calendar",
		AdminLogin: "admin", AdminEmail: "admin@example.com"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	return db
}

// /debug/vars shows the served event index's state as event_index: calendard-bench waits on it for
// a first build to finish and be written to the index file.
func TestDebugVarsShowTheEventIndex(t *testing.T) {
	ctx := context.Background()
	db := migratedSQLite(t)
	store := wpdb.NewStore(db, wpdb.SiteOverrides{})
	x := wpdb.NewEventIndex(db, eventindex.Options{})
	site, err := store.Site(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Build(ctx, site); err != nil {
		t.Fatal(err)
	}
	debugIndex.Store(x)
	defer debugIndex.Store(nil)
	var addr string
	if err := testenv.OnFreePort(func(port int) error {
		addr = "127.0.0.1:" + strconv.Itoa(port)
		return startDebug(addr)
	}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr + "/debug/vars")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		EventIndex *eventindex.Stats `json:"event_index"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	if v.EventIndex == nil || !v.EventIndex.IDsReady || !v.EventIndex.TextReady || v.EventIndex.FileWrites != 0 {
		t.Errorf("event_index: %+v, want a built index (IDs and text ready, no file)", v.EventIndex)
	}
}
