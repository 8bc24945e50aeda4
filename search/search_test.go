package search

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/bench/gen"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// The tests run against a real Meilisearch (testenv finds the binary .ci/install-meilisearch
// installs; without it they fail) and a throwaway MariaDB holding the recorded site-a calendar.

type (
	TaskInfo   = meilisearch.TaskInfo
	Pagination = meilisearch.Pagination
)

var fixture = filepath.Join("..", "compat-tests", "testdata", "site-a", "fixture.sql")

var (
	meiliOnce sync.Once
	meili     *testenv.Meilisearch
	meiliErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if meili != nil {
		meili.Stop()
		_ = os.RemoveAll(meili.Dir)
	}
	testenv.StopShared()
	os.Exit(code)
}

// sharedMeili is one Meilisearch for the package; each test uses indexes of its own prefix.
func sharedMeili(t testing.TB) *testenv.Meilisearch {
	t.Helper()
	testenv.SkipIfShort(t, "Meilisearch")
	meiliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "calendard-meili-")
		if err != nil {
			meiliErr = err
			return
		}
		meili, meiliErr = testenv.StartMeilisearch(dir)
	})
	if meiliErr != nil {
		t.Fatalf("starting Meilisearch: %v", meiliErr)
	}
	return meili
}

// calendar is the site-a calendar in its own database, with a live store (the change feed polls
// every 100 ms) and a search index following the feed.
type calendar struct {
	db    *wpdb.DB
	raw   *sql.DB
	store *wpdb.Store
	site  *calendard.Site
	ix    *Index
	sql   calendard.EventService // the plugin's substring search (CALENDAR_SEARCH=sql)
	meili calendard.EventService // through the index
}

func prefixOf(t testing.TB) string {
	return strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_"))
}

func newCalendar(t testing.TB, m *testenv.Meilisearch, prepare func(*sql.DB)) *calendar {
	t.Helper()
	return newCalendarReconciling(t, m, prepare, 0)
}

// newCalendarReconciling is newCalendar whose feed also reconciles every reconcile (0: never).
func newCalendarReconciling(t testing.TB, m *testenv.Meilisearch, prepare func(*sql.DB), reconcile time.Duration) *calendar {
	t.Helper()
	// A generous search timeout: these tests are about answers, and a search that timed out on a
	// loaded machine would be answered from SQL (the outage tests use the default).
	return newCalendarWith(t, m, prepare, reconcile, Config{RetryMax: 200 * time.Millisecond, Timeout: 10 * time.Second})
}

// newCalendarWith is newCalendarReconciling with the index configured by cfg (URL, key and prefix
// are the test's).
func newCalendarWith(t testing.TB, m *testenv.Meilisearch, prepare func(*sql.DB), reconcile time.Duration, cfg Config) *calendar {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dsn := testenv.FixtureDB(t, fixture, testenv.DBName("search", t))
	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	if prepare != nil {
		prepare(raw)
	}
	db, err := wpdb.Open("mysql://"+dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := service.Start(ctx, db, wpdb.SiteOverrides{}, wpdb.StartOptions{WatchInterval: 100 * time.Millisecond, Reconcile: reconcile})
	site, err := store.Site(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg.URL, cfg.Key, cfg.Prefix = m.URL, m.Key, prefixOf(t)
	ix := New(cfg, db)
	ix.Follow(db.Changes())
	ix.Start(ctx)
	c := &calendar{db: db, raw: raw, store: store, site: site, ix: ix, sql: store,
		meili: &Events{EventService: store, Index: ix, Substrings: store.Index()}}
	c.waitUsable(t)
	return c
}

// usableWithin bounds the first sync (the benchmark's large calendars raise it). It is a wait,
// not a measure: the package's tests share one Meilisearch, whose task queue on a loaded machine
// (load average near 30 in one run) held a 172-document first sync past a minute.
var usableWithin = 3 * time.Minute

// waitUsable waits until the index has applied every change seen.
func (c *calendar) waitUsable(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(usableWithin)
	for !c.ix.Usable() {
		if time.Now().After(deadline) {
			t.Fatalf("the search index did not become usable within %s", usableWithin)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// everything is a list of every event in every listable status, all dates, one page.
func everything(search string, anonymous bool) calendard.EventFilter {
	f := calendard.EventFilter{Limit: 1 << 20, Search: calendard.ParseSearch(search), SearchAnonymous: anonymous}
	if anonymous {
		f.Statuses = []string{"publish"}
	}
	return f
}

func ids(t *testing.T, svc calendard.EventService, site *calendard.Site, f calendard.EventFilter) ([]int64, int) {
	t.Helper()
	evs, total, err := svc.FindEvents(context.Background(), site, f)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out, total
}

func missingFrom(have, want []int64) []int64 {
	var out []int64
	for _, id := range want {
		if !slices.Contains(have, id) {
			out = append(out, id)
		}
	}
	return out
}

func TestIndexSettingsAreAppliedAndVerified(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	ctx := context.Background()
	for _, k := range kinds {
		t.Run(k+" holds the settings searches rely on", func(t *testing.T) {
			if err := c.ix.verifySettings(ctx, c.ix.UID(k), settingsFor(k)); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("a changed setting is detected", func(t *testing.T) {
		uid := c.ix.UID(KindEvents)
		if err := c.ix.waitTask(ctx, func() (*TaskInfo, error) {
			return c.ix.client.Index(uid).UpdatePaginationWithContext(ctx, &Pagination{MaxTotalHits: 1000})
		}); err != nil {
			t.Fatal(err)
		}
		if err := c.ix.verifySettings(ctx, uid, settingsFor(KindEvents)); err == nil {
			t.Fatal("maxTotalHits 1000 passed verification")
		}
		if _, err := c.ix.ensureIndex(ctx, uid, KindEvents); err != nil {
			t.Fatalf("ensureIndex did not restore the settings: %v", err)
		}
	})
}

func TestSearchFindsTyposAndPrefixesTheSubstringMatchMisses(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	for _, tc := range []struct{ query, word string }{
		{"Marathn", "Marathon"},     // one letter missing
		{"Hackahton", "Hackathon"},  // two letters swapped
		{"Exhibtion", "Exhibition"}, // one letter missing
		{"Semin", "Seminar"},        // prefix
		{"Screen", "Screening"},     // prefix (also a substring)
	} {
		t.Run(tc.query+" finds every "+tc.word+" event", func(t *testing.T) {
			want, _ := ids(t, c.sql, c.site, everything(tc.word, false))
			if len(want) == 0 {
				t.Fatalf("the fixture has no %q event", tc.word)
			}
			got, total := ids(t, c.meili, c.site, everything(tc.query, false))
			if m := missingFrom(got, want); len(m) > 0 {
				t.Fatalf("search=%s misses %v of the %s events %v (got %v)", tc.query, m, tc.word, want, got)
			}
			if total != len(got) {
				t.Fatalf("total %d, listed %d", total, len(got))
			}
		})
	}
	t.Run("the substring match finds nothing for a typo", func(t *testing.T) {
		if got, _ := ids(t, c.sql, c.site, everything("Marathn", false)); len(got) != 0 {
			t.Fatalf("sql search=Marathn found %v", got)
		}
	})
}

func TestSearchCombinesWithEveryOtherFilter(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	from, to := "2025-01-01 00:00:00", "2027-12-31 23:59:59"
	yes := true
	for _, tc := range []struct {
		name string
		f    func(f *calendard.EventFilter)
	}{
		{"published only", func(f *calendard.EventFilter) { f.Statuses = []string{"publish"} }},
		{"a date window", func(f *calendard.EventFilter) { f.StartOnOrAfter, f.EndOnOrBefore = &from, &to }},
		{"featured", func(f *calendard.EventFilter) { f.Featured = &yes }},
		{"a venue", func(f *calendard.EventFilter) { f.VenueIDs = []int64{12, 16, 20} }},
		{"include", func(f *calendard.EventFilter) { f.Include = []int64{40, 62, 63, 139, 158, 34} }},
		{"anonymous", func(f *calendard.EventFilter) { f.SearchAnonymous = true; f.Statuses = []string{"publish"} }},
		{"paged", func(f *calendard.EventFilter) { f.Limit, f.Offset = 2, 1 }},
		{"an excluded word", func(f *calendard.EventFilter) { f.Search = calendard.ParseSearch("Marathon -Monthly") }},
	} {
		t.Run(tc.name+" gives the substring match's page and total for whole words", func(t *testing.T) {
			for _, q := range []string{"Marathon", "Concert", "Open", "Fair"} {
				f := everything(q, false)
				tc.f(&f)
				want, wantTotal := ids(t, c.sql, c.site, f)
				got, gotTotal := ids(t, c.meili, c.site, f)
				// These words occur only as whole words in the fixture: the sets are equal.
				if !slices.Equal(got, want) || gotTotal != wantTotal {
					t.Fatalf("search=%s: meili %v (total %d), sql %v (total %d)", q, got, gotTotal, want, wantTotal)
				}
			}
		})
	}
}

var wordRe = regexp.MustCompile(`[A-Za-z]{3,}`)

// TestSearchContainsEverySubstringMatch holds the index to the plugin's search on the recorded
// site: for every word of every event title, a fragment of each longer word and pairs of words,
// the answer contains every event the substring match returns, a word found only inside a longer
// one ("Night" in "Midnight") included.
func TestSearchContainsEverySubstringMatch(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	c.waitSubstringIndex(t)
	rows, err := c.raw.Query("SELECT post_title FROM wp_posts WHERE post_type = 'tribe_events'")
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for rows.Next() {
		var title string
		if err := rows.Scan(&title); err != nil {
			t.Fatal(err)
		}
		for _, w := range wordRe.FindAllString(title, -1) {
			words[strings.ToLower(w)] = true
			if len(w) > 5 {
				words[strings.ToLower(w[1:len(w)-1])] = true // a fragment
			}
		}
	}
	rows.Close()
	queries := make([]string, 0, len(words))
	for w := range words {
		queries = append(queries, w)
	}
	slices.Sort(queries)
	// Multi-word queries too: pairs of neighbouring words.
	for i := 0; i+1 < len(queries); i += 3 {
		queries = append(queries, queries[i]+" "+queries[i+1])
	}
	queries = append(queries, "a", "Night")
	checked, inside := 0, 0
	for _, anonymous := range []bool{true, false} {
		for _, q := range queries {
			f := everything(q, anonymous)
			want, _ := ids(t, c.sql, c.site, f)
			got, _ := ids(t, c.meili, c.site, f)
			if m := missingFrom(got, want); len(m) > 0 {
				t.Errorf("search=%q (anonymous %v): the index's answer misses the substring matches %v", q, anonymous, m)
			}
			checked += len(want)
			mq, _ := Query(f.Search)
			alone, err := c.ix.IDs(context.Background(), KindEvents, mq, searchFilter(f), nil)
			if err != nil {
				t.Fatal(err)
			}
			inside += len(missingFrom(alone, want))
		}
	}
	// Without the substring side these would be missing: the test must meet some.
	if checked < 500 || inside < 20 {
		t.Fatalf("only %d substring matches checked, %d of them not Meilisearch's", checked, inside)
	}
	t.Logf("%d queries, %d substring matches checked; %d of them Meilisearch does not match (a word inside a longer word)", 2*len(queries), checked, inside)
}

// waitSubstringIndex waits until the store's event index can list the substring matches (it is
// built in the background), so that searches leave those out of the Meilisearch request.
func (c *calendar) waitSubstringIndex(t testing.TB) {
	t.Helper()
	x := c.store.Index()
	if x == nil {
		t.Fatal("the store has no event index")
	}
	deadline := time.Now().Add(usableWithin)
	for {
		if _, _, ok := x.SearchMatches(c.site, calendard.ParseSearch("x")); ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the event index was not built within %s", usableWithin)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEventSearchIsMeilisearchsMatchesAndTheSubstringMatches: with Meilisearch configured, the
// answer to an event search= is exactly the events Meilisearch matches and the events the plugin's
// substring match finds, under every other filter, in the plugin's order, with exact totals and
// pages. (Meilisearch's matches alone would leave the Midnight events out of search=Night.)
func TestEventSearchIsMeilisearchsMatchesAndTheSubstringMatches(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	c.waitSubstringIndex(t)
	ctx := context.Background()
	from, to := "2025-01-01 00:00:00", "2027-12-31 23:59:59"
	substringOnly, meiliOnly := 0, 0
	for _, tc := range []struct {
		name string
		f    func(f *calendard.EventFilter)
	}{
		{"every status", func(f *calendard.EventFilter) {}},
		{"anonymous", func(f *calendard.EventFilter) { f.SearchAnonymous = true; f.Statuses = []string{"publish"} }},
		{"a date window", func(f *calendard.EventFilter) { f.StartOnOrAfter, f.EndOnOrBefore = &from, &to }},
		{"a page", func(f *calendard.EventFilter) { f.Offset, f.Limit = 2, 3 }},
		{"a venue", func(f *calendard.EventFilter) { f.VenueIDs = []int64{12, 16, 20} }},
	} {
		for _, q := range []string{"Night", "ight", "a", "Marathn", "Concert", "Jazz Night", "Night -Midnight", `"Night Market"`} {
			t.Run(tc.name+"/search="+q+" is both sets in the plugin's order", func(t *testing.T) {
				f := everything(q, false)
				tc.f(&f)
				all := f
				all.Offset, all.Limit = 0, 1<<20
				substring, _ := ids(t, c.sql, c.site, all)
				mq, _ := Query(f.Search)
				matched, err := c.ix.IDs(ctx, KindEvents, mq, searchFilter(f), nil)
				if err != nil {
					t.Fatal(err)
				}
				// Meilisearch's matches under the other filters; excluded words still exclude.
				m := all
				m.Search, m.Include = nil, append([]int64{}, matched...) // none: no event
				for _, term := range f.Search {
					if term.Exclude {
						m.Search = append(m.Search, term)
					}
				}
				meili, _ := ids(t, c.sql, c.site, m)
				both := append(slices.Clone(substring), missingFrom(substring, meili)...)
				page := f
				page.Search, page.Include = nil, append([]int64{}, both...)
				want, wantTotal := ids(t, c.sql, c.site, page)
				got, gotTotal := ids(t, c.meili, c.site, f)
				if !slices.Equal(got, want) || gotTotal != wantTotal {
					t.Fatalf("answer %v (total %d), want %v (total %d): substring %v, Meilisearch %v", got, gotTotal, want, wantTotal, substring, meili)
				}
				substringOnly += len(missingFrom(meili, substring))
				meiliOnly += len(missingFrom(substring, meili))
			})
		}
	}
	if substringOnly == 0 || meiliOnly == 0 {
		t.Fatalf("%d substring-only and %d Meilisearch-only matches: the test must meet both", substringOnly, meiliOnly)
	}
}

// TestTotalsAndPagesAreExactBeyondMaxTotalHits searches a word held by every event of a
// 1,500-event calendar: more matches than Meilisearch's default maxTotalHits (1,000).
func TestTotalsAndPagesAreExactBeyondMaxTotalHits(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), func(raw *sql.DB) {
		store := gen.MySQL
		if _, err := gen.Generate(context.Background(), raw, store, gen.Options{Events: 1500, Seed: 3, Replace: true,
			Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec("UPDATE wp_posts SET post_title = CONCAT(post_title, ' Zeppelin') WHERE post_type = 'tribe_events'"); err != nil {
			t.Fatal(err)
		}
	})
	f := everything("Zeppelin", false)
	all, total := ids(t, c.sql, c.site, f)
	if total <= 1000 {
		t.Fatalf("only %d matches: the test needs more than 1000", total)
	}
	got, gotTotal := ids(t, c.meili, c.site, f)
	if gotTotal != total || !slices.Equal(got, all) {
		t.Fatalf("meili total %d (%d listed), sql total %d", gotTotal, len(got), total)
	}
	for _, page := range []struct{ offset, limit int }{{0, 50}, {990, 20}, {1000, 50}, {total - 7, 50}} {
		t.Run(fmt.Sprintf("the page at %d holds the sql page", page.offset), func(t *testing.T) {
			g := f
			g.Offset, g.Limit = page.offset, page.limit
			want, wt := ids(t, c.sql, c.site, g)
			have, ht := ids(t, c.meili, c.site, g)
			if !slices.Equal(have, want) || ht != wt {
				t.Fatalf("meili %v (total %d), sql %v (total %d)", have, ht, want, wt)
			}
		})
	}
}

// indexed reports whether Meilisearch itself lists id for the query.
func (c *calendar) indexed(t *testing.T, kind, q string, id int64) bool {
	t.Helper()
	found, err := c.ix.IDs(context.Background(), kind, q, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(found, id)
}

func (c *calendar) eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	// Generous: the machine running the tests may be loaded; a change that is never applied
	// still fails.
	deadline := time.Now().Add(45 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 45 s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func TestCalendardWritesReachTheIndexRightAfterCommit(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	ctx := context.Background()
	rename := func(id int64, title string) {
		err := c.db.Write(ctx, nil, func(tx calendard.WriteTx) error {
			p, err := tx.LockPost(ctx, id)
			if err != nil {
				return err
			}
			p.Title = title
			p.ModifiedGMT = time.Now().UTC().Format(time.DateTime)
			return tx.UpdatePost(ctx, p)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	rename(40, "Quokka Parade")
	t.Run("a search right after the write sees it", func(t *testing.T) {
		got, _ := ids(t, c.meili, c.site, everything("Quokka", false))
		if !slices.Equal(got, []int64{40}) {
			t.Fatalf("search=Quokka right after the write: %v", got)
		}
	})
	t.Run("the index holds it soon after", func(t *testing.T) {
		c.eventually(t, "event 40 indexed as Quokka", func() bool { return c.indexed(t, KindEvents, "Quokka", 40) })
		c.waitUsable(t)
		got, _ := ids(t, c.meili, c.site, everything("Quokka", false))
		if !slices.Equal(got, []int64{40}) {
			t.Fatalf("search=Quokka from the index: %v", got)
		}
		if c.indexed(t, KindEvents, "Monthly Marathon", 40) {
			t.Fatal("the old title still matches")
		}
	})
	t.Run("a venue rename reaches the events at it", func(t *testing.T) {
		rename(12, "Platypus Hall")
		c.eventually(t, "events at venue 12 indexed with its new name", func() bool {
			found, err := c.ix.IDs(ctx, KindEvents, "Platypus", "", nil)
			return err == nil && len(found) > 0 && c.indexed(t, KindVenues, "Platypus", 12)
		})
	})
}

func TestDirectDatabaseChangesReachTheIndex(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	exec := func(q string, args ...any) {
		if _, err := c.raw.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("a title WordPress saves is indexed", func(t *testing.T) {
		exec("UPDATE wp_posts SET post_title = 'Wombat Gala', post_modified_gmt = UTC_TIMESTAMP() + INTERVAL 1 SECOND WHERE ID = 41")
		c.eventually(t, "event 41 indexed as Wombat", func() bool { return c.indexed(t, KindEvents, "Wombat", 41) })
	})
	t.Run("a deleted event leaves the index", func(t *testing.T) {
		if !c.indexed(t, KindEvents, "Hackathon", 44) {
			t.Fatal("event 44 is not indexed to begin with")
		}
		exec("DELETE FROM wp_postmeta WHERE post_id = 44")
		exec("DELETE FROM wp_posts WHERE ID = 44")
		c.eventually(t, "event 44 deleted from the index", func() bool { return !c.indexed(t, KindEvents, "Hackathon", 44) })
	})
	t.Run("a deleted organizer leaves the index", func(t *testing.T) {
		var id int64
		if err := c.raw.QueryRow("SELECT MIN(ID) FROM wp_posts WHERE post_type = 'tribe_organizer' AND post_status = 'publish'").Scan(&id); err != nil {
			t.Fatal(err)
		}
		var name string
		if err := c.raw.QueryRow("SELECT post_title FROM wp_posts WHERE ID = ?", id).Scan(&name); err != nil {
			t.Fatal(err)
		}
		linked, err := c.db.EventsLinkedTo(context.Background(), []int64{id})
		if err != nil || len(linked) == 0 {
			t.Fatalf("events of organizer %d: %v %v", id, linked, err)
		}
		shows := func() bool {
			var doc struct {
				Organizer []string `json:"organizer"`
			}
			err := c.ix.client.Index(c.ix.UID(KindEvents)).GetDocumentWithContext(context.Background(),
				strconv.FormatInt(linked[0], 10), &meilisearch.DocumentQuery{Fields: []string{"organizer"}}, &doc)
			if err != nil {
				t.Fatal(err)
			}
			return slices.Contains(doc.Organizer, text(name))
		}
		if !shows() {
			t.Fatalf("event %d's document does not show organizer %q to begin with", linked[0], name)
		}
		exec("DELETE FROM wp_posts WHERE ID = ?", id)
		c.eventually(t, "the organizer deleted from the index, and from its events' documents", func() bool {
			all, err := c.ix.documentIDs(context.Background(), c.ix.UID(KindOrganizers))
			return err == nil && !slices.Contains(all, id) && !shows()
		})
	})
}

// TestChangesTheWatermarkCannotSeeReachTheIndex makes direct database changes that move neither a
// count, a highest ID nor post_modified_gmt. Meta and post columns are found by the reconcile's
// fingerprint comparison (here every second; CALENDAR_RECONCILE_INTERVAL, 5 min by default), a term
// renamed directly by the watermark poll itself (its term-name checksum), with no reconcile at all.
func TestChangesTheWatermarkCannotSeeReachTheIndex(t *testing.T) {
	m := sharedMeili(t)
	ctx := context.Background()
	// Venue 12 (Lincoln Center Hall, New York) holds event 46, among others.
	hobart := func(c *calendar) bool {
		near, err := c.ix.IDs(ctx, KindVenues, "", geoRadiusFilter(-42.8821, 147.3272, 20), nil)
		evs, err2 := c.ix.IDs(ctx, KindEvents, "", geoRadiusFilter(-42.8821, 147.3272, 20), nil)
		return err == nil && err2 == nil && slices.Equal(near, []int64{12}) && slices.Contains(evs, 46)
	}
	for _, tc := range []struct {
		name      string
		reconcile time.Duration
		change    []string
		reached   func(t *testing.T, c *calendar) bool
	}{
		{"a venue moved by a bare meta UPDATE is found at its new place after a reconcile", time.Second,
			[]string{"UPDATE wp_postmeta SET meta_value = '-42.8821' WHERE post_id = 12 AND meta_key = '_VenueLat'",
				"UPDATE wp_postmeta SET meta_value = '147.3272' WHERE post_id = 12 AND meta_key = '_VenueLng'"},
			func(t *testing.T, c *calendar) bool { return hobart(c) }},
		{"a venue's city changed by a bare meta UPDATE finds its events after a reconcile", time.Second,
			[]string{"UPDATE wp_postmeta SET meta_value = 'Wollongong' WHERE post_id = 12 AND meta_key = '_VenueCity'"},
			func(t *testing.T, c *calendar) bool {
				return c.indexed(t, KindEvents, "Wollongong", 46) && c.indexed(t, KindVenues, "Wollongong", 12)
			}},
		{"a venue's coordinates deleted directly leave the geo answers after a reconcile", time.Second,
			[]string{"DELETE FROM wp_postmeta WHERE post_id = 12 AND meta_key IN ('_VenueLat', '_VenueLng')"},
			func(t *testing.T, c *calendar) bool {
				// The before-check saw both there.
				evs, err := c.ix.IDs(ctx, KindEvents, "", "_geoRadius(40.7725, -73.9835, 1000)", nil)
				vs, err2 := c.ix.IDs(ctx, KindVenues, "", "_geoRadius(40.7725, -73.9835, 1000)", nil)
				return err == nil && err2 == nil && !slices.Contains(evs, 46) && !slices.Contains(vs, 12)
			}},
		{"an event title changed without post_modified_gmt is found after a reconcile", time.Second,
			[]string{"UPDATE wp_posts SET post_title = 'Numbat Fair' WHERE ID = 41"},
			func(t *testing.T, c *calendar) bool { return c.indexed(t, KindEvents, "Numbat", 41) }},
		{"a term renamed directly is found by the next poll, with no reconcile", 0,
			[]string{"UPDATE wp_terms t JOIN wp_term_taxonomy tt ON tt.term_id = t.term_id JOIN wp_term_relationships tr ON tr.term_taxonomy_id = tt.term_taxonomy_id " +
				"SET t.name = 'Axolotl Works' WHERE tr.object_id = 46 AND tt.taxonomy = 'tribe_events_cat'"},
			func(t *testing.T, c *calendar) bool { return c.indexed(t, KindEvents, "Axolotl", 46) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCalendarReconciling(t, m, nil, tc.reconcile)
			if tc.reached(t, c) {
				t.Fatal("the index answers so before the change")
			}
			for _, q := range tc.change {
				res, err := c.raw.Exec(q)
				if err != nil {
					t.Fatal(err)
				}
				if n, _ := res.RowsAffected(); n == 0 {
					t.Fatalf("%s changed nothing", q)
				}
			}
			c.eventually(t, "the index answers after the change", func() bool { return tc.reached(t, c) })
		})
	}
}

// TestARestartReindexesOnlyWhatChangedMeanwhile starts a second index over the same Meilisearch
// indexes (a calendard restart) after direct changes the watermark cannot see: its first sync
// compares the prints the documents carry with the database's and writes only the changed posts.
func TestARestartReindexesOnlyWhatChangedMeanwhile(t *testing.T) {
	m := sharedMeili(t)
	c := newCalendar(t, m, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if c.ix.written.Load() < 150 {
		t.Fatalf("the first index wrote %d documents, want every event, venue and organizer", c.ix.written.Load())
	}
	linked, err := c.db.EventsLinkedTo(ctx, []int64{12})
	if err != nil || len(linked) == 0 {
		t.Fatalf("events at venue 12: %v %v", linked, err)
	}
	for _, q := range []string{
		"UPDATE wp_postmeta SET meta_value = 'Wollongong' WHERE post_id = 12 AND meta_key = '_VenueCity'",
		"UPDATE wp_posts SET post_title = 'Numbat Fair' WHERE ID = 41",
	} {
		if _, err := c.raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	again := New(Config{URL: m.URL, Key: m.Key, Prefix: prefixOf(t), RetryMax: 200 * time.Millisecond}, c.db)
	again.Start(ctx)
	deadline := time.Now().Add(60 * time.Second)
	for !again.Usable() {
		if time.Now().After(deadline) {
			t.Fatal("the restarted index did not become usable")
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := int64(1 + 1 + len(linked)) // venue 12, event 41, the events at venue 12
	if slices.Contains(linked, 41) {
		want--
	}
	if got := again.written.Load(); got != want {
		t.Errorf("the restart wrote %d documents, want %d (venue 12, event 41 and the %d events at the venue)", got, want, len(linked))
	}
	for _, tc := range []struct {
		kind, q string
		id      int64
	}{{KindEvents, "Wollongong", linked[0]}, {KindVenues, "Wollongong", 12}, {KindEvents, "Numbat", 41}} {
		if !c.indexed(t, tc.kind, tc.q, tc.id) {
			t.Errorf("%s %d not found by %q after the restart", tc.kind, tc.id, tc.q)
		}
	}
}

// TestDocumentsTheIndexLostAreRewrittenAtTheReconcile deletes a document in Meilisearch behind
// calendard's back: a watermark move does not list the index (deletions are found in memory), the
// reconcile does, and writes it again.
func TestDocumentsTheIndexLostAreRewrittenAtTheReconcile(t *testing.T) {
	c := newCalendarReconciling(t, sharedMeili(t), nil, time.Second)
	ctx := context.Background()
	if err := c.ix.waitTask(ctx, func() (*TaskInfo, error) {
		return c.ix.client.Index(c.ix.UID(KindEvents)).DeleteDocumentWithContext(ctx, "41", nil)
	}); err != nil {
		t.Fatal(err)
	}
	c.eventually(t, "event 41 written again", func() bool {
		ids, err := c.ix.documentIDs(ctx, c.ix.UID(KindEvents))
		return err == nil && slices.Contains(ids, 41)
	})
}

// TestReindexSwapsWithoutAnEmptyWindow rebuilds while readers search the live index: every read
// sees the whole answer, before and after the swap.
func TestReindexSwapsWithoutAnEmptyWindow(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	ctx := context.Background()
	want, err := c.ix.IDs(ctx, KindEvents, "Marathon", "", nil)
	if err != nil || len(want) == 0 {
		t.Fatalf("before: %v %v", want, err)
	}
	slices.Sort(want)
	var stop atomic.Bool
	var reads, bad atomic.Int64
	var firstBad atomic.Value
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				got, err := c.ix.IDs(ctx, KindEvents, "Marathon", "", nil)
				slices.Sort(got)
				reads.Add(1)
				if err != nil || !slices.Equal(got, want) {
					bad.Add(1)
					firstBad.CompareAndSwap(nil, fmt.Sprintf("%v %v", got, err))
				}
			}
		}()
	}
	var progress []int
	err = c.ix.Rebuild(ctx, func(done, total int) { progress = append(progress, done) })
	time.Sleep(100 * time.Millisecond) // reads after the swap
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if bad.Load() > 0 {
		t.Fatalf("%d of %d reads during the rebuild differed, first: %v", bad.Load(), reads.Load(), firstBad.Load())
	}
	if reads.Load() < 10 || len(progress) == 0 {
		t.Fatalf("%d reads, progress %v: the test saw too little", reads.Load(), progress)
	}
	// The old indexes are gone; only the live ones remain.
	if _, err := c.ix.client.GetIndexWithContext(ctx, c.ix.cfg.Prefix+"_next_"+KindEvents); err == nil {
		t.Fatal("the previous index was left behind")
	}
	t.Logf("%d reads during the rebuild, all whole", reads.Load())
}

func TestGeoRadiusFromTheIndexEqualsTheSQLFallback(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	ctx := context.Background()
	viaIndex := &Geo{DB: c.db, Index: c.ix}
	viaSQL := &Geo{DB: c.db}
	// Venue 20 is in Paris (48.8776, 2.3019), 11 in Madrid (40.4222, -3.7087): 1,054 km apart.
	paris2madrid := wpdb.HaversineKM(48.8776, 2.3019, 40.4222, -3.7087)
	if paris2madrid < 1040 || paris2madrid > 1070 {
		t.Fatalf("Paris–Madrid computed as %.1f km", paris2madrid)
	}
	for _, tc := range []struct {
		name        string
		lat, lng, r float64
		in, out     []int64
	}{
		{"Paris 10 km holds only the Paris venue", 48.8566, 2.3522, 10, []int64{20}, []int64{11, 16, 19}},
		{"Paris 1000 km holds Berlin and Milan but not Madrid", 48.8776, 2.3019, 1000, []int64{20, 16, 19}, []int64{11, 12}},
		{"Paris 1100 km holds Madrid", 48.8776, 2.3019, 1100, []int64{20, 11}, []int64{12}},
		{"New York 1200 km holds Chicago and Toronto", 40.7128, -74.0060, 1200, []int64{12, 10, 18}, []int64{20}},
		{"Adelaide 50 km", -34.93, 138.6, 50, []int64{14}, []int64{17}},
		{"across the antimeridian", 0, 179.9, 500, nil, []int64{14}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := viaIndex.VenuesNear(ctx, tc.lat, tc.lng, tc.r)
			if err != nil {
				t.Fatal(err)
			}
			b, err := viaSQL.VenuesNear(ctx, tc.lat, tc.lng, tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a, b) {
				t.Fatalf("index %v, sql %v", a, b)
			}
			for _, id := range tc.in {
				if !slices.Contains(a, id) {
					t.Fatalf("venue %d missing from %v", id, a)
				}
			}
			for _, id := range tc.out {
				if slices.Contains(a, id) {
					t.Fatalf("venue %d in %v", id, a)
				}
			}
		})
	}
}

// TestMeilisearchStoppedFallsBackToSQLAndRecovers kills Meilisearch mid-run: searches answer the
// substring match's exact answers, writes go on, and when Meilisearch is back the index catches up
// by itself.
func TestMeilisearchStoppedFallsBackToSQLAndRecovers(t *testing.T) {
	testenv.SkipIfShort(t, "Meilisearch")
	dir := t.TempDir()
	m, err := testenv.StartMeilisearch(dir)
	if err != nil {
		t.Fatalf("starting Meilisearch: %v", err)
	}
	t.Cleanup(m.Stop)
	c := newCalendar(t, m, nil)
	ctx := context.Background()
	m.Kill()
	for _, q := range []string{"Marathon", "Concert", "Fair"} {
		t.Run(q+" while Meilisearch is down answers as sql", func(t *testing.T) {
			f := everything(q, true)
			want, wt := ids(t, c.sql, c.site, f)
			got, gt := ids(t, c.meili, c.site, f)
			if !slices.Equal(got, want) || gt != wt {
				t.Fatalf("meili mode %v (%d), sql %v (%d)", got, gt, want, wt)
			}
		})
	}
	if c.ix.Usable() {
		t.Fatal("the index still counts as usable with Meilisearch killed")
	}
	err = c.db.Write(ctx, nil, func(tx calendard.WriteTx) error {
		p, err := tx.LockPost(ctx, 47)
		if err != nil {
			return err
		}
		p.Title = "Narwhal Fair"
		p.ModifiedGMT = time.Now().UTC().Format(time.DateTime)
		return tx.UpdatePost(ctx, p)
	})
	if err != nil {
		t.Fatalf("a write while Meilisearch is down failed: %v", err)
	}
	if got, _ := ids(t, c.meili, c.site, everything("Narwhal", false)); !slices.Equal(got, []int64{47}) {
		t.Fatalf("search=Narwhal while down: %v", got)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	c.eventually(t, "the index usable again", c.ix.Usable)
	if !c.indexed(t, KindEvents, "Narwhal", 47) {
		t.Fatal("the write made during the outage did not reach the index")
	}
	got, _ := ids(t, c.meili, c.site, everything("Narwhl", false))
	if !slices.Equal(got, []int64{47}) {
		t.Fatalf("a typo search after recovery: %v (the index answers again)", got)
	}
}

func TestRelevanceOrderRanksTheSameEventsBestFirst(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	ev := c.meili.(*Events)
	f := everything("Monthly Marathon", false)
	byStart, total := ids(t, c.sql, c.site, f)
	evs, rtotal, err := ev.FindEventsByRelevance(context.Background(), c.site, f)
	if err != nil {
		t.Fatal(err)
	}
	var ranked []int64
	for _, e := range evs {
		ranked = append(ranked, e.ID)
	}
	t.Run("the same events and total", func(t *testing.T) {
		a, b := slices.Clone(ranked), slices.Clone(byStart)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) || rtotal != total {
			t.Fatalf("relevance %v (%d), start order %v (%d)", ranked, rtotal, byStart, total)
		}
	})
	t.Run("titles holding both words come first", func(t *testing.T) {
		both := 0
		for _, e := range evs {
			if strings.Contains(e.Title, "Monthly Marathon") {
				both++
			}
		}
		if both == 0 {
			t.Fatal("no Monthly Marathon in the fixture")
		}
		for i, e := range evs[:both] {
			if !strings.Contains(e.Title, "Monthly Marathon") {
				t.Fatalf("rank %d is %q", i, e.Title)
			}
		}
	})
	t.Run("pages concatenate to the whole ranking", func(t *testing.T) {
		var paged []int64
		for off := 0; off < total; off += 2 {
			g := f
			g.Offset, g.Limit = off, 2
			page, _, err := ev.FindEventsByRelevance(context.Background(), c.site, g)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page {
				paged = append(paged, e.ID)
			}
		}
		if !slices.Equal(paged, ranked) {
			t.Fatalf("pages %v, whole %v", paged, ranked)
		}
	})
}

// TestRelevanceOrderPutsSubstringOnlyMatchesLast: orderby=relevance lists Meilisearch's matches
// best first, then the events only the substring match finds ("Night" inside "Midnight", which
// Meilisearch does not rank) in the plugin's order; the same events and total as the default order.
func TestRelevanceOrderPutsSubstringOnlyMatchesLast(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	c.waitSubstringIndex(t)
	ctx := context.Background()
	f := everything("Night", false)
	evs, total, err := c.meili.(*Events).FindEventsByRelevance(ctx, c.site, f)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, e := range evs {
		got = append(got, e.ID)
	}
	byStart, startTotal := ids(t, c.meili, c.site, f)
	ranked, err := c.ix.IDs(ctx, KindEvents, "Night", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var wantRanked, wantRest []int64
	for _, id := range ranked {
		if slices.Contains(byStart, id) {
			wantRanked = append(wantRanked, id)
		}
	}
	for _, id := range byStart {
		if !slices.Contains(ranked, id) {
			wantRest = append(wantRest, id)
		}
	}
	if len(wantRanked) == 0 || len(wantRest) == 0 {
		t.Fatalf("%d ranked and %d substring-only matches: the test needs both", len(wantRanked), len(wantRest))
	}
	if want := append(wantRanked, wantRest...); !slices.Equal(got, want) || total != startTotal {
		t.Fatalf("relevance %v (total %d), want ranked %v then %v (total %d)", got, total, wantRanked, wantRest, startTotal)
	}
}

func TestVenueAndOrganizerSearchGoesThroughTheIndex(t *testing.T) {
	c := newCalendar(t, sharedMeili(t), nil)
	ctx := context.Background()
	linked := &Linked{LinkedService: c.db, Index: c.ix}
	for _, tc := range []struct {
		name, postType, query string
		want                  int64
	}{
		{"a venue by a misspelt name", calendard.PostTypeVenue, "Kulturbraurei", 16},
		{"a venue by its city", calendard.PostTypeVenue, "Dublin", 13},
		{"a venue by a name prefix", calendard.PostTypeVenue, "Harbourf", 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := linked.SearchLinked(ctx, tc.postType, tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(got, tc.want) {
				t.Fatalf("search=%s: %v, want %d among them", tc.query, got, tc.want)
			}
		})
	}
	t.Run("every find_like match of a whole word is found", func(t *testing.T) {
		checked := 0
		defer func() {
			if checked < 4 {
				t.Errorf("only %d find_like matches checked", checked)
			}
		}()
		for _, q := range []string{"Hall", "Studio", "Saal", "Club"} {
			for _, pt := range []string{calendard.PostTypeVenue, calendard.PostTypeOrganizer} {
				want, err := c.db.SearchLinked(ctx, pt, q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := linked.SearchLinked(ctx, pt, q)
				if err != nil {
					t.Fatal(err)
				}
				if m := missingFrom(got, want); len(m) > 0 {
					t.Fatalf("%s search=%s misses %v (find_like %v, index %v)", pt, q, m, want, got)
				}
				checked += len(want)
			}
		}
	})
	t.Run("every find_like match inside a longer word is found too", func(t *testing.T) {
		// Meilisearch matches words and prefixes; the plugin matches substrings ("ub" in "Club").
		checked := 0
		for _, q := range []string{"Vía", "ub", "arbour"} {
			want, err := c.db.SearchLinked(ctx, calendard.PostTypeVenue, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := linked.SearchLinked(ctx, calendard.PostTypeVenue, q)
			if err != nil {
				t.Fatal(err)
			}
			if m := missingFrom(got, want); len(m) > 0 {
				t.Fatalf("search=%s misses %v (find_like %v, answer %v)", q, m, want, got)
			}
			checked += len(want)
		}
		if checked < 3 {
			t.Errorf("only %d find_like matches checked", checked)
		}
	})
	t.Run("a trashed venue is never found", func(t *testing.T) {
		got, err := linked.SearchLinked(ctx, calendard.PostTypeVenue, "Trashed")
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(got, 32) {
			t.Fatalf("found the trashed venue: %v", got)
		}
	})
}
