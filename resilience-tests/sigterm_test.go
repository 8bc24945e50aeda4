package resiliencetests

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SIGTERM while 16 clients create events (each with a new venue, a new organizer, categories, tags,
// a cost): calendard stops accepting, answers the requests it has, and exits 0; every create it
// answered 201 is stored whole, nothing it did not answer is stored, and every event post in the
// database has its date meta and its tec_events and tec_occurrences rows (none half-written).
func TestSIGTERMDrainsWrites(t *testing.T) {
	t.Parallel() // with the other tests of this package but the hostile requests, which measure memory alone
	spec := mysqlFixture(t, "r_sigterm")
	// What is tested is the drain, not the database deadline: on a loaded machine a create can take
	// longer than the 5 s default, and its 503 would read as a lost write.
	s := startServer(t, spec, map[string]string{"CALENDAR_DB_TIMEOUT": "60s"})
	raw := openSpec(t, spec)
	var maxID int64
	if err := raw.QueryRow("SELECT MAX(ID) FROM wp_posts").Scan(&maxID); err != nil {
		t.Fatal(err)
	}
	users := []string{"admin", "editor", "author"}
	payload := func(n int) map[string]any {
		return map[string]any{"title": fmt.Sprintf("Drain %d", n), "description": "<p>Written while the service stopped.</p>",
			"start_date": fmt.Sprintf("2027-09-%02d 18:00:00", 1+n%28), "end_date": fmt.Sprintf("2027-09-%02d 21:00:00", 1+n%28),
			"timezone": "Europe/London", "cost": "10", "website": "https://example.com/drain",
			"venue":      map[string]any{"venue": fmt.Sprintf("Drain Hall %d", n), "city": "Leeds", "country": "United Kingdom"},
			"organizer":  []any{map[string]any{"organizer": fmt.Sprintf("Drain Org %d", n), "email": "drain@example.com"}},
			"categories": []any{"Drain Category", "music"}, "tags": []any{"drain", fmt.Sprintf("drain-%d", n%5)}}
	}
	// The reference: what one create stores (meta keys, custom-table rows, terms).
	ref := s.call(context.Background(), "POST", "/wp-json/tribe/events/v1/events", "admin", payload(0))
	var refEvent struct {
		ID int64 `json:"id"`
	}
	if ref.status != 201 || json.Unmarshal(ref.body, &refEvent) != nil {
		t.Fatalf("reference create: %d %.300s", ref.status, ref.body)
	}
	refKeys := queryStrings(t, raw, "SELECT DISTINCT meta_key FROM wp_postmeta WHERE post_id = ? ORDER BY meta_key", refEvent.ID)
	refTerms := len(queryStrings(t, raw, "SELECT CAST(term_taxonomy_id AS CHAR) FROM wp_term_relationships WHERE object_id = ?", refEvent.ID))
	for _, k := range []string{"_EventStartDate", "_EventEndDate", "_EventStartDateUTC", "_EventEndDateUTC", "_EventTimezone", "_EventVenueID", "_EventOrganizerID", "_EventCost"} {
		if !slices.Contains(refKeys, k) {
			t.Fatalf("the reference create stored no %s: %v", k, refKeys)
		}
	}

	type result struct {
		title      string
		start, end time.Time
		status     int
		err        error
	}
	var (
		mu      sync.Mutex
		results []result
		seq     = 0
		sigAt   time.Time
		sigOnce sync.Once
		sent    = make(chan struct{})
	)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				seq++
				n := seq
				signalled := !sigAt.IsZero()
				mu.Unlock()
				body := payload(n)
				start := time.Now()
				a := s.call(context.Background(), "POST", "/wp-json/tribe/events/v1/events", users[w%len(users)], body)
				mu.Lock()
				results = append(results, result{title: body["title"].(string), start: start, end: time.Now(), status: a.status, err: a.err})
				mu.Unlock()
				if n == 40 {
					sigOnce.Do(func() { close(sent) })
				}
				if a.err != nil && signalled {
					return // the listener is closed
				}
				if a.err == nil && a.status != 201 {
					t.Errorf("%s: %d %.200s", body["title"], a.status, a.body)
				}
			}
		}()
	}
	<-sent
	mu.Lock()
	sigAt = time.Now()
	mu.Unlock()
	s.signal(t, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("calendard still running 20 s after SIGTERM:\n%s", s.goroutineDump())
	}
	exitedAfter := time.Since(sigAt)
	wg.Wait()
	if s.exit != nil {
		t.Errorf("calendard exited with %v after SIGTERM", s.exit)
	}
	if !strings.Contains(s.log.String(), "shutting down") {
		t.Errorf("no shutdown in the log:\n%s", s.log.String())
	}
	s.checkLog(t)

	// What the clients were told.
	answered := map[string]bool{}
	drained, lost := 0, 0
	for _, r := range results {
		switch {
		case r.err == nil && r.status == 201:
			answered[r.title] = true
			if r.start.Before(sigAt) && r.end.After(sigAt) {
				drained++ // in flight when the signal came, answered after it
			}
		case r.err != nil && r.start.Before(sigAt):
			lost++ // sent on a keep-alive connection the server was closing: never read (checked below)
		}
	}
	answered["Drain 0"] = true

	// What the database holds: every event post whole, and exactly the creates answered 201.
	rows, err := raw.Query(`SELECT p.ID, p.post_title,
		(SELECT COUNT(DISTINCT m.meta_key) FROM wp_postmeta m WHERE m.post_id = p.ID AND m.meta_key IN ('` + strings.Join(refKeys, "','") + `')),
		(SELECT COUNT(*) FROM wp_postmeta m WHERE m.post_id = p.ID AND m.meta_key IN ('_EventStartDate', '_EventEndDate', '_EventStartDateUTC', '_EventEndDateUTC', '_EventTimezone')),
		(SELECT COUNT(*) FROM wp_tec_events e WHERE e.post_id = p.ID),
		(SELECT COUNT(*) FROM wp_tec_occurrences o WHERE o.post_id = p.ID),
		(SELECT COUNT(*) FROM wp_term_relationships r WHERE r.object_id = p.ID)
		FROM wp_posts p WHERE p.post_type = 'tribe_events'`)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	var events int
	for rows.Next() {
		var id int64
		var title string
		var keys, dates, tecEvents, occurrences, terms int
		if err := rows.Scan(&id, &title, &keys, &dates, &tecEvents, &occurrences, &terms); err != nil {
			t.Fatal(err)
		}
		events++
		if dates != 5 || tecEvents != 1 || occurrences < 1 {
			t.Errorf("event %d %q is half-written: %d of 5 date meta, %d tec_events rows, %d occurrences", id, title, dates, tecEvents, occurrences)
		}
		if id <= maxID {
			continue
		}
		stored[title] = true
		if keys != len(refKeys) || terms != refTerms {
			t.Errorf("new event %d %q: %d of the %d meta keys a create stores, %d of %d term relationships", id, title, keys, len(refKeys), terms, refTerms)
		}
	}
	rows.Close()
	for title := range answered {
		if !stored[title] {
			t.Errorf("%q was answered 201 and is not stored", title)
		}
	}
	for title := range stored {
		if !answered[title] {
			t.Errorf("%q is stored but its client got no 201", title)
		}
	}
	// The venues and organizers the creates made are whole too.
	if n := len(queryStrings(t, raw, `SELECT CAST(p.ID AS CHAR) FROM wp_posts p WHERE p.ID > ? AND p.post_type IN ('tribe_venue', 'tribe_organizer')
		AND NOT EXISTS (SELECT 1 FROM wp_postmeta m WHERE m.post_id = p.ID AND m.meta_key IN ('_VenueCity', '_OrganizerEmail'))`, maxID)); n > 0 {
		t.Errorf("%d new venues or organizers without their meta", n)
	}
	if len(stored) != len(answered) {
		t.Errorf("%d new events stored, %d creates answered 201", len(stored), len(answered))
	}
	if drained == 0 {
		t.Errorf("no create was in flight when SIGTERM came (%d requests): the test proved nothing", len(results))
	}
	t.Logf("SIGTERM after %d creates: %d in flight answered 201 after the signal, %d sent on closing connections (not stored), exit after %v; %d events, all whole",
		len(answered)-drained, drained, lost, exitedAfter.Round(time.Millisecond), events)
}
