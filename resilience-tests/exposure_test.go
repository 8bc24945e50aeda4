package resiliencetests

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/calendard/calendard/internal/phpserial"
)

// TestExposureByRole asks, for each role (anonymous, subscriber, contributor, author, editor,
// administrator), what the service shows: event lists in every status, search=, include=, venue and
// organizer lists (and their search=), every single by ID and by slug, and term counts. The
// expectations are derived here from the database (post types, statuses, authors, passwords, the
// roles' capabilities in wp_user_roles, term relationships) and the documented rules
// (shared spec: §5.5 list statuses, §6 and §8.4 single decisions, WordPress' map_meta_cap for
// read_post, §10.1 counts), not from the service's answers:
//
//   - default mode (the plugin's behaviour): whoever may edit a type lists every status of every
//     author but trash (trash when asked for it), while the single refuses what read_post refuses;
//   - strict mode (CALENDAR_STRICT_READS=on): a list shows nothing the single would refuse (a
//     password-protected event is listed redacted, its single asks for the password), and trashed
//     events are hidden from everyone.
//
// Embeds: the venue and organizers inside each listed event are every linked venue and organizer,
// whatever their status, in the default mode (the plugin embeds without a status check, spec §4);
// in strict mode only those whose own single the caller may read. The test first links published
// events to unpublished venues and organizers of other authors, so that both rules are exercised.
func TestExposureByRole(t *testing.T) {
	t.Parallel() // with the other tests of this package but the hostile requests, which measure memory alone
	mysqlSpec := mysqlFixture(t, "r_exposure")
	sqliteSpec := sqliteFixture(t)
	mysqlDB := openSpec(t, mysqlSpec)
	for _, stmt := range unpublishedLinks(t, mysqlDB) {
		for _, db := range []*sql.DB{mysqlDB, openSpec(t, sqliteSpec)} {
			if _, err := db.Exec(stmt.q, stmt.args...); err != nil {
				t.Fatalf("%s: %v", stmt.q, err)
			}
		}
	}
	w := loadWorld(t, mysqlDB)
	specs := map[string]string{"mysql": mysqlSpec, "sqlite": sqliteSpec}
	for _, store := range []string{"mysql", "sqlite"} {
		for _, strict := range []bool{false, true} {
			name := store + "/default"
			env := map[string]string{"CALENDAR_NOW": recordedNow}
			if strict {
				name = store + "/strict"
				env["CALENDAR_STRICT_READS"] = "on"
			}
			t.Run(name, func(t *testing.T) {
				s := startServer(t, specs[store], env)
				e := &exposure{t: t, s: s, w: w, strict: strict}
				for _, login := range roles {
					t.Run(roleName(login), func(t *testing.T) {
						e := *e
						e.t = t
						e.lists(login)
						e.singles(login)
						e.terms(login)
					})
				}
				s.checkLog(t)
			})
		}
	}
}

// roles are the fixture's users, one per role, and "" for anonymous.
var roles = []string{"", "subscriber", "contributor", "author", "editor", "admin"}

func roleName(login string) string {
	if login == "" {
		return "anonymous"
	}
	return login
}

type wpPost struct {
	id, author, parent                        int64
	typ, status, password, slug, title, start string
	hidden                                    bool
}

// world is what the database says.
type world struct {
	posts  map[int64]*wpPost
	linked map[string]map[int64][]int64 // meta key (_EventVenueID, _EventOrganizerID) → event → IDs, in meta order
	users  map[string]int64             // login → ID
	caps   map[string]map[string]bool   // login → capabilities of its role
	search map[string][]int64
	terms  map[string]map[int64]int // taxonomy → term → published objects
}

func loadWorld(t *testing.T, db *sql.DB) *world {
	t.Helper()
	w := &world{posts: map[int64]*wpPost{}, users: map[string]int64{}, caps: map[string]map[string]bool{},
		search: map[string][]int64{}, terms: map[string]map[int64]int{}, linked: map[string]map[int64][]int64{}}
	rows, err := db.Query(`SELECT p.ID, p.post_author, p.post_parent, p.post_type, p.post_status, p.post_password, p.post_name, p.post_title,
		COALESCE((SELECT MIN(meta_value) FROM wp_postmeta m WHERE m.post_id = p.ID AND m.meta_key = '_EventStartDate'), ''),
		EXISTS (SELECT 1 FROM wp_postmeta m WHERE m.post_id = p.ID AND m.meta_key = '_EventHideFromUpcoming')
		FROM wp_posts p WHERE p.post_type IN ('tribe_events', 'tribe_venue', 'tribe_organizer')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		p := &wpPost{}
		if err := rows.Scan(&p.id, &p.author, &p.parent, &p.typ, &p.status, &p.password, &p.slug, &p.title, &p.start, &p.hidden); err != nil {
			t.Fatal(err)
		}
		w.posts[p.id] = p
	}
	rows.Close()
	rows, err = db.Query(`SELECT post_id, meta_key, meta_value FROM wp_postmeta WHERE meta_key IN ('_EventVenueID', '_EventOrganizerID') ORDER BY meta_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var event int64
		var key, value string
		if err := rows.Scan(&event, &key, &value); err != nil {
			t.Fatal(err)
		}
		id, _ := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if w.linked[key] == nil {
			w.linked[key] = map[int64][]int64{}
		}
		w.linked[key][event] = append(w.linked[key][event], id)
	}
	rows.Close()

	// Roles and their capabilities, as WordPress stores them.
	var rolesOpt string
	if err := db.QueryRow("SELECT option_value FROM wp_options WHERE option_name = 'wp_user_roles'").Scan(&rolesOpt); err != nil {
		t.Fatal(err)
	}
	v, err := phpserial.Unmarshal(rolesOpt)
	if err != nil {
		t.Fatal(err)
	}
	roleCaps := map[string]map[string]bool{}
	for _, e := range v.(*phpserial.Array).Entries() {
		role := e.Value.(*phpserial.Array)
		capsArr, _ := role.Array("capabilities")
		caps := map[string]bool{}
		for _, c := range capsArr.Entries() {
			caps[fmt.Sprint(c.Key)] = phpserial.ToBool(c.Value)
		}
		roleCaps[fmt.Sprint(e.Key)] = caps
	}
	rows, err = db.Query(`SELECT u.user_login, u.ID, m.meta_value FROM wp_users u JOIN wp_usermeta m ON m.user_id = u.ID AND m.meta_key = 'wp_capabilities'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var login, capsVal string
		var id int64
		if err := rows.Scan(&login, &id, &capsVal); err != nil {
			t.Fatal(err)
		}
		w.users[login] = id
		uv, err := phpserial.Unmarshal(capsVal)
		if err != nil {
			t.Fatal(err)
		}
		w.caps[login] = map[string]bool{}
		for _, e := range uv.(*phpserial.Array).Entries() {
			if phpserial.ToBool(e.Value) {
				for c, ok := range roleCaps[fmt.Sprint(e.Key)] {
					w.caps[login][c] = w.caps[login][c] || ok
				}
			}
		}
	}
	rows.Close()
	for _, login := range roles[1:] {
		if w.users[login] == 0 || len(w.caps[login]) == 0 {
			t.Fatalf("fixture user %q has no role", login)
		}
	}

	// search= as the spec states it, evaluated by the database's own collation: events match on title,
	// excerpt or content; venues and organizers when one of their fields holds the fragment.
	for _, term := range eventSearches {
		w.search["events/"+term] = queryIDs(t, db, `SELECT ID FROM wp_posts WHERE post_type = 'tribe_events'
			AND (post_title LIKE ? OR post_excerpt LIKE ? OR post_content LIKE ?)`, "%"+term+"%", "%"+term+"%", "%"+term+"%")
	}
	for typ, fields := range map[string]string{
		"tribe_venue":     "'_VenueAddress','_VenueCity','_VenueProvince','_VenueState','_VenueStateProvince','_VenueZip','_VenuePhone'",
		"tribe_organizer": "'_OrganizerPhone','_OrganizerEmail','_OrganizerWebsite'"} {
		for _, term := range linkedSearches {
			w.search[typ+"/"+term] = queryIDs(t, db, `SELECT ID FROM wp_posts p WHERE post_type = ? AND post_status <> 'trash'
				AND (post_title LIKE ? OR post_excerpt LIKE ? OR post_content LIKE ? OR EXISTS (SELECT 1 FROM wp_postmeta m
				WHERE m.post_id = p.ID AND m.meta_key IN (`+fields+`) AND m.meta_value LIKE ?))`, typ, "%"+term+"%", "%"+term+"%", "%"+term+"%", "%"+term+"%")
		}
	}

	// Term counts: the published objects of each term (WordPress' _update_post_term_count).
	rows, err = db.Query(`SELECT tt.taxonomy, tt.term_id, tt.count, (SELECT COUNT(*) FROM wp_term_relationships r JOIN wp_posts p
		ON p.ID = r.object_id WHERE r.term_taxonomy_id = tt.term_taxonomy_id AND p.post_status = 'publish')
		FROM wp_term_taxonomy tt WHERE tt.taxonomy IN ('tribe_events_cat', 'post_tag')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tax string
		var id int64
		var stored, published int
		if err := rows.Scan(&tax, &id, &stored, &published); err != nil {
			t.Fatal(err)
		}
		if stored != published {
			t.Fatalf("fixture term %d: stored count %d, %d published objects", id, stored, published)
		}
		if w.terms[tax] == nil {
			w.terms[tax] = map[int64]int{}
		}
		w.terms[tax][id] = published
	}
	rows.Close()
	return w
}

var (
	eventSearches  = []string{"Harbour", "Concert", "Winter", "cafe", "Jam"}
	linkedSearches = []string{"a", "Hall", "London", "e"}
)

func queryIDs(t *testing.T, db *sql.DB, q string, args ...any) []int64 {
	t.Helper()
	var out []int64
	for _, s := range queryStrings(t, db, q, args...) {
		id, _ := strconv.ParseInt(s, 10, 64)
		out = append(out, id)
	}
	return out
}

// plural is the capability suffix of a post type (capability_type tribe_event → tribe_events).
func plural(typ string) string {
	return map[string]string{"tribe_events": "tribe_events", "tribe_venue": "tribe_venues", "tribe_organizer": "tribe_organizers"}[typ]
}

func (w *world) can(login, cap string) bool { return login != "" && w.caps[login][cap] }

// readPost is WordPress' map_meta_cap('read_post') for posts that are not published: the author
// needs read; others need read_private_* for private posts, else edit_post: edit_others_* (and
// edit_published_* for a future or trashed post, as editors have with it).
func (w *world) readPost(login string, p *wpPost) bool {
	if p.status == "publish" {
		return true
	}
	if login == "" {
		return false
	}
	if p.author == w.users[login] {
		return w.can(login, "read")
	}
	if p.status == "private" {
		return w.can(login, "read_private_"+plural(p.typ))
	}
	ok := w.can(login, "edit_others_"+plural(p.typ))
	if p.status == "future" || p.status == "trash" {
		ok = ok && w.can(login, "edit_published_"+plural(p.typ))
	}
	return ok
}

// single is the answer a single endpoint owes (spec §6: trash, read_post, password; §8.4, §9).
func (w *world) single(login string, p *wpPost) (int, string) {
	kind := map[string]string{"tribe_events": "event", "tribe_venue": "venue", "tribe_organizer": "organizer"}[p.typ]
	switch {
	case p.typ == "tribe_events" && p.status == "trash":
		return 403, "event-no-longer-available"
	case !w.readPost(login, p):
		return 403, kind + "-not-accessible"
	case p.typ == "tribe_events" && p.password != "":
		return 403, "event-password-protected"
	}
	return 200, ""
}

// listStatuses is what a list of typ shows login for a status= value ("" omitted), or ok false
// when the plugin refuses the value (§5.5: only publish without the edit capability).
func (w *world) listStatuses(login, typ, status string) ([]string, bool) {
	edit := w.can(login, "edit_"+plural(typ))
	if status == "" {
		if !edit {
			return []string{"publish"}, true
		}
		return []string{"publish", "draft", "pending", "private", "future"}, true
	}
	list := strings.Split(status, ",")
	if !edit && !slices.Equal(list, []string{"publish"}) {
		return nil, false
	}
	return list, true
}

// listed is the expected content of a list: posts of typ in the statuses, narrowed by keep.
func (w *world) listed(login, typ string, statuses []string, strict bool, keep func(*wpPost) bool) []int64 {
	var out []int64
	for _, p := range w.posts {
		if p.typ != typ || !slices.Contains(statuses, p.status) || (keep != nil && !keep(p)) {
			continue
		}
		if typ == "tribe_events" && p.hidden {
			continue // hidden from listings: never in this endpoint
		}
		if strict {
			if typ == "tribe_events" && p.status == "trash" {
				continue
			}
			if code, _ := w.single(login, p); code != 200 && !(p.typ == "tribe_events" && p.password != "" && w.readPost(login, p)) {
				continue
			}
		}
		out = append(out, p.id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

type exposure struct {
	t      *testing.T
	s      *server
	w      *world
	strict bool
}

// listPage is a list answer.
type listPage struct {
	status int
	code   string
	ids    []int64
	items  []map[string]any
	total  int
	header string
}

func (e *exposure) get(path, login string) answer {
	a := e.s.call(context.Background(), "GET", path, login, nil)
	if a.err != nil {
		e.t.Fatalf("GET %s as %q: %v", path, login, a.err)
	}
	return a
}

// fetchList reads every page of a list (per_page=50).
func (e *exposure) fetchList(path, key, login string) listPage {
	var out listPage
	for page := 1; ; page++ {
		a := e.get(fmt.Sprintf("%s&per_page=50&page=%d", path, page), login)
		if a.status != 200 {
			if page > 1 {
				e.t.Errorf("%s page %d as %q: %d %.200s", path, page, login, a.status, a.body)
			}
			out.status, out.code = a.status, errorCode(a.body)
			return out
		}
		var body map[string]any
		if err := json.Unmarshal(a.body, &body); err != nil {
			e.t.Fatalf("%s: %v", path, err)
		}
		items, _ := body[key].([]any)
		for _, it := range items {
			m := it.(map[string]any)
			out.items = append(out.items, m)
			out.ids = append(out.ids, int64(m["id"].(float64)))
		}
		out.status = 200
		out.total = int(body["total"].(float64))
		out.header = a.header.Get("X-TEC-Total")
		if pages := int(body["total_pages"].(float64)); page >= pages {
			return out
		}
	}
}

// expectList compares a list with what the database and the rules say.
func (e *exposure) expectList(login, path, key, typ, status string, keep func(*wpPost) bool) {
	e.t.Helper()
	got := e.fetchList(path, key, login)
	statuses, ok := e.w.listStatuses(login, typ, status)
	if !ok {
		if got.status != 400 || got.code != "rest_invalid_param" {
			e.t.Errorf("%s: %d %s, want 400 rest_invalid_param", path, got.status, got.code)
		}
		return
	}
	want := e.w.listed(login, typ, statuses, e.strict, keep)
	ids := slices.Clone(got.ids)
	slices.Sort(ids)
	if got.status != 200 || !slices.Equal(ids, want) {
		e.t.Errorf("%s: %d %v\n want %v\n extra %v missing %v", path, got.status, ids, want, minus(ids, want), minus(want, ids))
		return
	}
	if got.total != len(want) || got.header != strconv.Itoa(len(want)) {
		e.t.Errorf("%s: total %d, X-TEC-Total %s, want %d", path, got.total, got.header, len(want))
	}
	// Password-protected events are listed redacted (§4.11): no description, no terms, no venue.
	for _, it := range got.items {
		p := e.w.posts[int64(it["id"].(float64))]
		if p.typ == "tribe_events" && p.password != "" {
			if it["description"] != "" || fmt.Sprint(it["categories"]) != "[]" || fmt.Sprint(it["venue"]) != "[]" {
				e.t.Errorf("%s: password-protected event %d not redacted: %.200v", path, p.id, it)
			}
			continue
		}
		if p.typ == "tribe_events" {
			e.checkEmbeds(login, path, p, it)
		}
	}
}

// checkEmbeds compares the venue and organizers embedded in a listed event with the links the
// database holds and the mode's rule.
func (e *exposure) checkEmbeds(login, path string, ev *wpPost, item map[string]any) {
	e.t.Helper()
	want := func(key, typ string) []int64 {
		var out []int64
		for _, id := range e.w.linked[key][ev.id] {
			p := e.w.posts[id]
			if p == nil || p.typ != typ || slices.Contains(out, id) && typ == "tribe_organizer" {
				continue
			}
			if e.strict && !e.w.readPost(login, p) {
				continue
			}
			out = append(out, id)
		}
		return out
	}
	ids := func(v any) []int64 {
		var out []int64
		switch v := v.(type) {
		case map[string]any:
			out = append(out, int64(v["id"].(float64)))
		case []any:
			for _, x := range v {
				out = append(out, int64(x.(map[string]any)["id"].(float64)))
			}
		}
		return out
	}
	if got, want := ids(item["venue"]), want("_EventVenueID", "tribe_venue"); !slices.Equal(got, want) {
		e.t.Errorf("%s as %q: event %d embeds venues %v, want %v", path, login, ev.id, got, want)
	}
	if got, want := ids(item["organizer"]), want("_EventOrganizerID", "tribe_organizer"); !slices.Equal(got, want) {
		e.t.Errorf("%s as %q: event %d embeds organizers %v, want %v", path, login, ev.id, got, want)
	}
}

type stmt struct {
	q    string
	args []any
}

// unpublishedLinks returns the statements that link published events to a draft venue, a private
// and a pending organizer (each made so from the fixture's own, by the highest-ID venue and
// organizers), and the events to them, identically on every store.
func unpublishedLinks(t *testing.T, db *sql.DB) []stmt {
	t.Helper()
	venues := queryIDs(t, db, "SELECT ID FROM wp_posts WHERE post_type = 'tribe_venue' AND post_status = 'publish' ORDER BY ID DESC LIMIT 1")
	orgs := queryIDs(t, db, "SELECT ID FROM wp_posts WHERE post_type = 'tribe_organizer' AND post_status = 'publish' ORDER BY ID DESC LIMIT 2")
	events := queryIDs(t, db, "SELECT ID FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish' AND post_password = '' "+
		"AND ID NOT IN (SELECT post_id FROM wp_postmeta WHERE meta_key = '_EventHideFromUpcoming') ORDER BY ID LIMIT 3")
	if len(venues) < 1 || len(orgs) < 2 || len(events) < 3 {
		t.Fatalf("fixture lacks published venues %v, organizers %v or events %v to link", venues, orgs, events)
	}
	out := []stmt{
		{"UPDATE wp_posts SET post_status = 'draft' WHERE ID = ?", []any{venues[0]}},
		{"UPDATE wp_posts SET post_status = 'private' WHERE ID = ?", []any{orgs[0]}},
		{"UPDATE wp_posts SET post_status = 'pending' WHERE ID = ?", []any{orgs[1]}},
	}
	for i, ev := range events {
		out = append(out, stmt{"DELETE FROM wp_postmeta WHERE post_id = ? AND meta_key IN ('_EventVenueID', '_EventOrganizerID')", []any{ev}})
		out = append(out, stmt{"INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, '_EventVenueID', ?)", []any{ev, strconv.FormatInt(venues[0], 10)}})
		// One event each: both organizers, the private one alone, and the pending one twice around the private one.
		for _, o := range [][]int64{{orgs[0], orgs[1]}, {orgs[0]}, {orgs[1], orgs[0], orgs[1]}}[i] {
			out = append(out, stmt{"INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, '_EventOrganizerID', ?)", []any{ev, strconv.FormatInt(o, 10)}})
		}
	}
	return out
}

func minus(a, b []int64) []int64 {
	var out []int64
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

const wide = "start_date=2000-01-01&end_date=2100-12-31"

func (e *exposure) lists(login string) {
	const events = "/wp-json/tribe/events/v1/events?"
	for _, st := range []string{"", "publish", "private", "draft", "pending", "future", "trash", "publish,private,draft,pending,future,trash"} {
		path := events + wide
		if st != "" {
			path += "&status=" + st
		}
		e.expectList(login, path, "events", "tribe_events", st, nil)
	}
	// search= over title, excerpt and content; an anonymous search never finds a password-protected
	// event (§5.2 4).
	for _, term := range eventSearches {
		hits := e.w.search["events/"+term]
		e.expectList(login, events+wide+"&search="+url.QueryEscape(term), "events", "tribe_events", "", func(p *wpPost) bool {
			return slices.Contains(hits, p.id) && (login != "" || p.password == "")
		})
	}
	// include= every event there is (the relative bound keeps the default window away, §5.4).
	var all []string
	for id, p := range e.w.posts {
		if p.typ == "tribe_events" {
			all = append(all, strconv.FormatInt(id, 10))
		}
	}
	sort.Strings(all)
	for _, st := range []string{"", "private,draft,pending,future,trash"} {
		path := events + "starts_after=2000-01-01&include=" + strings.Join(all, ",")
		if st != "" {
			path += "&status=" + st
		}
		e.expectList(login, path, "events", "tribe_events", st, nil)
	}
	for _, l := range []struct{ path, typ string }{{"venues", "tribe_venue"}, {"organizers", "tribe_organizer"}} {
		for _, st := range []string{"", "publish", "draft", "trash", "publish,draft,trash"} {
			path := "/wp-json/tribe/events/v1/" + l.path + "?x=1"
			if st != "" {
				path += "&status=" + st
			}
			e.expectList(login, path, l.path, l.typ, st, nil)
		}
		for _, term := range linkedSearches {
			hits := e.w.search[l.typ+"/"+term]
			if len(hits) == 0 {
				continue // the plugin's quirk: a search that finds nothing answers unfiltered totals (§8.1)
			}
			e.expectList(login, "/wp-json/tribe/events/v1/"+l.path+"?search="+term, l.path, l.typ, "", func(p *wpPost) bool {
				return slices.Contains(hits, p.id)
			})
		}
	}
}

// singles asks for every event, venue and organizer by ID and by slug.
func (e *exposure) singles(login string) {
	var wg sync.WaitGroup
	jobs := make(chan *wpPost)
	base := map[string]string{"tribe_events": "events", "tribe_venue": "venues", "tribe_organizer": "organizers"}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				want, code := e.w.single(login, p)
				paths := []string{fmt.Sprintf("/wp-json/tribe/events/v1/%s/%d", base[p.typ], p.id)}
				if p.slug != "" {
					paths = append(paths, "/wp-json/tribe/events/v1/"+base[p.typ]+"/by-slug/"+p.slug)
				}
				for i, path := range paths {
					want, code := want, code
					if i == 1 && p.parent != 0 {
						// The slug lookup walks the hierarchical post type's page paths (get_page_by_path):
						// a child event's path starts with its parent's slug, so its own slug alone names
						// nothing, whoever asks (the recorded reference answers 400 for these).
						want, code = 400, "rest_invalid_param"
					}
					a := e.s.call(context.Background(), "GET", path, login, nil)
					if a.err != nil || a.status != want || (code != "" && errorCode(a.body) != code) {
						e.t.Errorf("%s as %q (%s by %d): %d %s %v, want %d %s", path, login, p.status, p.author, a.status, errorCode(a.body), a.err, want, code)
					}
				}
			}
		}()
	}
	ids := make([]int64, 0, len(e.w.posts))
	for id := range e.w.posts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		jobs <- e.w.posts[id]
	}
	close(jobs)
	wg.Wait()
}

// terms: every role sees the same counts, the published objects of each term, whatever it may read
// (an unpublished event is never counted).
func (e *exposure) terms(login string) {
	for _, l := range []struct{ path, tax string }{{"categories", "tribe_events_cat"}, {"tags", "post_tag"}} {
		a := e.get("/wp-json/tribe/events/v1/"+l.path+"?hide_empty=false&per_page=50", login)
		var body map[string]any
		if a.status != 200 || json.Unmarshal(a.body, &body) != nil {
			e.t.Errorf("%s as %q: %d %.200s", l.path, login, a.status, a.body)
			continue
		}
		items, _ := body[l.path].([]any)
		seen := map[int64]int{}
		for _, it := range items {
			m := it.(map[string]any)
			seen[int64(m["id"].(float64))] = int(m["count"].(float64))
		}
		want := e.w.terms[l.tax]
		if len(seen) != len(want) {
			e.t.Errorf("%s as %q: %d terms, want %d", l.path, login, len(seen), len(want))
		}
		for id, n := range want {
			if seen[id] != n {
				e.t.Errorf("%s as %q: term %d count %d, want %d published", l.path, login, id, seen[id], n)
			}
		}
	}
}
