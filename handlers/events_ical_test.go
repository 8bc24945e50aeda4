package handlers_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

var icalAccept = map[string]string{"Accept": "text/calendar"}

// icalUIDRe reads the post ID of each VEVENT's UID (<id>-<start>-<end>@host).
var icalUIDRe = regexp.MustCompile(`(?m)^UID:(\d+)-`)

func icalIDs(t *testing.T, a answer) []int64 {
	t.Helper()
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/calendar") {
		t.Fatalf("not an iCalendar answer: %d %s\n%.300s", a.status, a.header.Get("Content-Type"), a.raw)
	}
	ids := []int64{}
	for _, m := range icalUIDRe.FindAllStringSubmatch(a.raw, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		ids = append(ids, id)
	}
	return ids
}

// jsonIDs walks every page of an events list query (per_page=3) and returns the IDs in order.
func jsonIDs(t *testing.T, get func(string) answer, query string) []int64 {
	t.Helper()
	ids := []int64{}
	for page := 1; ; page++ {
		a := get(eventsPath + "?" + query + "&per_page=3&page=" + strconv.Itoa(page))
		if a.status == 404 && page > 1 {
			return ids
		}
		if a.status != 200 {
			t.Fatalf("%s page %d: %d %.300s", query, page, a.status, a.raw)
		}
		evs, _ := a.body["events"].([]any)
		for _, e := range evs {
			ids = append(ids, int64(e.(map[string]any)["id"].(float64)))
		}
		if pages, _ := a.body["total_pages"].(float64); float64(page) >= pages {
			return ids
		}
	}
}

// parsedEvent is what the two parsers' scripts print per VEVENT.
type parsedEvent struct {
	UID         string `json:"uid"`
	Summary     string `json:"summary"`
	Description string `json:"description"`
	AllDay      bool   `json:"all_day"`
	Start       string `json:"start"`
	End         string `json:"end"`
}

// icalParsers returns the two independent parsers as functions of the ICS text: npm's ical.js
// (installed into handlers/testdata/icaljs from its lock file) and Python's icalendar (Debian's
// python3-icalendar). Missing tools fail the test: .ci/run installs them.
func icalParsers(t *testing.T) map[string]func(string) []parsedEvent {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (apt-get install -y nodejs npm): ical.js cannot read the answer")
	}
	jsDir, err := filepath.Abs(filepath.Join("testdata", "icaljs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "ical.js", "package.json")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatal("npm is not installed: cannot install ical.js")
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = jsDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci (offline? ical.js comes from the npm registry): %v\n%s", err, out)
		}
	}
	py := "/usr/bin/python3" // Debian's, where python3-icalendar installs
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			t.Fatal("python3 is not installed (apt-get install -y python3-icalendar)")
		}
	}
	if out, err := exec.Command(py, "-c", "import icalendar").CombinedOutput(); err != nil {
		t.Fatalf("%s has no icalendar (apt-get install -y python3-icalendar): %v\n%s", py, err, out)
	}
	pyScript, _ := filepath.Abs(filepath.Join("testdata", "icalendar-py", "parse.py"))
	run := func(name string, cmd *exec.Cmd, ics string) []parsedEvent {
		t.Helper()
		cmd.Stdin = strings.NewReader(ics)
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("%s could not read the answer: %v\n%s", name, err, stderr)
		}
		var evs []parsedEvent
		if err := json.Unmarshal(out, &evs); err != nil {
			t.Fatalf("%s: %v: %s", name, err, out)
		}
		return evs
	}
	return map[string]func(string) []parsedEvent{
		"ical.js": func(ics string) []parsedEvent {
			cmd := exec.Command(node, "parse.cjs")
			cmd.Dir = jsDir
			return run("ical.js", cmd, ics)
		},
		"python icalendar": func(ics string) []parsedEvent { return run("python icalendar", exec.Command(py, pyScript), ics) },
	}
}

// TestEventsListICalendar: the events list answers text/calendar (Accept or format=ical) with the
// same events as the JSON across all its pages, for anonymous and editor callers alike; two real
// parsers read back summaries, descriptions (commas, semicolons, non-ASCII), DST-crossing,
// all-day and multi-day dates; ETag and Last-Modified answer 304; the cap holds.
func TestEventsListICalendar(t *testing.T) {
	testenv.SkipIfShort(t, "mariadbd, node and npm (npm's ical.js), python3-icalendar")
	parsers := icalParsers(t)
	srv, _, _ := serveFixture(t, handlers.Config{Environment: "local", Clock: func() time.Time { return eventsNow },
		DBTimeout: time.Minute, ICalMaxEvents: 500}, "ic")
	admin := basic("admin", adminPass)
	getAs := func(hdr map[string]string) func(string) answer {
		return func(p string) answer { return get(t, srv, p, hdr) }
	}

	text := strings.TrimSpace(strings.Repeat("Ünïcödé café, naïve; 日本語 — ", 8)) + " fin"
	type want struct {
		summary, start, end string
		allDay              bool
	}
	created := map[int64]want{}
	create := func(body map[string]any, w want) int64 {
		a := call(t, srv, "POST", eventsPath, body, "admin")
		if a.status != 201 {
			t.Fatalf("create %v: %d %.300s", body["title"], a.status, a.raw)
		}
		id := idOf(t, a)
		created[id] = w
		return id
	}
	unix := func(s string) string {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(tm.Unix(), 10)
	}
	// America/New_York springs forward at 02:00 on 14 March 2027: 22:00 EST to 04:00 EDT is 5 hours.
	dst := create(map[string]any{"title": "Clocks Forward, Party; Night", "description": "<p>" + text + "</p>",
		"start_date": "2027-03-13 22:00:00", "end_date": "2027-03-14 04:00:00", "timezone": "America/New_York"},
		want{"Clocks Forward, Party; Night", unix("2027-03-14T03:00:00Z"), unix("2027-03-14T08:00:00Z"), false})
	create(map[string]any{"title": "Fête, All; Days", "start_date": "2027-03-20 00:00:00", "end_date": "2027-03-22 23:59:59",
		"all_day": true}, want{"Fête, All; Days", "2027-03-20", "2027-03-23", true})
	create(map[string]any{"title": "Long Weekend", "start_date": "2027-04-01 09:00:00", "end_date": "2027-04-03 17:00:00",
		"timezone": "Europe/Paris"}, want{"Long Weekend", unix("2027-04-01T07:00:00Z"), unix("2027-04-03T15:00:00Z"), false})
	draft := create(map[string]any{"title": "Unpublished", "status": "draft", "start_date": "2027-03-21 10:00:00",
		"end_date": "2027-03-21 11:00:00"}, want{})
	delete(created, draft)

	t.Run("same events as the JSON across pages", func(t *testing.T) {
		for _, who := range []struct {
			name string
			hdr  map[string]string
		}{{"anonymous", nil}, {"admin", admin}} {
			for _, q := range []string{"", "start_date=2027-03-01&end_date=2027-04-30", "starts_after=2020-01-01",
				"search=a", "start_date=2000-01-01&end_date=2030-12-31&per_page=1&page=2"} {
				jsonQ := regexp.MustCompile(`&?(per_page|page)=\d+`).ReplaceAllString(q, "")
				wantIDs := jsonIDs(t, getAs(who.hdr), jsonQ)
				withAccept := maps.Clone(icalAccept)
				maps.Copy(withAccept, who.hdr)
				byAccept := icalIDs(t, get(t, srv, eventsPath+"?"+q, withAccept))
				byParam := icalIDs(t, get(t, srv, eventsPath+"?"+q+"&format=ical", who.hdr))
				if fmt.Sprint(byAccept) != fmt.Sprint(wantIDs) || fmt.Sprint(byParam) != fmt.Sprint(wantIDs) {
					t.Errorf("%s %q: JSON pages %v, Accept %v, format=ical %v", who.name, q, wantIDs, byAccept, byParam)
				}
				if q == "start_date=2027-03-01&end_date=2027-04-30" {
					// The draft is the admin's to see, not anonymous callers'.
					if hasDraft := slices.Contains(byAccept, draft); hasDraft != (who.name == "admin") {
						t.Errorf("%s: draft listed %v in %v", who.name, hasDraft, wantIDs)
					}
				}
			}
		}
		// Without text/calendar in Accept the answer stays JSON.
		a := get(t, srv, eventsPath, map[string]string{"Accept": "application/json, text/plain;q=0.5"})
		if !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
			t.Errorf("Accept without text/calendar: %s", a.header.Get("Content-Type"))
		}
		a = get(t, srv, eventsPath, map[string]string{"Accept": "text/calendar;q=0, application/json"})
		if !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
			t.Errorf("text/calendar;q=0: %s", a.header.Get("Content-Type"))
		}
	})

	t.Run("two parsers read the events back", func(t *testing.T) {
		a := get(t, srv, eventsPath+"?start_date=2027-03-01&end_date=2027-04-30", icalAccept)
		icalIDs(t, a)
		for name, parse := range parsers {
			evs := parse(a.raw)
			seen := 0
			for _, e := range evs {
				id, _ := strconv.ParseInt(strings.SplitN(e.UID, "-", 2)[0], 10, 64)
				w, ok := created[id]
				if !ok {
					continue
				}
				seen++
				if e.Summary != w.summary || e.AllDay != w.allDay || e.Start != w.start || e.End != w.end {
					t.Errorf("%s: event %d read as %+v, want %+v", name, id, e, w)
				}
				if id == dst && !strings.Contains(e.Description, text) {
					t.Errorf("%s: description %q does not hold %q", name, e.Description, text)
				}
			}
			if seen != len(created) {
				t.Errorf("%s read %d of the %d events: %+v", name, seen, len(created), evs)
			}
		}
	})

	t.Run("ETag and Last-Modified answer 304", func(t *testing.T) {
		path := eventsPath + "?start_date=2027-03-01&end_date=2027-04-30"
		a := get(t, srv, path, icalAccept)
		etag, lm := a.header.Get("ETag"), a.header.Get("Last-Modified")
		if etag == "" || lm == "" {
			t.Fatalf("ETag %q, Last-Modified %q", etag, lm)
		}
		if _, err := http.ParseTime(lm); err != nil {
			t.Fatalf("Last-Modified %q: %v", lm, err)
		}
		if vary := strings.Join(a.header.Values("Vary"), ", "); !strings.Contains(vary, "Accept,") && !strings.HasSuffix(vary, "Accept") {
			t.Errorf("Vary %q does not name Accept", vary)
		}
		with := func(k, v string) answer { return get(t, srv, path, map[string]string{"Accept": "text/calendar", k: v}) }
		for _, c := range []struct {
			k, v   string
			status int
		}{
			{"If-None-Match", etag, 304},
			{"If-None-Match", `"other"`, 200},
			{"If-Modified-Since", lm, 304},
			{"If-Modified-Since", "Sat, 01 Jan 2000 00:00:00 GMT", 200},
		} {
			b := with(c.k, c.v)
			if b.status != c.status || (c.status == 304 && b.raw != "") || (c.status == 200 && b.raw != a.raw) {
				t.Errorf("%s: %s: %d (%d bytes), want %d", c.k, c.v, b.status, len(b.raw), c.status)
			}
		}
	})

	t.Run("the cap holds", func(t *testing.T) {
		capped, _, _ := serveFixture(t, handlers.Config{Environment: "local", Clock: func() time.Time { return eventsNow },
			ICalMaxEvents: 2}, "icc")
		q := eventsPath + "?start_date=2000-01-01&end_date=2030-12-31"
		all := jsonIDs(t, func(p string) answer { return get(t, capped, p, nil) }, "start_date=2000-01-01&end_date=2030-12-31")
		a := get(t, capped, q, icalAccept)
		ids := icalIDs(t, a)
		if len(all) <= 2 || fmt.Sprint(ids) != fmt.Sprint(all[:2]) || a.header.Get("X-TEC-Total") != strconv.Itoa(len(all)) {
			t.Errorf("cap 2: %v (X-TEC-Total %s) of %v", ids, a.header.Get("X-TEC-Total"), all)
		}
	})
}

// TestEventsListICalendarCachedApart: with the response cache on, one URL keeps its JSON and its
// iCalendar answers apart (the cache keys on Accept).
func TestEventsListICalendarCachedApart(t *testing.T) {
	testenv.SkipIfShort(t, "mariadbd")
	db, err := wpdb.OpenMySQL(testenv.FixtureDB(t, fixture, testenv.DBName("icx", t)), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := liveStore(t, db, wpdb.SiteOverrides{})
	c, err := cache.New(cache.Options{Mode: cache.Memory, Prefix: "test:", TTL: time.Minute, MaxBytes: 32 << 20,
		Timeout: 100 * time.Millisecond, Retry: 50 * time.Millisecond, Registerer: prometheus.NewRegistry(),
		Generation: store.Generation, Quiescent: store.Quiescent, Feed: db.Changes(), Sync: db.Changes().Sync})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	srv := httptest.NewServer(service.Handler(handlers.Config{Environment: "local", Clock: func() time.Time { return eventsNow },
		Cache: c, CacheHeader: true}, store))
	t.Cleanup(srv.Close)
	path := eventsPath + "?start_date=2000-01-01&end_date=2030-12-31"
	for i, hdr := range []map[string]string{nil, icalAccept, nil, icalAccept} {
		a := get(t, srv, path, hdr)
		wantICal := hdr != nil
		if got := strings.HasPrefix(a.header.Get("Content-Type"), "text/calendar"); got != wantICal || a.status != 200 {
			t.Errorf("request %d (Accept %v): %d %s, X-Cache %s", i, hdr, a.status, a.header.Get("Content-Type"), a.header.Get("X-Cache"))
		}
	}
}
