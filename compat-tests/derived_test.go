package compattests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/calendard/calendard/internal/testenv"
)

// Derived sets: ground truth made from site-a without a recording.
//
// Legacy storage: the same site with the plugin's custom tables switched off the way the plugin
// itself decides it (TEC\Events\Custom_Tables\V1\Provider::is_active() reads the option
// tec_custom_tables_v1_active; false means nothing of CT1 registers) and the tables emptied, so the
// events live in postmeta only. The plugin then lists events through Tribe__Events__Repositories__Event
// without the CT1 repository and WP_Query filters: meta queries on _EventStartDate/_EventEndDate and
// ORDER BY the start meta. Every read case must answer as recorded, except those in
// legacyDifferences, where the plugin's legacy code path itself answers otherwise.
//
// Moved site: the same fixture with the site's time zone changed (timezone_string, or gmt_offset for
// an offset site). Stored events do not move, so what the zone cannot change must not change.

// legacyStatements switch the custom tables off and empty them (%s: the quoted database name).
var legacyStatements = []string{
	"DELETE FROM %s.wp_options WHERE option_name = 'tec_custom_tables_v1_active'",
	// update_option('tec_custom_tables_v1_active', false) stores the empty string.
	"INSERT INTO %s.wp_options (option_name, option_value, autoload) VALUES ('tec_custom_tables_v1_active', '', 'auto')",
	"DELETE FROM %s.wp_tec_occurrences",
	"DELETE FROM %s.wp_tec_events",
}

// legacyDifferences are the read cases whose answer on the legacy site is not the recorded one
// because the plugin's legacy path answers differently, each with the reason. A listed case must
// differ (the list is checked both ways). Only the tag lists differ: otherwise every event has exactly one
// regular _EventStartDate/_EventEndDate row equal to its occurrence, and distinct start/post_date
// pairs. The legacy path would differ from calendard only on data site-a lacks, where calendard keeps
// the custom tables' rules: Tribe__Events__Repositories__Event's meta queries
// compare CAST(meta_value AS DATETIME) with one join per bound (WP_Meta_Query), order_by_date sorts
// by CAST(start meta) then post_date only, and include= with only starts_*/ends_* bounds has no date
// join at all.
var legacyDifferences = map[string]string{
	// WP_Query sets tag_id to the first of several tags; the custom tables' query, built again from
	// the query vars, ANDs it in, so the recording lists the first tag's events only. The legacy
	// path is the one WP_Query, whose tag__in matches any of them (handlers'
	// TestTagListFilterOnPostmetaMatchesAnyTag holds the answer).
	"events/list/tags/csv":   "several tags match any of them without the custom tables",
	"events/list/tags/array": "several tags match any of them without the custom tables",
}

var (
	derivedBaseOnce sync.Once
	derivedBaseErr  error
)

// deriveFixture creates database name from the set's fixture with stmts applied: a clone of the
// fixture loaded once per test binary.
func deriveFixture(ctx context.Context, db *testenv.MariaDB, set *Set, name string, stmts []string) error {
	derivedBaseOnce.Do(func() {
		if derivedBaseErr = db.CreateDatabase(ctx, "compat_derived_base"); derivedBaseErr == nil {
			derivedBaseErr = db.LoadSQL(ctx, "compat_derived_base", set.Fixture)
		}
	})
	if derivedBaseErr != nil {
		return derivedBaseErr
	}
	if err := db.CloneDatabase(ctx, "compat_derived_base", name); err != nil {
		return err
	}
	q := make([]string, len(stmts))
	for i, st := range stmts {
		q[i] = strings.ReplaceAll(st, "%s", "`"+name+"`")
	}
	return db.Exec(ctx, q...)
}

// derivedStores opens both stores over a derived fixture database.
func derivedStores(ctx context.Context, db *testenv.MariaDB, bin, fixture string) []struct {
	name string
	open func(t *testing.T) (Store, error)
} {
	return []struct {
		name string
		open func(t *testing.T) (Store, error)
	}{
		{"mysql", func(t *testing.T) (Store, error) { return NewMySQLStore(ctx, db, fixture, fixture+"_run") }},
		{"sqlite", func(t *testing.T) (Store, error) { return NewSQLiteStore(ctx, bin, db, fixture, t.TempDir()) }},
	}
}

var (
	derivedBinOnce sync.Once
	derivedBin     string
	derivedBinErr  error
)

// loadSiteA loads the set, the shared server and a calendard binary built once for the derived
// tests (in the server's directory, which goes away with it).
func loadSiteA(t *testing.T) (*Set, *testenv.MariaDB, string) {
	t.Helper()
	testenv.SkipIfShort(t, "the compatibility suite: calendard built and replayed against MariaDB")
	set, err := LoadSet(filepath.Join("testdata", "site-a"))
	if err != nil {
		t.Fatal(err)
	}
	db := localServer(t)
	derivedBinOnce.Do(func() {
		dir := filepath.Join(db.Dir, "derived-bin")
		if derivedBinErr = os.MkdirAll(dir, 0o755); derivedBinErr == nil {
			derivedBin, derivedBinErr = BuildBinary(dir)
		}
	})
	if derivedBinErr != nil {
		t.Fatal(derivedBinErr)
	}
	return set, db, derivedBin
}

// TestCompatLegacyStorage replays every read case of site-a against its legacy-storage twin on
// both stores.
func TestCompatLegacyStorage(t *testing.T) {
	ctx := context.Background()
	set, db, bin := loadSiteA(t)
	if err := deriveFixture(ctx, db, set, "compat_legacy", legacyStatements); err != nil {
		t.Fatal(err)
	}
	filter := func(string) bool { return true }
	if expr := os.Getenv("COMPAT_RUN"); expr != "" {
		filter = regexp.MustCompile(expr).MatchString
	}
	for _, st := range derivedStores(ctx, db, bin, "compat_legacy") {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			store, err := st.open(t)
			if err != nil {
				t.Fatal(err)
			}
			r := &runner{t: t, ctx: ctx, set: set, bin: bin, store: store, spellings: []string{"tribe/events/v1"}}
			t.Cleanup(func() {
				r.stop()
				store.Close()
			})
			results := r.reads(filter)
			differ, same := 0, 0
			for _, res := range results {
				reason, listed := legacyDifferences[res.c.Name]
				switch {
				case listed && res.passed():
					t.Errorf("%s: listed as a legacy difference (%s) but answers as recorded", res.c.Name, reason)
				case listed:
					differ++
				case !res.passed():
					t.Error(describe(res))
				default:
					same++
				}
			}
			t.Logf("legacy storage (%s): %d read cases as recorded, %d named differences", st.name, same, differ)
		})
	}
}

// zoneMoves are the site time zones the moved-site replays use: statements on the options.
var zoneMoves = []struct {
	name  string
	stmts []string
}{
	{"UTC+5:30", []string{
		"UPDATE %s.wp_options SET option_value = '' WHERE option_name = 'timezone_string'",
		"UPDATE %s.wp_options SET option_value = '5.5' WHERE option_name = 'gmt_offset'",
	}},
	{"Pacific/Auckland", []string{
		"UPDATE %s.wp_options SET option_value = 'Pacific/Auckland' WHERE option_name = 'timezone_string'",
		"UPDATE %s.wp_options SET option_value = '13' WHERE option_name = 'gmt_offset'",
	}},
	{"America/Los_Angeles", []string{
		"UPDATE %s.wp_options SET option_value = 'America/Los_Angeles' WHERE option_name = 'timezone_string'",
		"UPDATE %s.wp_options SET option_value = '-8' WHERE option_name = 'gmt_offset'",
	}},
}

// eventFacts are the fields of an event record that come from its stored dates alone.
var eventFacts = []string{"start_date", "end_date", "utc_start_date", "utc_end_date", "timezone", "timezone_abbr", "all_day"}

// eventsIn returns every event record in an answer body (a list's events, or a single event).
func eventsIn(body any) []map[string]any {
	m, ok := body.(map[string]any)
	if !ok {
		return nil
	}
	if list, ok := m["events"].([]any); ok {
		var out []map[string]any
		for _, e := range list {
			if em, ok := e.(map[string]any); ok {
				out = append(out, em)
			}
		}
		return out
	}
	if _, ok := m["utc_start_date"]; ok {
		return []map[string]any{m}
	}
	return nil
}

func idOf(e map[string]any) string { return fmt.Sprint(e["id"]) }

// answerKind tells a list from a single record: the plugin shows some fields of the same event
// differently in the two (all_day is null in lists where the single says false).
func answerKind(body any) string {
	if m, ok := body.(map[string]any); ok && m["events"] != nil {
		return "list:"
	}
	return "single:"
}

var absoluteDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

// zoneFreeWindow reports whether a list case's window is stated in absolute local dates that the
// plugin uses as given (start_date and end_date both absolute, inclusive days: tribe_beginning_of_day
// and tribe_end_of_day of the raw value, compared with the events' local start and end), or does
// not apply (include= drops the date filters). Such a list cannot change with the site's zone.
func zoneFreeWindow(c *Case) bool {
	q := map[string]string{}
	for _, kv := range c.Request.Query {
		q[kv[0]] = kv[1]
	}
	for _, k := range []string{"starts_before", "starts_after", "ends_before", "ends_after"} {
		if _, ok := q[k]; ok {
			return false
		}
	}
	if v, ok := q["strict_dates"]; ok && v != "false" && v != "0" && v != "" {
		return false
	}
	if _, ok := q["include"]; ok {
		return true
	}
	return absoluteDate.MatchString(q["start_date"]) && absoluteDate.MatchString(q["end_date"])
}

// TestCompatSiteZones replays site-a's read cases with the site moved to other time zones, on both
// stores, and checks what the zone cannot change: every event's stored dates as records show them
// (local, UTC, zone), lists in start order, page counts consistent with totals, and the events and
// totals of lists whose window the zone cannot move.
func TestCompatSiteZones(t *testing.T) {
	ctx := context.Background()
	set, db, bin := loadSiteA(t)

	// What site-a's recording says of each event.
	recorded := map[string]map[string]any{}
	for _, c := range set.Cases {
		if c.Group != "read" {
			continue
		}
		body, err := decode(c.Response.Body)
		if err != nil {
			continue
		}
		for _, e := range eventsIn(body) {
			recorded[answerKind(body)+idOf(e)] = e
		}
	}
	if len(recorded) < 20 {
		t.Fatalf("the recording shows only %d events", len(recorded))
	}
	// One clock for every case: the checks below do not depend on it.
	now := set.Cases[0].Now

	for i, z := range zoneMoves {
		fixture := fmt.Sprintf("compat_zone%d", i)
		if err := deriveFixture(ctx, db, set, fixture, z.stmts); err != nil {
			t.Fatal(err)
		}
		for _, st := range derivedStores(ctx, db, bin, fixture) {
			t.Run(z.name+"/"+st.name, func(t *testing.T) {
				store, err := st.open(t)
				if err != nil {
					t.Fatal(err)
				}
				r := &runner{t: t, ctx: ctx, set: set, bin: bin, store: store}
				t.Cleanup(func() {
					r.stop()
					store.Close()
				})
				r.ensure(now)
				checked, lists, windows := 0, 0, 0
				for _, c := range set.Cases {
					if c.Group != "read" || c.Request.Method != "GET" {
						continue
					}
					a, err := r.svc.Do(ctx, set, c, "tribe/events/v1")
					if err != nil {
						t.Errorf("%s: %v", c.Name, err)
						continue
					}
					if a.Status >= 500 {
						t.Errorf("%s: status %d", c.Name, a.Status)
					}
					for _, e := range eventsIn(a.Body) {
						want := recorded[answerKind(a.Body)+idOf(e)]
						if want == nil {
							continue
						}
						checked++
						for _, k := range eventFacts {
							if fmt.Sprint(e[k]) != fmt.Sprint(want[k]) {
								t.Errorf("%s: event %s %s = %v, recorded %v (the site's zone moved no event)", c.Name, idOf(e), k, e[k], want[k])
							}
						}
					}
					m, isList := a.Body.(map[string]any)
					if !isList || a.Status != 200 || m["events"] == nil {
						continue
					}
					lists++
					checkListShape(t, c, a, m)
					if zoneFreeWindow(c) {
						windows++
						checkSameList(t, c, a)
					}
				}
				if checked == 0 || lists == 0 || windows == 0 {
					t.Errorf("checked %d event records, %d lists, %d zone-free windows: the replay saw too little", checked, lists, windows)
				}
				t.Logf("%s (%s): %d event records, %d lists, %d zone-free windows checked", z.name, st.name, checked, lists, windows)
			})
		}
	}
}

// checkListShape checks a list answer's order and page arithmetic.
func checkListShape(t *testing.T, c *Case, a *Answer, m map[string]any) {
	t.Helper()
	events := eventsIn(m)
	include := false
	for _, kv := range c.Request.Query {
		include = include || kv[0] == "include"
	}
	if !include {
		// The plugin orders by the start (event_date: the local start in the event timezone mode).
		if !sort.SliceIsSorted(events, func(i, j int) bool {
			return fmt.Sprint(events[i]["start_date"]) < fmt.Sprint(events[j]["start_date"])
		}) {
			t.Errorf("%s: events not in start order", c.Name)
		}
	}
	total, err1 := strconv.Atoi(a.Headers.Get("X-TEC-Total"))
	pages, err2 := strconv.Atoi(a.Headers.Get("X-TEC-TotalPages"))
	if err1 != nil || err2 != nil {
		t.Errorf("%s: totals %q / %q", c.Name, a.Headers.Get("X-TEC-Total"), a.Headers.Get("X-TEC-TotalPages"))
		return
	}
	if len(events) > total || (total == 0) != (pages == 0) || (total > 0 && len(events) == 0) {
		t.Errorf("%s: %d events on the page, total %d, %d pages", c.Name, len(events), total, pages)
	}
	if pages > 1 && len(events) > 0 && (total+len(events)-1)/len(events) < pages && total%len(events) == 0 {
		t.Errorf("%s: %d pages for %d events by %d", c.Name, pages, total, len(events))
	}
	if fmt.Sprint(m["total"]) != strconv.Itoa(total) || fmt.Sprint(m["total_pages"]) != strconv.Itoa(pages) {
		t.Errorf("%s: body total %v/%v, headers %d/%d", c.Name, m["total"], m["total_pages"], total, pages)
	}
}

// checkSameList checks that a list whose window the zone cannot move has the recorded events and
// totals.
func checkSameList(t *testing.T, c *Case, a *Answer) {
	t.Helper()
	rec, err := decode(c.Response.Body)
	if err != nil {
		t.Errorf("%s: recorded body: %v", c.Name, err)
		return
	}
	ids := func(body any) []string {
		var out []string
		for _, e := range eventsIn(body) {
			out = append(out, idOf(e))
		}
		return out
	}
	want, got := ids(rec), ids(a.Body)
	if strings.Join(want, ",") != strings.Join(got, ",") || c.Response.Headers["X-TEC-Total"] != a.Headers.Get("X-TEC-Total") {
		t.Errorf("%s: events %v (total %s), recorded %v (total %s): the window does not depend on the site's zone",
			c.Name, got, a.Headers.Get("X-TEC-Total"), want, c.Response.Headers["X-TEC-Total"])
	}
}

// legacyWriteSequences picks the write sequences replayed on the legacy site: every create with a
// timezone, and the update sequence that patches, trashes and untrashes (the sequences restart the
// service per case, so the whole write group would take minutes).
var legacyWriteSequences = regexp.MustCompile(`^events/(create/timezone/|update/patch$)`)

// TestCompatLegacyWrites replays event write sequences on the legacy-storage twin: every answer and
// every row change must be the recorded one except the plugin's custom-table rows, which a site on
// postmeta never gets (any tec_* change is a failure).
func TestCompatLegacyWrites(t *testing.T) {
	ctx := context.Background()
	set, db, bin := loadSiteA(t)
	if err := deriveFixture(ctx, db, set, "compat_legacy_w", legacyStatements); err != nil {
		t.Fatal(err)
	}
	var sequences [][]*Case
	for _, c := range set.Cases {
		if c.Group != "write" {
			continue
		}
		if c.Reset || len(sequences) == 0 {
			sequences = append(sequences, nil)
		}
		sequences[len(sequences)-1] = append(sequences[len(sequences)-1], c)
	}
	for _, st := range derivedStores(ctx, db, bin, "compat_legacy_w") {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			store, err := st.open(t)
			if err != nil {
				t.Fatal(err)
			}
			r := &runner{t: t, ctx: ctx, set: set, bin: bin, store: store}
			t.Cleanup(func() {
				r.stop()
				store.Close()
			})
			prefix := set.Meta.TablePrefix
			replayed, recordedTEC := 0, 0
			for _, seq := range sequences {
				if !legacyWriteSequences.MatchString(seq[0].Name) {
					continue
				}
				r.stop()
				if err := store.Reset(ctx); err != nil {
					t.Fatal(err)
				}
				for _, c := range seq {
					r.ensure(c.Now)
					before, err := store.Snapshot(ctx, prefix)
					if err != nil {
						t.Fatal(err)
					}
					a, err := r.svc.Do(ctx, set, c, "tribe/events/v1")
					if err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
					after, err := store.Snapshot(ctx, prefix)
					if err != nil {
						t.Fatal(err)
					}
					want, err := recordedChanges(c.DBChanges, prefix)
					if err != nil {
						t.Fatal(err)
					}
					for _, table := range []string{"tec_events", "tec_occurrences"} {
						recordedTEC += len(want[table])
						delete(want, table)
					}
					diffs, err := checkAnswer(set, c, "tribe/events/v1", r.svc, a, &compareOpts{changedIDs: changedPostIDs(want)})
					if err != nil {
						t.Fatal(err)
					}
					diffs = append(diffs, compareChanges(want, DiffSnapshots(before, after))...)
					if res := (result{c: c, ns: "tribe/events/v1", diffs: diffs}); !res.passed() {
						t.Error(describe(res))
					}
					replayed++
				}
			}
			// The recording's own custom-table rows show the sequences exercise what is left out.
			if replayed < 20 || recordedTEC == 0 {
				t.Errorf("replayed %d write cases whose recording has %d custom-table changes", replayed, recordedTEC)
			}
			t.Logf("legacy writes (%s): %d cases as recorded without the %d custom-table changes of the recording", st.name, replayed, recordedTEC)
		})
	}
}
