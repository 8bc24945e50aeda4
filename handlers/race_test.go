package handlers_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// Racing writers and readers through the real HTTP stack on a real MariaDB, meant to run under the
// race detector (make race: go test -race -run Race ./handlers/; make test runs it). Two servers
// share one fixture database: a live one as calendard serve runs it (the store started: event
// index, record cache, change feed polling every 50 ms, rendered records kept) and a cold one that
// keeps nothing between requests. Writers race on the same records through both (a write through
// the cold one is, to the live one, a change made by someone else) while readers hammer the live
// one; then every invariant of the tables is checked, and the live server's answers must equal the
// cold one's.

// raceServers serves one fresh fixture copy twice (live and cold) and returns a raw connection.
func raceServers(t *testing.T, now time.Time) (live, cold *httptest.Server, raw *sql.DB) {
	t.Helper()
	dsn := testenv.FixtureDB(t, fixture, testenv.DBName("race", t))
	open := func() *wpdb.DB {
		db, err := wpdb.OpenMySQL(dsn, "wp_")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	// Every write waits for the ones before it on the same record and on the slug lock; under the
	// race detector on a small machine that queue can outlast the default 5 s database deadline,
	// which is not what this test is about.
	cfg := handlers.Config{Environment: "local", Clock: func() time.Time { return now }, DBTimeout: time.Minute}

	db := open()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	store := service.Start(ctx, db, wpdb.SiteOverrides{}, wpdb.StartOptions{WatchInterval: 50 * time.Millisecond, Records: 1000,
		OnError: func(err error) {
			if ctx.Err() == nil { // the end of the test stops the store and closes its database
				t.Errorf("live store: %v", err)
			}
		}})
	wait, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if !store.Index().WaitReady(wait) {
		t.Fatal("the event index was not built")
	}
	live = httptest.NewServer(service.Handler(cfg, store))
	t.Cleanup(live.Close)

	cdb := open()
	// Cold (service.Cold): the cold server keeps nothing, so it answers from the rows alone.
	cstore := service.Start(context.Background(), cdb, wpdb.SiteOverrides{}, service.Cold)
	cold = httptest.NewServer(service.Handler(cfg, cstore))
	t.Cleanup(cold.Close)

	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return live, cold, raw
}

// raceWrite is one update a writer sent and how it was answered.
type raceWrite struct {
	title, content, start, end string
	venue                      int
	cats, tags                 []int
	status                     int
}

func (w raceWrite) body() map[string]any {
	return map[string]any{"title": w.title, "description": w.content, "start_date": w.start, "end_date": w.end,
		"venue": w.venue, "categories": intsAny(w.cats), "tags": intsAny(w.tags)}
}

func intsAny(ids []int) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

func TestRaceWritesKeepInvariantsAndCachesExact(t *testing.T) {
	now := eventsNow
	live, cold, raw := raceServers(t, now)
	servers := []struct {
		name string
		srv  *httptest.Server
	}{{"live", live}, {"cold", cold}}

	// The records raced on, created first so that their whole state is known.
	create := func(title string, cats []int) int64 {
		a := call(t, live, "POST", eventsPath, map[string]any{"title": title, "start_date": "2027-03-01 10:00:00",
			"end_date": "2027-03-01 12:00:00", "categories": intsAny(cats), "tags": []any{11}, "venue": 10}, "admin")
		if a.status != 201 {
			t.Fatalf("creating %q: %d %.300s", title, a.status, a.raw)
		}
		return idOf(t, a)
	}
	updated := create("Race Updated", []int{2}) // racing full updates: one of them must win whole
	trashed := create("Race Trashed", []int{3}) // racing trashes: trashed once
	revived := create("Race Revived", []int{3}) // trashes racing updates (an update revives a trashed event)
	slugA := create("Race Slug A", []int{4})    // racing slug changes to one contested slug,
	slugB := create("Race Slug B", []int{4})    // with creates of the same title
	cats, tags := []int{2, 3, 4, 5}, []int{11, 12, 13}

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		writes  []raceWrite
		deletes []int
		// answers to the trashes of the revived event
		revivedDeletes []int
		failures       []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	const writers, rounds = 6, 4
	for g := 0; g < writers; g++ {
		// Full updates of one event, alternating servers; each write unique in every field.
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				day := 1 + g*rounds + i
				w := raceWrite{title: fmt.Sprintf("Race write %d.%d", g, i), content: fmt.Sprintf("<p>Body %d.%d</p>", g, i),
					start: fmt.Sprintf("2027-04-%02d 09:00:00", day), end: fmt.Sprintf("2027-04-%02d 17:30:00", day),
					venue: 10 + (g+i)%3, cats: []int{cats[(g+i)%len(cats)]}, tags: []int{tags[g%len(tags)], tags[(g+i+1)%len(tags)]}}
				if w.tags[0] == w.tags[1] {
					w.tags = w.tags[:1]
				}
				a := call(t, servers[(g+i)%2].srv, "PATCH", eventsPath+"/"+raceID(updated), w.body(), "admin")
				w.status = a.status
				if a.status != 200 {
					fail("update %d.%d: %d %.200s", g, i, a.status, a.raw)
				}
				mu.Lock()
				writes = append(writes, w)
				mu.Unlock()
			}
		}(g)
		// Trashes racing each other on one event, and racing updates (of categories too) on another.
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			srv := servers[g%2].srv
			if g%2 == 0 {
				a := call(t, srv, "DELETE", eventsPath+"/"+raceID(trashed), nil, "admin")
				b := call(t, srv, "DELETE", eventsPath+"/"+raceID(revived), nil, "admin")
				mu.Lock()
				deletes = append(deletes, a.status)
				revivedDeletes = append(revivedDeletes, b.status)
				mu.Unlock()
				return
			}
			a := call(t, srv, "PATCH", eventsPath+"/"+raceID(revived), map[string]any{"title": "Race Revived " + strconv.Itoa(g),
				"categories": []any{cats[g%len(cats)]}}, "admin")
			if a.status != 200 {
				fail("update of the event being trashed: %d %.200s", a.status, a.raw)
			}
		}(g)
		// Slug collisions: two events claim one slug while new events of that title are created.
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			srv := servers[g%2].srv
			var a answer
			switch g % 3 {
			case 0:
				a = call(t, srv, "PATCH", eventsPath+"/"+raceID(slugA), map[string]any{"slug": "race-contested"}, "admin")
			case 1:
				a = call(t, srv, "PATCH", eventsPath+"/"+raceID(slugB), map[string]any{"slug": "race-contested"}, "admin")
			default:
				a = call(t, srv, "POST", eventsPath, map[string]any{"title": "Race Contested", "start_date": "2027-05-01 10:00:00",
					"end_date": "2027-05-01 11:00:00", "categories": []any{cats[g%len(cats)]}, "tags": []any{tags[g%len(tags)]}}, "admin")
			}
			if a.status >= 300 {
				fail("slug writer %d: %d %.200s", g, a.status, a.raw)
			}
			// And a venue and an organizer of one name, from every writer at once.
			if a := call(t, srv, "POST", "/wp-json/tribe/events/v1/venues", map[string]any{"venue": "Race Hall"}, "admin"); a.status != 201 {
				fail("venue create: %d %.200s", a.status, a.raw)
			}
			if a := call(t, srv, "POST", "/wp-json/tribe/events/v1/organizers", map[string]any{"organizer": "Race Org"}, "admin"); a.status != 201 {
				fail("organizer create: %d %.200s", a.status, a.raw)
			}
		}(g)
	}

	// Readers on the live server while the writes run: its index, record cache and rendered
	// records are rebuilt under them.
	done := make(chan struct{})
	var readers sync.WaitGroup
	reads := []string{
		eventsPath + "?per_page=50", eventsPath + "?categories=" + raceID(int64(cats[0])) + "," + raceID(int64(cats[1])),
		eventsPath + "?search=Race&per_page=20", eventsPath + "/" + raceID(updated), eventsPath + "/" + raceID(trashed),
		eventsPath + "/by-slug/race-contested", eventsPath + "?start_date=2027-04-01&end_date=2027-05-31&tags=" + raceID(int64(tags[0])),
		"/wp-json/tribe/events/v1/categories?per_page=50", "/wp-json/tribe/events/v1/tags?per_page=50",
		"/wp-json/tribe/events/v1/venues?per_page=50", "/wp-json/tribe/events/v1/organizers?search=Race",
	}
	var readCount int
	for r := 0; r < 4; r++ {
		readers.Add(1)
		go func(r int) {
			defer readers.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				user := ""
				if (i+r)%3 == 0 {
					user = "admin"
				}
				a := call(t, live, "GET", reads[(i*5+r)%len(reads)], nil, user)
				if a.status >= 500 || a.status == 0 {
					fail("read %s during the writes: %d %.200s", reads[(i*5+r)%len(reads)], a.status, a.raw)
				}
				mu.Lock()
				readCount++
				mu.Unlock()
			}
		}(r)
	}
	wg.Wait()
	close(done)
	readers.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("%d writes, %d trashes, %d reads raced", len(writes)+3*writers, len(deletes), readCount)

	t.Run("no lost update: the event is one write whole", func(t *testing.T) {
		got := raceState(t, raw, updated)
		for _, w := range writes {
			if w.status == 200 && got == raceStateOf(w) {
				return
			}
		}
		t.Errorf("the event's state %+v is none of the %d writes", got, len(writes))
	})

	t.Run("a trashed event is trashed once and stays trashed", func(t *testing.T) {
		ok := 0
		for _, s := range deletes {
			switch s {
			case 200:
				ok++
			case 410:
			default:
				t.Errorf("a trash answered %d", s)
			}
		}
		if ok != 1 {
			t.Errorf("%d trashes succeeded (answers %v), want exactly 1", ok, deletes)
		}
		if st := scalar[string](t, raw, "SELECT post_status FROM wp_posts WHERE ID = ?", trashed); st != "trash" {
			t.Errorf("post_status %q after the trash", st)
		}
		if n := scalar[int](t, raw, "SELECT COUNT(*) FROM wp_postmeta WHERE post_id = ? AND meta_key = '_wp_trash_meta_status'", trashed); n != 1 {
			t.Errorf("%d _wp_trash_meta_status rows, want 1", n)
		}
		if st := scalar[string](t, raw, "SELECT meta_value FROM wp_postmeta WHERE post_id = ? AND meta_key = '_wp_trash_meta_status'", trashed); st != "publish" {
			t.Errorf("_wp_trash_meta_status %q, want publish", st)
		}
	})

	t.Run("trashes racing updates each record the status they trashed", func(t *testing.T) {
		ok := 0
		for _, s := range revivedDeletes {
			switch s {
			case 200:
				ok++
			case 410:
			default:
				t.Errorf("a trash answered %d", s)
			}
		}
		// An update of a trashed event publishes it again, as the plugin does; a trash after it is a
		// new trash. Each trash that succeeded stored the status it found, never "trash".
		if prev := metaOf(t, raw, revived, "_wp_trash_meta_status"); len(prev) != ok {
			t.Errorf("%d _wp_trash_meta_status rows for %d trashes that succeeded (%v)", len(prev), ok, revivedDeletes)
		} else {
			for _, v := range prev {
				if v != "publish" {
					t.Errorf("a trash stored the previous status %q", v)
				}
			}
		}
	})

	raceInvariants(t, raw)

	if n := scalar[int](t, raw, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_events' AND post_name LIKE 'race-contested%' AND post_status = 'publish'"); n != 2+writers/3 {
		t.Errorf("%d events named race-contested…, want %d", n, 2+writers/3)
	}
	for _, tc := range []struct{ typ, name string }{{"tribe_venue", "race-hall"}, {"tribe_organizer", "race-org"}} {
		// Creating a venue or organizer of an existing title answers the existing one (the
		// plugin's duplicate avoidance), also when the creates race.
		if n := scalar[int](t, raw, "SELECT COUNT(*) FROM wp_posts WHERE post_type = ? AND post_name LIKE ?", tc.typ, tc.name+"%"); n != 1 {
			t.Errorf("%d %s posts named %s…, want 1", n, tc.typ, tc.name)
		}
	}

	t.Run("the live server answers as the uncached one", func(t *testing.T) {
		compare := []string{eventsPath + "?per_page=50", eventsPath + "?per_page=50&page=2", eventsPath + "?per_page=50&page=3",
			eventsPath + "?per_page=50&page=4", eventsPath + "?search=race", eventsPath + "?start_date=2027-01-01&end_date=2027-12-31&per_page=50",
			"/wp-json/tribe/events/v1/categories?per_page=50", "/wp-json/tribe/events/v1/tags?per_page=50",
			"/wp-json/tribe/events/v1/venues?per_page=50&page=2", "/wp-json/tribe/events/v1/organizers?per_page=50&search=race",
			eventsPath + "/by-slug/race-contested"}
		for _, c := range cats {
			compare = append(compare, eventsPath+"?per_page=50&categories="+raceID(int64(c)))
		}
		for _, tg := range tags {
			compare = append(compare, eventsPath+"?per_page=50&tags="+raceID(int64(tg)))
		}
		lists := len(compare) // lists are compared for anonymous visitors and for the administrator, singles once
		rows, err := raw.Query("SELECT ID FROM wp_posts WHERE post_type = 'tribe_events' AND post_title LIKE 'Race%'")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			compare = append(compare, eventsPath+"/"+raceID(id))
		}
		rows.Close()
		// The live server sees its own writes at once and the cold server's within its poll plus an
		// index rebuild; give it time (a loaded machine stretches both), then every answer must be
		// identical.
		deadline := time.Now().Add(30 * time.Second)
		for _, user := range []string{"", "admin"} {
			for i, p := range compare {
				if user != "" && i >= lists {
					break
				}
				for {
					l, c := call(t, live, "GET", p, nil, user), call(t, cold, "GET", p, nil, user)
					if l.status == c.status && l.raw == c.raw && raceSameHeaders(l, c) {
						break
					}
					if time.Now().After(deadline) {
						t.Errorf("GET %s as %q: live %d %.300s\ncold %d %.300s", p, user, l.status, l.raw, c.status, c.raw)
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		}
	})
}

// raceSameHeaders compares the headers that carry list totals.
func raceSameHeaders(a, b answer) bool {
	for _, h := range []string{"X-Wp-Total", "X-Wp-Totalpages", "X-Tec-Total", "X-Tec-Totalpages", "Link"} {
		if a.header.Get(h) != b.header.Get(h) {
			return false
		}
	}
	return true
}

// raceEventState is what the racing updates write of an event.
type raceEventState struct {
	title, content, start, end, venue, cats, tags string
}

func raceStateOf(w raceWrite) raceEventState {
	join := func(ids []int) string {
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = strconv.Itoa(id)
		}
		sort.Strings(s)
		return strings.Join(s, ",")
	}
	return raceEventState{title: w.title, content: w.content, start: w.start, end: w.end, venue: strconv.Itoa(w.venue),
		cats: join(w.cats), tags: join(w.tags)}
}

func raceState(t *testing.T, db *sql.DB, id int64) raceEventState {
	t.Helper()
	var s raceEventState
	if err := db.QueryRow("SELECT post_title, post_content FROM wp_posts WHERE ID = ?", id).Scan(&s.title, &s.content); err != nil {
		t.Fatal(err)
	}
	one := func(key string) string {
		v := metaOf(t, db, id, key)
		if len(v) != 1 {
			t.Errorf("event %d has %d %s rows", id, len(v), key)
			return ""
		}
		return v[0]
	}
	s.start, s.end, s.venue = one("_EventStartDate"), one("_EventEndDate"), one("_EventVenueID")
	terms := func(tax string) string {
		return scalar[string](t, db, `SELECT COALESCE(GROUP_CONCAT(tt.term_id ORDER BY CAST(tt.term_id AS CHAR)), '')
			FROM wp_term_relationships tr JOIN wp_term_taxonomy tt ON tt.term_taxonomy_id = tr.term_taxonomy_id
			WHERE tr.object_id = ? AND tt.taxonomy = ?`, id, tax)
	}
	s.cats, s.tags = terms("tribe_events_cat"), terms("post_tag")
	return s
}

// raceInvariants checks the whole calendar: what holds on the recorded fixture must hold after any
// interleaving of calendard's writes.
func raceInvariants(t *testing.T, db *sql.DB) {
	t.Helper()
	list := func(q string, args ...any) []string {
		t.Helper()
		rows, err := db.Query(q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out []string
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			parts := make([]string, len(vals))
			for i, v := range vals {
				parts[i] = v.String
			}
			out = append(out, strings.Join(parts, " "))
		}
		return out
	}
	checks := []struct{ name, query string }{
		{"no two live posts of a type share a post_name",
			`SELECT post_type, post_name, COUNT(*) FROM wp_posts
			 WHERE post_type IN ('tribe_events', 'tribe_venue', 'tribe_organizer') AND post_status NOT IN ('trash', 'auto-draft', 'inherit')
			   AND post_name <> '' GROUP BY post_type, post_name HAVING COUNT(*) > 1`},
		{"every term count is the number of published posts it has",
			`SELECT tt.term_taxonomy_id, tt.taxonomy, tt.count, (SELECT COUNT(*) FROM wp_term_relationships tr
			   JOIN wp_posts p ON p.ID = tr.object_id WHERE tr.term_taxonomy_id = tt.term_taxonomy_id AND p.post_status = 'publish') AS n
			 FROM wp_term_taxonomy tt WHERE tt.taxonomy IN ('tribe_events_cat', 'post_tag') HAVING tt.count <> n`},
		{"every event has one tec_events and one tec_occurrences row",
			`SELECT p.ID, p.post_status, (SELECT COUNT(*) FROM wp_tec_events e WHERE e.post_id = p.ID) AS ne,
			   (SELECT COUNT(*) FROM wp_tec_occurrences o WHERE o.post_id = p.ID) AS no
			 FROM wp_posts p WHERE p.post_type = 'tribe_events' AND p.post_status <> 'auto-draft' HAVING ne <> 1 OR no <> 1`},
		{"no tec rows of anything but an event",
			`SELECT e.post_id FROM wp_tec_events e LEFT JOIN wp_posts p ON p.ID = e.post_id AND p.post_type = 'tribe_events' WHERE p.ID IS NULL
			 UNION ALL SELECT o.post_id FROM wp_tec_occurrences o LEFT JOIN wp_posts p ON p.ID = o.post_id AND p.post_type = 'tribe_events' WHERE p.ID IS NULL`},
		{"tec_events and tec_occurrences hold the event's dates",
			`SELECT p.ID, e.start_date, e.end_date, e.start_date_utc, e.end_date_utc, o.start_date, o.end_date, o.start_date_utc, o.end_date_utc
			 FROM wp_posts p JOIN wp_tec_events e ON e.post_id = p.ID JOIN wp_tec_occurrences o ON o.post_id = p.ID AND o.event_id = e.event_id
			 JOIN wp_postmeta s ON s.post_id = p.ID AND s.meta_key = '_EventStartDate'
			 JOIN wp_postmeta en ON en.post_id = p.ID AND en.meta_key = '_EventEndDate'
			 JOIN wp_postmeta su ON su.post_id = p.ID AND su.meta_key = '_EventStartDateUTC'
			 JOIN wp_postmeta eu ON eu.post_id = p.ID AND eu.meta_key = '_EventEndDateUTC'
			 WHERE p.post_type = 'tribe_events' AND (e.start_date <> s.meta_value OR e.end_date <> en.meta_value
			   OR e.start_date_utc <> su.meta_value OR e.end_date_utc <> eu.meta_value
			   OR o.start_date <> s.meta_value OR o.end_date <> en.meta_value OR o.start_date_utc <> su.meta_value OR o.end_date_utc <> eu.meta_value)`},
		{"no event is half-written: each required meta key exactly once",
			`SELECT p.ID, k.meta_key, (SELECT COUNT(*) FROM wp_postmeta m WHERE m.post_id = p.ID AND m.meta_key = k.meta_key) AS n
			 FROM wp_posts p CROSS JOIN (SELECT '_EventStartDate' AS meta_key UNION ALL SELECT '_EventEndDate' UNION ALL SELECT '_EventStartDateUTC'
			   UNION ALL SELECT '_EventEndDateUTC' UNION ALL SELECT '_EventTimezone' UNION ALL SELECT '_EventTimezoneAbbr'
			   UNION ALL SELECT '_EventOrigin') k
			 WHERE p.post_type = 'tribe_events' AND p.post_status <> 'auto-draft' HAVING n <> 1`},
		{"no meta or term relationship of a post that does not exist",
			`SELECT 'meta', m.post_id FROM wp_postmeta m LEFT JOIN wp_posts p ON p.ID = m.post_id WHERE p.ID IS NULL
			 UNION ALL SELECT 'term', tr.object_id FROM wp_term_relationships tr LEFT JOIN wp_posts p ON p.ID = tr.object_id
			   WHERE p.ID IS NULL AND tr.object_id NOT IN (SELECT link_id FROM wp_links)`},
	}
	for _, c := range checks {
		if bad := list(c.query); len(bad) > 0 {
			if len(bad) > 10 {
				bad = bad[:10]
			}
			t.Errorf("%s: violated by %q", c.name, bad)
		}
	}
}

func raceID(id int64) string { return strconv.FormatInt(id, 10) }
