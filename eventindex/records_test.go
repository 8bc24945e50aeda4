package eventindex

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/collation"
)

// Past 255 distinct spellings a status is kept on its event rather than as a shared code: every
// event still answers with its own spelling, and the index file keeps it.
func TestRareStatusesKeepTheirSpelling(t *testing.T) {
	var events []*Event
	for i := range 300 {
		e := &Event{id: int64(i + 1)}
		e.setStatus(fmt.Sprintf("zz-status-%03d", i))
		events = append(events, e)
	}
	rare := 0
	for i, e := range events {
		if want := fmt.Sprintf("zz-status-%03d", i); e.status() != want {
			t.Fatalf("event %d: status %q, want %q", e.id, e.status(), want)
		}
		if e.statusID == rareStatus {
			rare++
		}
	}
	if rare == 0 {
		t.Fatal("300 new spellings left no status rare: the test does not reach the rare path")
	}
	match := statusMatcher([]string{"ZZ-STATUS-299"}) // the column's collation ignores case
	q := &query{f: &calendard.EventFilter{}, statusOK: match, statusOKByID: statusTable(match)}
	if !q.matchEvent(events[299], false) {
		t.Fatal("a rare status does not match its own spelling in another case")
	}
	if q.matchEvent(events[298], false) {
		t.Fatal("a rare status matched another spelling")
	}
}

// Events of equal descriptions share one folded body (a calendar of series and templates keeps
// each description once), across text blocks and past the packer's memory of recent texts, and
// every event keeps exactly its own text.
func TestEqualDescriptionsShareOneBody(t *testing.T) {
	p := NewPosts(true)
	contents := []string{"Doors open at SEVEN.", "Café <b>Müller</b> — naïve jazz", ""}
	want := map[int64][2]string{}
	for i := range 90_000 {
		id := int64(i + 1)
		content := contents[i%3]
		if i%4 == 0 {
			content = fmt.Sprintf("A description of its own, number %d, long enough to fill blocks: %s", i, strings.Repeat("x", i%50))
		}
		title := fmt.Sprintf("Event %d", i)
		p.Add(id, "publish", "2026-01-01 00:00:00", 0, "", title, "Short", content)
		want[id] = [2]string{string(appendSearchHead(nil, title, "Short")), collation.LikeFold(content)}
	}
	events := p.Events()
	shared := map[string]*byte{}
	for id, e := range events {
		if e.text != want[id][0] || e.body != want[id][1] {
			t.Fatalf("event %d: text %q body %q, want %q %q", id, e.text, e.body, want[id][0], want[id][1])
		}
		if e.body != collation.LikeFold(contents[0]) && e.body != collation.LikeFold(contents[1]) {
			continue
		}
		if first, ok := shared[e.body]; !ok {
			shared[e.body] = unsafe.StringData(e.body)
		} else if unsafe.StringData(e.body) != first {
			t.Fatalf("event %d: its body %q is a copy, not the shared one", id, e.body)
		}
	}
	if len(shared) != 2 {
		t.Fatalf("%d shared bodies, want 2", len(shared))
	}
}
