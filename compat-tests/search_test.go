package compattests

import (
	"context"
	"fmt"
	"html"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCompatSearch replays the recorded read cases with Meilisearch configured (CALENDAR_MEILI_URL,
// a real Meilisearch from internal/testenv) on the MySQL store. Every answer must be the recorded
// one, except answers to search= on events, venues and organizers, which Meilisearch makes fuzzier
// (typos, prefixes, names of venues, organizers and terms): there, calendard's whole answer must
// contain every event, venue or organizer the reference listed (and at least as many records as
// the reference's total). Each such difference is named in the log with what was added.
//
// Every read case runs (restarts find the index in step and write nothing, so this stays cheap);
// COMPAT_SEARCH=search narrows to the cases with a search= parameter. Before any case, the service
// must have logged that its index is in step, and a typo must find what the plugin's substring
// match cannot: the answers are the index's, not the SQL fallback's.
func TestCompatSearch(t *testing.T) {
	ctx := context.Background()
	set, db, bin := loadSiteA(t)
	if err := deriveFixture(ctx, db, set, "compat_search", nil); err != nil {
		t.Fatal(err)
	}
	// A local Meilisearch process, or with COMPAT_DB=docker a container (containers.go).
	meiliURL, meiliKey := meiliFor(ctx, t)
	store, err := NewMySQLStore(ctx, db, "compat_search", "compat_search_run")
	if err != nil {
		t.Fatal(err)
	}
	filter := func(*Case) bool { return true }
	if os.Getenv("COMPAT_SEARCH") == "search" {
		filter = func(c *Case) bool { return hasQuery(c, "search") }
	}
	if expr := os.Getenv("COMPAT_RUN"); expr != "" {
		re := regexp.MustCompile(expr)
		narrow := filter
		filter = func(c *Case) bool { return narrow(c) && re.MatchString(c.Name) }
	}
	names := map[string]bool{}
	for _, c := range set.Cases {
		if c.Group == "read" && filter(c) {
			names[c.Name] = true
		}
	}
	starts, waited := 0, time.Duration(0)
	r := &runner{t: t, ctx: ctx, set: set, bin: bin, store: store, spellings: []string{"tribe/events/v1"},
		env: map[string]string{"CALENDAR_MEILI_URL": meiliURL, "CALENDAR_MEILI_KEY": meiliKey, "CALENDAR_MEILI_INDEX_PREFIX": "compat"},
		ready: func(s *Service) error {
			starts++
			start := time.Now()
			defer func() { waited += time.Since(start) }()
			return searchReady(ctx, set, s)
		}}
	t.Cleanup(func() {
		r.stop()
		store.Close()
	})
	results := r.reads(func(name string) bool { return names[name] })
	if len(results) == 0 || starts == 0 {
		t.Fatalf("replayed %d cases over %d service starts", len(results), starts)
	}
	same, named := 0, 0
	for _, res := range results {
		if res.passed() {
			same++
			continue
		}
		why, ok := extensionDeclared(res)
		if !ok {
			why, ok = searchDifference(r, res)
		}
		if !ok {
			t.Error(describe(res) + "\n    " + why)
			continue
		}
		named++
		t.Logf("named difference: %s: %s", res.c.Name, why)
	}
	t.Logf("with Meilisearch: %d read cases as recorded, %d answers differ as named above, over %d service starts (%s waiting for the index)",
		same, named, starts, waited.Round(time.Millisecond))
}

func hasQuery(c *Case, key string) bool {
	for _, kv := range c.Request.Query {
		if kv[0] == key {
			return true
		}
	}
	return false
}

func queryValue(c *Case, key string) string {
	for _, kv := range c.Request.Query {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}

// searchReady waits until the service logged that its search index is in step, then checks that a
// typo finds events (the plugin's substring match finds none for "Marathn").
func searchReady(ctx context.Context, set *Set, s *Service) error {
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(s.stderr.String(), "search index ready") {
		if time.Now().After(deadline) {
			return fmt.Errorf("the search index was not ready within 90 s:\n%s", s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	probe := &Case{Name: "probe"}
	probe.Request.Method = "GET"
	probe.Request.Path = "/wp-json/tribe/events/v1/events"
	probe.Request.Query = [][2]string{{"search", "Marathn"}, {"start_date", "2000-01-01"}, {"end_date", "2040-12-31"}}
	a, err := s.Do(ctx, set, probe, "tribe/events/v1")
	if err != nil {
		return err
	}
	if n, _ := strconv.Atoi(a.Headers.Get("X-TEC-Total")); a.Status != 200 || n == 0 {
		return fmt.Errorf("search=Marathn answered %d with %q events: not through Meilisearch", a.Status, a.Headers.Get("X-TEC-Total"))
	}
	return nil
}

// extensionDeclared accepts an answer whose only differences are arguments calendard declares as
// extensions (the namespace index and /doc list orderby=relevance when Meilisearch is configured:
// every extension is documented there).
func extensionDeclared(res result) (string, bool) {
	if res.err != nil || len(res.diffs) == 0 {
		return "", false
	}
	var paths []string
	for _, d := range res.diffs {
		if d.Want != "(absent)" || !strings.Contains(fmt.Sprint(d.Got), "calendard extension") {
			return "", false
		}
		paths = append(paths, d.Path)
	}
	return "extension arguments declared: " + strings.Join(paths, ", "), true
}

// searchKeys are the lists whose search= Meilisearch answers, by the answer's list key.
var searchKeys = map[string]string{"/events": "events", "/venues": "venues", "/organizers": "organizers"}

// searchDifference decides whether a case that differs from the recording is a search answer that
// Meilisearch may give: a 200 list with search= whose whole answer contains the reference's
// (searchVerdict). It says what differs either way.
func searchDifference(r *runner, res result) (string, bool) {
	c := res.c
	key := ""
	for suffix, k := range searchKeys {
		if strings.HasSuffix(c.Request.Path, suffix) {
			key = k
		}
	}
	if res.err != nil || key == "" || !hasQuery(c, "search") || c.Response.Status != 200 {
		return "not a search answer Meilisearch gives", false
	}
	recorded, err := decode(c.Response.Body)
	if err != nil {
		return err.Error(), false
	}
	total, err := strconv.Atoi(c.Response.Headers["X-TEC-Total"])
	if err != nil {
		return "no recorded X-TEC-Total", false
	}
	got, err := wholeAnswer(r, c, key)
	if err != nil {
		return err.Error(), false
	}
	return searchVerdict(queryValue(c, "search"), records(recorded, key), total, got)
}

// searchVerdict accepts calendard's whole answer to a search (ID to title) against the reference's
// listed records and total when it holds every record the reference listed and at least as many
// records in all, and differs: the same records must be the recorded answer.
func searchVerdict(query string, ref []map[string]any, total int, got map[string]string) (string, bool) {
	var missing []string
	refIDs := map[string]bool{}
	for _, rec := range ref {
		id := fmt.Sprint(rec["id"])
		refIDs[id] = true
		if _, ok := got[id]; !ok {
			missing = append(missing, id)
		}
	}
	known := len(ref) == total // the recording lists the whole answer
	var added []string
	if known {
		for id, title := range got {
			if !refIDs[id] {
				added = append(added, id+" "+strconv.Quote(title))
			}
		}
		sort.Strings(added)
	}
	why := fmt.Sprintf("search=%q: reference %d (listed %d), calendard %d; added (a typo, a prefix, or a match in the venue, organizer, city, category or tag names the index also searches): %v",
		query, total, len(ref), len(got), added)
	switch {
	case len(missing) > 0:
		return why + fmt.Sprintf("; MISSING records of the reference: %v", missing), false
	case len(got) < total:
		return why + "; FEWER records than the reference's total", false
	case known && len(added) == 0:
		return why + "; the same records, so the answer must be the recorded one", false
	case !known && len(got) == total:
		return why + "; as many records as the reference, so the answer must be the recorded one", false
	}
	return why, true
}

// records returns the records of a list answer.
func records(body any, key string) []map[string]any {
	m, _ := body.(map[string]any)
	list, _ := m[key].([]any)
	var out []map[string]any
	for _, e := range list {
		if em, ok := e.(map[string]any); ok {
			out = append(out, em)
		}
	}
	return out
}

// wholeAnswer pages through calendard's answer to a list case (50 a page) and returns every
// record's ID and title.
func wholeAnswer(r *runner, c *Case, key string) (map[string]string, error) {
	out := map[string]string{}
	for page := 1; ; page++ {
		q := *c
		q.Request.Query = nil
		for _, kv := range c.Request.Query {
			if kv[0] != "page" && kv[0] != "per_page" {
				q.Request.Query = append(q.Request.Query, kv)
			}
		}
		q.Request.Query = append(q.Request.Query, [2]string{"per_page", "50"}, [2]string{"page", strconv.Itoa(page)})
		a, err := r.svc.Do(r.ctx, r.set, &q, "tribe/events/v1")
		if err != nil {
			return nil, err
		}
		if a.Status != 200 {
			if page > 1 && a.Status == 400 {
				return out, nil // past the last page
			}
			return nil, fmt.Errorf("page %d answered %d: %.200s", page, a.Status, a.Raw)
		}
		recs := records(a.Body, key)
		for _, rec := range recs {
			title, _ := rec["title"].(string)
			out[fmt.Sprint(rec["id"])] = html.UnescapeString(title)
		}
		if len(recs) < 50 {
			return out, nil
		}
	}
}

// TestSearchVerdictHoldsAnswersToTheReference checks the rule TestCompatSearch applies to search
// answers: containment of the reference's records is strict.
func TestSearchVerdictHoldsAnswersToTheReference(t *testing.T) {
	ref := []map[string]any{{"id": float64(41)}, {"id": float64(42)}, {"id": float64(43)}}
	for _, tc := range []struct {
		name  string
		ref   []map[string]any
		total int
		got   map[string]string
		ok    bool
	}{
		{"a superset is accepted", ref, 3, map[string]string{"41": "a", "42": "b", "43": "c", "50": "typo"}, true},
		{"a record of the reference left out fails", ref, 3, map[string]string{"41": "a", "43": "c", "50": "typo"}, false},
		{"a record left out of a partly listed reference fails", ref[:2], 3, map[string]string{"41": "a", "43": "c", "50": "x", "51": "y"}, false},
		{"fewer records than the reference's total fail", ref[:2], 5, map[string]string{"41": "a", "42": "b", "50": "x"}, false},
		{"the same records must be the recorded answer", ref, 3, map[string]string{"41": "a", "42": "b", "43": "c"}, false},
		{"more records than a partly listed reference are accepted", ref[:2], 3, map[string]string{"41": "a", "42": "b", "50": "x", "51": "y"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why, ok := searchVerdict("q", tc.ref, tc.total, tc.got)
			if ok != tc.ok {
				t.Fatalf("verdict %v, want %v: %s", ok, tc.ok, why)
			}
		})
	}
}
