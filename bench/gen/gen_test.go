package gen_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/bench/gen"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var fixture = filepath.Join("..", "..", "compat-tests", "testdata", "site-a", "fixture.sql")

var anchor = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

const events = 200

// generated is one store's calendar.
type generated struct {
	spec string
	db   *sql.DB
	res  *gen.Result
}

// generate writes the calendar; the database stays open until the end of outer.
func generate(t, outer *testing.T, spec string) *generated {
	t.Helper()
	db, store, err := gen.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	outer.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err := gen.Generate(ctx, db, store, gen.Options{Events: events, Seed: 7, Now: anchor}); err != gen.ErrNotEmpty {
		t.Fatalf("generating over the fixture's events without Replace: got %v, want ErrNotEmpty", err)
	}
	res, err := gen.Generate(ctx, db, store, gen.Options{Events: events, Seed: 7, Now: anchor, Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	return &generated{spec: spec, db: db, res: res}
}

// TestGenerate writes a 200-event calendar over the site-a fixture on MariaDB and on SQLite (a
// `calendard copy` of the fixture), checks each through calendard's own store and with SQL, and
// checks both stores hold the same rows. The rows go in batches of 50 items, so that both stores'
// writers take several batches per table.
func TestGenerate(t *testing.T) {
	defer gen.SetBatchItems(50)()
	ctx := context.Background()
	dsn := testenv.FixtureDB(t, fixture, "gen_mysql")
	srcDSN := testenv.FixtureDB(t, fixture, "gen_sqlite_base")
	sqlitePath := filepath.Join(t.TempDir(), "wp.db")
	if err := gen.CopyBase(ctx, "mysql://"+srcDSN, "sqlite://"+sqlitePath, "wp_"); err != nil {
		t.Fatal(err)
	}
	stores := map[string]*generated{}
	outer := t
	for _, s := range []struct{ name, spec string }{{"mysql", "mysql://" + dsn}, {"sqlite", "sqlite://" + sqlitePath}} {
		t.Run(s.name, func(t *testing.T) {
			g := generate(t, outer, s.spec)
			stores[s.name] = g
			checkShape(t, g)
			checkSQL(t, g)
			checkStore(t, g)
		})
	}
	if len(stores) == 2 {
		t.Run("same rows", func(t *testing.T) { sameRows(t, stores["mysql"], stores["sqlite"]) })
	}
}

// checkShape checks the mix of the generated calendar.
func checkShape(t *testing.T, g *generated) {
	r := g.res
	if r.Events != events || len(r.EventList) != events {
		t.Fatalf("%d events, want %d", r.Events, events)
	}
	count := map[string]int{}
	zones := map[string]bool{}
	withVenue := 0
	for _, ev := range r.EventList {
		count[ev.Status]++
		zones[ev.Zone] = true
		if ev.Venue != 0 {
			withVenue++
		}
		if ev.AllDay {
			count["allday"]++
		}
		if ev.MultiDay {
			count["multiday"]++
		}
		if len(ev.Categories) < 1 || len(ev.Categories) > 2 || len(ev.Tags) > 2 || len(ev.Organizers) > 3 {
			t.Errorf("event %d: %d categories, %d tags, %d organizers", ev.ID, len(ev.Categories), len(ev.Tags), len(ev.Organizers))
		}
		if ev.End < ev.Start || ev.EndUTC < ev.StartUTC {
			t.Errorf("event %d ends before it starts: %s %s", ev.ID, ev.Start, ev.End)
		}
	}
	for _, k := range []string{"publish", "draft", "pending", "private", "trash", "allday", "multiday"} {
		if count[k] == 0 {
			t.Errorf("no %s events among %d: %v", k, events, count)
		}
	}
	if len(zones) < 8 {
		t.Errorf("events in %d time zones, want 9", len(zones))
	}
	if f := float64(withVenue) / events; f < 0.75 || f > 0.95 {
		t.Errorf("%.0f%% of the events have a venue, want about 85%%", f*100)
	}
	for _, k := range []string{"event_id", "event_slug", "venue_id", "organizer_id", "category_slug", "tag_slug", "search", "month_start", "week_end"} {
		if r.Picks[k] == "" || r.Picks[k] == "0" {
			t.Errorf("pick %s is empty", k)
		}
	}
}

func queryInt(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// checkSQL checks the rows as WordPress and the plugin keep them.
func checkSQL(t *testing.T, g *generated) {
	db := g.db
	if n := queryInt(t, db, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_events'"); n != events {
		t.Errorf("%d event posts, want %d", n, events)
	}
	// Every event has its tec_events row and exactly one occurrence, agreeing with its meta.
	if n := queryInt(t, db, `SELECT COUNT(*) FROM wp_posts p WHERE p.post_type = 'tribe_events' AND (
		(SELECT COUNT(*) FROM wp_tec_events e WHERE e.post_id = p.ID) != 1 OR
		(SELECT COUNT(*) FROM wp_tec_occurrences o WHERE o.post_id = p.ID) != 1)`); n != 0 {
		t.Errorf("%d events without exactly one tec_events and one tec_occurrences row", n)
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM wp_tec_occurrences o JOIN wp_tec_events e ON e.event_id = o.event_id
		JOIN wp_postmeta s ON s.post_id = o.post_id AND s.meta_key = '_EventStartDateUTC'
		JOIN wp_postmeta l ON l.post_id = o.post_id AND l.meta_key = '_EventEndDate'
		WHERE e.post_id != o.post_id OR s.meta_value != o.start_date_utc OR l.meta_value != o.end_date OR e.start_date_utc != s.meta_value`); n != 0 {
		t.Errorf("%d occurrences disagree with their event row or meta", n)
	}
	rows, err := db.Query("SELECT post_id, start_date, start_date_utc, end_date, end_date_utc, duration, hash FROM wp_tec_occurrences")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var o calendard.OccurrenceRow
		if err := rows.Scan(&o.PostID, &o.StartDate, &o.StartDateUTC, &o.EndDate, &o.EndDateUTC, &o.Duration, &o.Hash); err != nil {
			t.Fatal(err)
		}
		if h := calendard.OccurrenceHash(&o); h != o.Hash {
			t.Errorf("occurrence of %d: hash %s, the plugin's is %s", o.PostID, o.Hash, h)
		}
	}
	rows.Close()
	// Term counts are the published events (and posts) related to the term.
	if n := queryInt(t, db, `SELECT COUNT(*) FROM wp_term_taxonomy tt WHERE tt.taxonomy IN ('tribe_events_cat', 'post_tag') AND tt.count !=
		(SELECT COUNT(*) FROM wp_term_relationships tr JOIN wp_posts p ON p.ID = tr.object_id
		 WHERE tr.term_taxonomy_id = tt.term_taxonomy_id AND p.post_status = 'publish')`); n != 0 {
		t.Errorf("%d terms whose count is not their published relationships", n)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM wp_term_taxonomy WHERE taxonomy = 'tribe_events_cat' AND parent != 0"); n == 0 {
		t.Error("no child categories")
	}
	// Every event's required meta, once; all-day events have no duration.
	for _, key := range []string{"_EventStartDate", "_EventEndDate", "_EventStartDateUTC", "_EventEndDateUTC", "_EventTimezone",
		"_EventTimezoneAbbr", "_EventOrigin", "_EventShowMap", "_EventShowMapLink", "_tribe_modified_fields"} {
		if n := queryInt(t, db, "SELECT COUNT(*) FROM wp_posts p WHERE p.post_type = 'tribe_events' AND (SELECT COUNT(*) FROM wp_postmeta m WHERE m.post_id = p.ID AND m.meta_key = ?) != 1", key); n != 0 {
			t.Errorf("%d events without exactly one %s", n, key)
		}
	}
	if n := queryInt(t, db, `SELECT COUNT(*) FROM wp_postmeta a JOIN wp_postmeta d ON d.post_id = a.post_id AND d.meta_key = '_EventDuration'
		WHERE a.meta_key = '_EventAllDay'`); n != 0 {
		t.Errorf("%d all-day events with a _EventDuration", n)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_events' AND post_status IN ('draft', 'pending') AND (post_name != '' OR post_date_gmt != '0000-00-00 00:00:00')"); n != 0 {
		t.Errorf("%d drafts with a slug or a GMT date", n)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM wp_posts p WHERE p.post_status = 'trash' AND p.post_type = 'tribe_events' AND (p.post_name NOT LIKE '%\\_\\_trashed' OR NOT EXISTS (SELECT 1 FROM wp_postmeta m WHERE m.post_id = p.ID AND m.meta_key = '_wp_trash_meta_status'))"); n != 0 {
		t.Errorf("%d trashed events not stored as wp_trash_post does", n)
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM wp_posts r JOIN wp_posts p ON p.ID = r.post_parent WHERE r.post_type = 'revision' AND p.post_type = 'tribe_events'"); n == 0 {
		t.Error("no event revisions")
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_events' AND menu_order = -1"); n == 0 {
		t.Error("no sticky events")
	}
	var opt string
	if err := db.QueryRow("SELECT option_value FROM wp_options WHERE option_name = 'tribe_events_calendar_options'").Scan(&opt); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(opt, `s:13:"earliest_date";s:19:"`+g.earliest()) {
		t.Errorf("tribe_events_calendar_options has no earliest_date %s: %s", g.earliest(), opt)
	}
}

func (g *generated) earliest() string {
	e := ""
	for _, ev := range g.res.EventList {
		if (ev.Status == "publish" || ev.Status == "private") && (e == "" || ev.Start < e) {
			e = ev.Start
		}
	}
	return e
}

// checkStore reads the calendar through calendard's store: totals of filtered lists and one page of
// events with everything they embed.
func checkStore(t *testing.T, g *generated) {
	ctx := context.Background()
	w, err := wpdb.Open(g.spec, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	st := service.Start(context.Background(), w, wpdb.SiteOverrides{}, service.Cold)
	site, err := st.Site(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !site.UseCustomTables {
		t.Fatal("the site does not use the plugin's custom tables")
	}
	byID := map[int64]*gen.Event{}
	for _, ev := range g.res.EventList {
		byID[ev.ID] = ev
	}
	listed := func(ev *gen.Event) bool { return ev.Status == "publish" && !ev.Hidden }
	expect := func(match func(*gen.Event) bool) int {
		n := 0
		for _, ev := range g.res.EventList {
			if listed(ev) && match(ev) {
				n++
			}
		}
		return n
	}
	pub := []string{"publish"}
	venue, _ := strconv.ParseInt(g.res.Picks["venue_id"], 10, 64)
	org, _ := strconv.ParseInt(g.res.Picks["organizer_id"], 10, 64)
	first := g.res.EventList[0]
	cat, tag := first.Categories[0], int64(0)
	for _, ev := range g.res.EventList {
		if len(ev.Tags) > 0 {
			tag = ev.Tags[0]
			break
		}
	}
	from, to := "2026-12-01 00:00:00", "2027-03-31 23:59:59"
	yes := true
	for _, c := range []struct {
		name  string
		f     calendard.EventFilter
		match func(*gen.Event) bool
	}{
		{"all published", calendard.EventFilter{Statuses: pub}, func(*gen.Event) bool { return true }},
		{"venue", calendard.EventFilter{Statuses: pub, VenueIDs: []int64{venue}}, func(ev *gen.Event) bool { return ev.Venue == venue }},
		{"organizer", calendard.EventFilter{Statuses: pub, OrganizerIDs: []int64{org}}, func(ev *gen.Event) bool { return containsID(ev.Organizers, org) }},
		{"category", calendard.EventFilter{Statuses: pub, CategoryIDs: []int64{cat}}, func(ev *gen.Event) bool { return containsID(ev.Categories, cat) }},
		{"tag", calendard.EventFilter{Statuses: pub, TagIDs: []int64{tag}}, func(ev *gen.Event) bool { return containsID(ev.Tags, tag) }},
		{"featured", calendard.EventFilter{Statuses: pub, Featured: &yes}, func(ev *gen.Event) bool { return ev.Featured }},
		{"window", calendard.EventFilter{Statuses: pub, StartOnOrAfter: &from, EndOnOrBefore: &to},
			func(ev *gen.Event) bool { return ev.Start >= from && ev.End <= to }},
	} {
		c.f.Limit = 1
		_, total, err := st.FindEvents(ctx, site, c.f)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want := expect(c.match); total != want || want == 0 {
			t.Errorf("%s: the store lists %d events, the generator wrote %d", c.name, total, want)
		}
	}

	// One page of 50 events, every field the generator decided.
	page, _, err := st.FindEvents(ctx, site, calendard.EventFilter{Statuses: pub, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 50 {
		t.Fatalf("a page of %d events, want 50", len(page))
	}
	for _, e := range page {
		ev := byID[e.ID]
		if ev == nil {
			t.Fatalf("the store lists event %d the generator did not write", e.ID)
		}
		got := summary(e)
		want := fmt.Sprintf("%s|%s|%s|%s|%s|%v|%v|%v", ev.Slug, ev.Title, ev.Start, ev.End, ev.Zone, ev.Venue, ev.Organizers, sortedIDs(append(append([]int64{}, ev.Categories...), ev.Tags...)))
		if got != want {
			t.Errorf("event %d:\n got %s\nwant %s", e.ID, got, want)
		}
		if _, ok := e.Meta.Get("_tribe_featured"); ok != ev.Featured {
			t.Errorf("event %d: featured %v, want %v", e.ID, ok, ev.Featured)
		}
		if (e.MenuOrder == -1) != ev.Sticky {
			t.Errorf("event %d: menu_order %d, sticky %v", e.ID, e.MenuOrder, ev.Sticky)
		}
	}
	id, _ := strconv.ParseInt(g.res.Picks["event_id"], 10, 64)
	e, err := st.EventByID(ctx, id)
	if err != nil || e == nil || e.Name != g.res.Picks["event_slug"] || e.Status != "publish" {
		t.Errorf("the picked event %d: %v %+v", id, err, e)
	}
}

func summary(e *calendard.Event) string {
	m := func(k string) string { v, _ := e.Meta.Get(k); return v }
	var venue int64
	if len(e.Venues) > 0 {
		venue = e.Venues[0].ID
	}
	orgs := []int64{}
	for _, o := range e.Organizers {
		orgs = append(orgs, o.ID)
	}
	var terms []int64
	for _, t := range append(append([]*calendard.Term{}, e.Categories...), e.Tags...) {
		terms = append(terms, t.ID)
	}
	return fmt.Sprintf("%s|%s|%s|%s|%s|%v|%v|%v", e.Name, e.Title, m("_EventStartDate"), m("_EventEndDate"), m("_EventTimezone"),
		venue, orgs, sortedIDs(terms))
}

func sortedIDs(ids []int64) []int64 {
	out := append([]int64{}, ids...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	if out == nil {
		out = []int64{}
	}
	return out
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// sameRows compares the generated rows of both stores.
func sameRows(t *testing.T, a, b *generated) {
	if !reflect.DeepEqual(a.res.Picks, b.res.Picks) {
		t.Errorf("picks differ:\n%v\n%v", a.res.Picks, b.res.Picks)
	}
	for _, q := range []string{
		"SELECT ID, post_author, post_date, post_date_gmt, post_title, post_status, post_name, post_modified, post_parent, guid, menu_order, post_type, LEN(post_content) FROM wp_posts ORDER BY ID",
		"SELECT meta_id, post_id, meta_key, meta_value FROM wp_postmeta ORDER BY meta_id",
		"SELECT t.term_id, t.name, t.slug, tt.term_taxonomy_id, tt.taxonomy, tt.parent, tt.count FROM wp_terms t JOIN wp_term_taxonomy tt ON tt.term_id = t.term_id ORDER BY t.term_id",
		"SELECT object_id, term_taxonomy_id FROM wp_term_relationships ORDER BY object_id, term_taxonomy_id",
		"SELECT * FROM wp_tec_events ORDER BY event_id",
		"SELECT * FROM wp_tec_occurrences ORDER BY occurrence_id",
		"SELECT option_value FROM wp_options WHERE option_name = 'tribe_events_calendar_options'",
	} {
		qa, qb := strings.Replace(q, "LEN(", "CHAR_LENGTH(", 1), strings.Replace(q, "LEN(", "length(", 1)
		ra, rb := dump(t, a.db, qa), dump(t, b.db, qb)
		if len(ra) != len(rb) {
			t.Errorf("%s: %d rows on MySQL, %d on SQLite", q, len(ra), len(rb))
			continue
		}
		for i := range ra {
			if ra[i] != rb[i] {
				t.Errorf("%s: row %d differs:\nmysql  %s\nsqlite %s", q, i, ra[i], rb[i])
				break
			}
		}
	}
}

func dump(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	_, rows := testenv.Rows(t, db, q)
	var out []string
	for _, vals := range rows {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = v.String
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}
