// Package resiliencetests tries the real calendard binary as an attacker and an outage would: it
// builds bin/calendard, serves the recorded site-a fixture with `calendard serve` on MariaDB (a
// throwaway server from internal/testenv) and on SQLite (a `calendard copy` of the same rows), and
// drives it over loopback from this process. See docs/reliability.md.
//
//	TestHostileRequests        generated hostile requests on both stores (HOSTILE_LONG=1: ≥100k each)
//	TestExposureByRole         what each role sees in lists, singles, search=, include= and term counts
//	TestMariaDBFaultsUnderLoad (stalled, stopped), TestSIGTERMDrainsWrites: faults
package resiliencetests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

var (
	fixtureDir = filepath.Join("..", "compat-tests", "testdata", "site-a")
	fixture    = filepath.Join(fixtureDir, "fixture.sql")
)

func TestMain(m *testing.M) { testenv.Main(m) }

// calendardBin is the binary the suite runs, as `make build` builds it.
func calendardBin(t testing.TB) string {
	t.Helper()
	testenv.SkipIfShort(t, "the resilience suite: calendard built and run against MariaDB")
	return testenv.Calendard(t)
}

// appPasswords are the fixture users' application passwords, from the recording's meta.json.
var appPasswords = func() map[string]string {
	var meta struct {
		Users []struct {
			Login       string `json:"login"`
			AppPassword string `json:"app_password"`
		} `json:"users"`
	}
	b, err := os.ReadFile(filepath.Join(fixtureDir, "meta.json"))
	if err == nil {
		err = json.Unmarshal(b, &meta)
	}
	if err != nil {
		panic(err)
	}
	out := map[string]string{}
	for _, u := range meta.Users {
		out[u.Login] = u.AppPassword
	}
	return out
}()

// recordedNow is the fixture's recording clock (CALENDAR_NOW of the servers that need one).
const recordedNow = "2026-11-22 04:30:10"

// mysqlFixture clones the fixture into a fresh database on the shared MariaDB and returns its
// CALENDAR_DB value.
func mysqlFixture(t *testing.T, name string) string {
	t.Helper()
	return "mysql://" + testenv.FixtureDB(t, fixture, name)
}

var (
	sqliteOnce     sync.Once
	sqliteTemplate string
	sqliteErr      error
)

// sqliteFixture returns a fresh SQLite copy of the fixture, made once per test binary by the
// binary's own `calendard copy` from the MariaDB fixture, as the compatibility suite does.
func sqliteFixture(t *testing.T) string {
	t.Helper()
	bin := calendardBin(t)
	sqliteOnce.Do(func() {
		src := testenv.FixtureDB(t, fixture, "r_sqlite_source")
		sqliteTemplate = filepath.Join(testenv.SharedMariaDB(t).Dir, "resilience-fixture.db")
		out, err := exec.Command(bin, "copy", "--quiet", "--from", "mysql://"+src, "--to", "sqlite://"+sqliteTemplate).CombinedOutput()
		if err != nil {
			sqliteErr = fmt.Errorf("calendard copy: %v\n%s", err, out)
		}
	})
	if sqliteErr != nil {
		t.Fatal(sqliteErr)
	}
	b, err := os.ReadFile(sqliteTemplate)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "calendar.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return "sqlite://" + path
}

// server is a running `calendard serve`.
type server struct {
	base   string // http://127.0.0.1:PORT
	addr   string // 127.0.0.1:PORT
	debug  string // CALENDAR_DEBUG_ADDR
	spec   string // CALENDAR_DB
	cmd    *exec.Cmd
	log    *testenv.SyncBuffer
	done   chan struct{}
	exit   error
	closed bool
}

// startServer runs `calendard serve` on spec with the local environment, a diagnostics listener
// and env, and waits until /healthz answers 200. The process is stopped when the test ends.
func startServer(t *testing.T, spec string, env map[string]string) *server {
	t.Helper()
	bin := calendardBin(t)
	var s *server
	// Both ports may be taken between the draw and the bind: the start is tried again on others.
	err := testenv.OnFreePort(func(port int) error {
		dport, err := testenv.FreePort()
		if err != nil {
			return err
		}
		s, err = launchServer(t, bin, spec, port, dport, env)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-s.done:
			if !s.closed {
				t.Errorf("calendard exited by itself: %v (%s)", s.exit, s.cmd.ProcessState)
			}
		default:
		}
		if t.Failed() {
			log := s.log.String()
			if len(log) > 20000 {
				log = "…" + log[len(log)-20000:]
			}
			t.Logf("server log:\n%s", log)
		}
		s.stop(10 * time.Second)
	})
	return s
}

// launchServer starts one server and waits until it says it listens (another process answering on
// the port must not count) and /healthz answers 200.
func launchServer(t *testing.T, bin, spec string, port, dport int, env map[string]string) (*server, error) {
	s := &server{addr: "127.0.0.1:" + strconv.Itoa(port), debug: "127.0.0.1:" + strconv.Itoa(dport), spec: spec,
		log: &testenv.SyncBuffer{}, done: make(chan struct{})}
	s.base = "http://" + s.addr
	s.cmd = exec.Command(bin, "serve")
	// XDG_CACHE_HOME: the event index file of a MySQL store goes to the user's cache directory;
	// each server of the tests keeps its own.
	s.cmd.Env = append(os.Environ(), "CALENDAR_DB="+spec, "CALENDAR_LISTEN="+s.addr, "CALENDAR_DEBUG_ADDR="+s.debug,
		"CALENDAR_ENVIRONMENT=local", "XDG_CACHE_HOME="+t.TempDir(), "CALENDAR_LOG_LEVEL=info")
	for k, v := range env {
		s.cmd.Env = append(s.cmd.Env, k+"="+v)
	}
	s.cmd.Stdout = s.log
	s.cmd.Stderr = s.log
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.exit = s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-s.done:
			return nil, fmt.Errorf("calendard exited: %v\n%s", s.exit, s.log.String())
		default:
		}
		if strings.Contains(s.log.String(), "calendard listening") {
			resp, err := http.Get(s.base + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return s, nil
				}
			}
		}
		if time.Now().After(deadline) {
			s.stop(10 * time.Second)
			return nil, fmt.Errorf("calendard did not become healthy:\n%s", s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// stop interrupts the server (SIGINT) and kills it after grace.
func (s *server) stop(grace time.Duration) {
	s.closed = true
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(grace):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// procStatus reads a field of /proc/PID/status in KiB (VmHWM, VmRSS).
func (s *server) procStatus(t *testing.T, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid()))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, s.pid())
	return 0
}

// heapInuse is the server's Go heap in use (runtime.MemStats.HeapInuse), from /debug/vars.
func (s *server) heapInuse(t *testing.T) int64 {
	t.Helper()
	resp, err := http.Get("http://" + s.debug + "/debug/vars")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		Memstats struct{ HeapInuse int64 } `json:"memstats"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v.Memstats.HeapInuse
}

// waitSyncOpen waits until the server's sync journal has opened (/debug/vars sync_journal): its
// opening at start writes the baseline fingerprints, which a test that digests the database's rows
// must not take for a request's doing.
func (s *server) waitSyncOpen(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var state string
	for time.Now().Before(deadline) {
		var v struct {
			Sync *struct{ State string } `json:"sync_journal"`
		}
		resp, err := http.Get("http://" + s.debug + "/debug/vars")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
		}
		if err == nil && v.Sync != nil {
			if state = v.Sync.State; state != "opening" {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the sync journal did not open in 2 minutes (state %q)", state)
}

// resetPeakRSS starts the server's VmHWM again from its current RSS (Linux: 5 to clear_refs); false
// if the kernel refused.
func (s *server) resetPeakRSS() bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.pid()), []byte("5"), 0) == nil
}

// goroutineDump returns the server's goroutine stacks (for a failure message).
func (s *server) goroutineDump() string {
	resp, err := http.Get("http://" + s.debug + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// badLogLines returns the lines of the server's log that report a panic or an error.
func (s *server) badLogLines(allowed ...string) []string {
	var bad []string
	for _, line := range strings.Split(s.log.String(), "\n") {
		if !strings.Contains(line, "panic") && !strings.Contains(line, "level=ERROR") && !strings.Contains(line, "goroutine ") {
			continue
		}
		ok := false
		for _, a := range allowed {
			if strings.Contains(line, a) {
				ok = true
			}
		}
		if !ok {
			bad = append(bad, line)
		}
	}
	return bad
}

// checkLog fails the test when the server logged a panic or an error.
func (s *server) checkLog(t *testing.T, allowed ...string) {
	t.Helper()
	if bad := s.badLogLines(allowed...); len(bad) > 0 {
		if len(bad) > 20 {
			bad = append(bad[:20], fmt.Sprintf("… and %d more", len(bad)-20))
		}
		t.Errorf("server log has %d panic/error lines:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// openSpec opens a CALENDAR_DB value for the test's own reads.
func openSpec(t *testing.T, spec string) *sql.DB {
	t.Helper()
	var db *sql.DB
	var err error
	if dsn, ok := strings.CutPrefix(spec, "mysql://"); ok {
		db, err = sql.Open("mysql", dsn)
	} else {
		// calendard's SQLite schema declares its own collation on text columns: opening the store
		// once through wpdb registers it with the driver.
		path := strings.TrimPrefix(spec, "sqlite://")
		var w *wpdb.DB
		if w, err = wpdb.OpenSQLite(path, "wp_"); err == nil {
			w.Close()
			db, err = sql.Open("sqlite", wpdb.SQLiteDSN(path))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// digest fingerprints every table of a store, rows and AUTO_INCREMENT counters (sqlite_sequence on
// SQLite), so that a request that wrote anything, even a rolled-back insert, shows.
func digest(t *testing.T, db *sql.DB, spec string) map[string]string {
	t.Helper()
	return digestWhere(t, db, spec, nil)
}

// digestWhere is digest with some tables' rows narrowed by a WHERE condition.
func digestWhere(t *testing.T, db *sql.DB, spec string, where map[string]string) map[string]string {
	t.Helper()
	mysqlStore := strings.HasPrefix(spec, "mysql://")
	q := "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
	if mysqlStore {
		q = "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME"
	}
	tables := queryStrings(t, db, q)
	if len(tables) < 10 {
		t.Fatalf("only %d tables: %v", len(tables), tables)
	}
	out := map[string]string{}
	for _, tbl := range tables {
		q := "SELECT * FROM " + tbl
		if w, ok := where[tbl]; ok {
			q += " WHERE " + w
		}
		_, rows := testenv.Rows(t, db, q)
		var lines []string
		for _, vals := range rows {
			var b strings.Builder
			for _, v := range vals {
				fmt.Fprintf(&b, "%q|", fmt.Sprint(v.Valid, v.String))
			}
			lines = append(lines, b.String())
		}
		sort.Strings(lines)
		h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
		out[tbl] = fmt.Sprintf("%d rows %s", len(lines), hex.EncodeToString(h[:8]))
	}
	if mysqlStore {
		rows, err := db.Query("SELECT TABLE_NAME, COALESCE(AUTO_INCREMENT, 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var tbl string
			var ai int64
			if err := rows.Scan(&tbl, &ai); err != nil {
				t.Fatal(err)
			}
			out[tbl] += fmt.Sprintf(" next %d", ai)
		}
	}
	return out
}

// sameDigest fails the test when a table differs from before.
func sameDigest(t *testing.T, before, after map[string]string, what string) {
	t.Helper()
	for tbl, sum := range before {
		if after[tbl] != sum {
			t.Errorf("%s changed %s: %s → %s", what, tbl, sum, after[tbl])
		}
	}
	for tbl := range after {
		if _, ok := before[tbl]; !ok {
			t.Errorf("%s created table %s", what, tbl)
		}
	}
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	_, rows := testenv.Rows(t, db, q, args...)
	out := make([]string, len(rows))
	for i, vals := range rows {
		out[i] = vals[0].String
	}
	return out
}

// wpError reports whether body is a WordPress error for status: {"code","message","data":{"status"}}.
func wpError(body []byte, status int) bool {
	var e struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
		Data    *struct {
			Status *int `json:"status"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &e) != nil {
		return false
	}
	if e.Code != nil && *e.Code == "rest_callback_invalid" && e.Message != nil && e.Data == nil && status == 400 {
		// WordPress' serve_request refuses a bad _jsonp callback through json_error(), the one error
		// it sends without data; calendard answers it the same way.
		return true
	}
	return e.Code != nil && *e.Code != "" && e.Message != nil && e.Data != nil && e.Data.Status != nil && *e.Data.Status == status
}

// errorCode returns the code of a WordPress error body ("" when it is none).
func errorCode(body []byte) string {
	var e struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Code
}

// client is a plain HTTP client with a bound on every exchange.
var client = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
	err    error
}

// get sends a request as user ("" anonymous) with an optional JSON body.
func (s *server) call(ctx context.Context, method, path, user string, body any) answer {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{err: err}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, rd)
	if err != nil {
		return answer{err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		req.SetBasicAuth(user, appPasswords[user])
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return answer{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b, took: time.Since(start), err: err}
}

// signal sends sig to the server process.
func (s *server) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if sig == syscall.SIGTERM || sig == syscall.SIGINT {
		s.closed = true
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}
