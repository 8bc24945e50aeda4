package eventindex

import (
	"fmt"
	"testing"

	"github.com/calendard/calendard"
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
