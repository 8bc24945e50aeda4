package eventindex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/calendard/calendard"
)

// fileTestEvents is a calendar with every kind of event the file must keep: regular and irregular
// rows, several rows, no rows, hidden, featured, password, child events, rare statuses, shared and
// empty bodies, events without IDs. legacy makes it a postmeta calendar (legacy rows).
func fileTestEvents(n int, legacy bool) map[int64]*Event {
	p := NewPosts(true)
	bodies := []string{"Doors open at seven.", "Café Müller — naïve jazz", ""}
	for i := range n {
		id := int64(100 + 7*i)
		status := []string{"publish", "draft", "private", "pending", "future"}[i%5]
		if i%97 == 0 {
			status = fmt.Sprintf("zz-file-status-%d", i) // past 255 spellings: rare
		}
		body := bodies[i%3]
		if i%5 == 0 {
			body = fmt.Sprintf("An own description %d %s", i, strings.Repeat("ü", i%9))
		}
		password := ""
		if i%11 == 0 {
			password = "secret"
		}
		p.Add(id, status, fmt.Sprintf("2025-%02d-%02d 10:00:00", 1+i%12, 1+i%28), int64(i%13), password, fmt.Sprintf("Title %d", i), "ex", body)
	}
	events := p.Events()
	i := 0
	for _, id := range slices.Sorted(func(yield func(int64) bool) {
		for id := range events {
			if !yield(id) {
				return
			}
		}
	}) {
		e := events[id]
		start := fmt.Sprintf("2026-%02d-%02d %02d:00:00", 1+i%12, 1+i%28, i%24)
		end := fmt.Sprintf("2026-%02d-%02d %02d:30:00", 1+i%12, 1+i%28, i%24)
		switch {
		case legacy && i%7 == 0:
			e.rows = []dateRow{legacyRow(start, "", true, false)}
		case legacy:
			e.rows = []dateRow{legacyRow(start, end, true, true)}
		case i%17 == 0:
			e.rows = []dateRow{newRow("2026-02-30 10:00:00", end)} // irregular
		case i%19 == 0:
			e.rows = []dateRow{newRow(start, end), newRow("2027-01-01 00:00:00", "2027-01-02 00:00:00")}
		case i%23 == 0: // no rows: listed nowhere
		default:
			e.rows = []dateRow{newRow(start, end)}
		}
		e.hidden, e.featured = i%29 == 0, i%6 == 0
		if i%31 != 0 {
			e.setIDs(nil, []int64{int64(1 + i%5)}, []int64{int64(20 + i%3), int64(30 + i%4)}, []int64{int64(500 + i%40)}, []int64{int64(900 + i%7)})
		}
		i++
	}
	return events
}

func writeTestFile(t testing.TB, events map[int64]*Event, mode Mode) string {
	path := t.TempDir() + "/index"
	if err := writeIndexFile(path, &image{mode: mode, mark: "mark-1", events: events}); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadTestFile(path string) (*snapshot, error) {
	l, err := readIndexFile(path)
	if err != nil {
		return nil, err
	}
	return compileLoaded(l, 4)
}

// A snapshot loaded from the file is the one a compile of the same events makes: the same events,
// lists, key columns, byte pairs, block summaries and posting lists, and the same answers.
func TestIndexFileLoadsAsBuilt(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			mode := Mode{CustomTables: !legacy, UTC: legacy}
			events := fileTestEvents(2_000, legacy)
			built := compile(mode, events, 4)
			path := writeTestFile(t, events, mode)
			l, err := readIndexFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if l.mode != mode || l.mark != "mark-1" {
				t.Fatalf("mode %+v mark %q, want %+v mark-1", l.mode, l.mark, mode)
			}
			got, err := compileLoaded(l, 4)
			if err != nil {
				t.Fatal(err)
			}
			if len(built.slow) == 0 || len(built.main) == 0 || len(got.byID) != len(events) {
				t.Fatalf("%d main, %d slow, %d of %d events loaded", len(built.main), len(built.slow), len(got.byID), len(events))
			}
			for id, want := range built.byID {
				if e := got.byID[id]; e == nil || !reflect.DeepEqual(*e, *want) {
					t.Fatalf("event %d: loaded %+v, built %+v", id, e, want)
				}
			}
			ids := func(es []*Event) (out []int64) {
				for _, e := range es {
					out = append(out, e.id)
				}
				return out
			}
			for _, c := range []struct {
				name      string
				got, want any
			}{
				{"main", ids(got.main), ids(built.main)}, {"slow", ids(got.slow), ids(built.slow)},
				{"starts", got.starts, built.starts}, {"ends", got.ends, built.ends}, {"statuses", got.statuses, built.statuses},
				{"featured", got.featured, built.featured}, {"grams", got.grams, built.grams}, {"blocks", got.blocks, built.blocks},
				{"venues", got.venues, built.venues}, {"orgs", got.orgs, built.orgs}, {"cats", got.cats, built.cats},
				{"tags", got.tags, built.tags}, {"textless", got.textless, built.textless}, {"idless", got.idless, built.idless},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s: loaded %v, built %v", c.name, c.got, c.want)
				}
			}
			got.tix.wait()
			built.tix.wait()
			site := &calendard.Site{UseCustomTables: !legacy, TimezoneModeSite: legacy}
			from, to := "2026-03-01 00:00:00", "2026-09-30 00:00:00"
			for _, f := range []calendard.EventFilter{
				{Statuses: []string{"publish"}, Limit: 50},
				{Statuses: []string{"publish", "draft", "zz-file-status-97"}, StartOnOrAfter: &from, EndOnOrBefore: &to, Limit: 20, Offset: 5},
				{Statuses: []string{"publish"}, VenueIDs: []int64{507}, Limit: 10},
				{Statuses: []string{"any"}, CategoryIDs: []int64{2, 3}, Search: calendard.ParseSearch("müller"), Limit: 10},
				{Statuses: []string{"publish"}, Search: calendard.ParseSearch("description 1"), Limit: 100},
			} {
				wq, wok := built.prepare(site, &f)
				gq, gok := got.prepare(site, &f)
				if wok != gok {
					t.Fatalf("%+v: prepared %v, built %v", f, gok, wok)
				}
				if !wok {
					continue
				}
				wIDs, wTotal := built.find(wq)
				gIDs, gTotal := got.find(gq)
				if gTotal != wTotal || !slices.Equal(gIDs, wIDs) {
					t.Errorf("%+v: loaded %v (%d), built %v (%d)", f, gIDs, gTotal, wIDs, wTotal)
				}
			}
		})
	}
}

// A damaged file is never trusted: every single changed byte, every truncation and a byte added
// make the read fail (the hashes and sizes), rather than load wrong keys.
func TestIndexFileRejectsAnyDamage(t *testing.T) {
	path := writeTestFile(t, fileTestEvents(60, false), Mode{CustomTables: true})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadTestFile(path); err != nil {
		t.Fatalf("the intact file: %v", err)
	}
	try := func(what string, b []byte) {
		t.Helper()
		l, err := readIndex(bytes.NewReader(b), int64(len(b)))
		if err == nil {
			_, err = compileLoaded(l, 4)
		}
		if err == nil {
			t.Fatalf("%s was loaded", what)
		}
	}
	for i := range data {
		for _, x := range []byte{0x01, 0x80} {
			b := slices.Clone(data)
			b[i] ^= x
			try(fmt.Sprintf("byte %d of %d xor %#x", i, len(data), x), b)
		}
	}
	for n := range len(data) {
		try(fmt.Sprintf("the first %d of %d bytes", n, len(data)), data[:n])
	}
	try("a byte more", append(slices.Clone(data), 0))
	try("an older version", append([]byte("calendard event index v6\n"), data[len(fileMagic):]...))
}

// Events out of the order a compile gives them (a file written by another version's sort, say)
// are not taken as they lie.
func TestIndexFileOrderIsChecked(t *testing.T) {
	path := writeTestFile(t, fileTestEvents(200, false), Mode{CustomTables: true})
	for _, c := range []struct {
		name   string
		break_ func(l *loaded)
	}{
		{"two main events swapped", func(l *loaded) { l.events[3], l.events[4] = l.events[4], l.events[3] }},
		{"a main event irregular", func(l *loaded) { l.events[2].rows[0].irr = &rowText{start: "x", end: "y"} }},
		{"a hidden event listed", func(l *loaded) { l.events[l.nMain-1].hidden = true }},
		{"an irregular event in the main list", func(l *loaded) { l.nMain++; l.nSlow-- }},
		{"a listable event in no list", func(l *loaded) { l.nSlow-- }},
		{"an ID twice", func(l *loaded) { l.events[len(l.events)-1].id = l.events[0].id }},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := readIndexFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if l.nSlow < 2 || len(l.events) <= l.nMain+l.nSlow {
				t.Fatalf("%d main, %d slow of %d: the calendar lacks a kind", l.nMain, l.nSlow, len(l.events))
			}
			c.break_(l)
			if _, err := compileLoaded(l, 4); err == nil {
				t.Fatal("loaded")
			}
		})
	}
}

// dropSource is synthSource whose events are gone once dropped is set (a deletion committed while
// a restart reads the file), with the file's mark.
type dropSource struct {
	synthSource
	dropped atomic.Bool
}

func (s *dropSource) Events(ctx context.Context, mode Mode, ids []int64, mark *Mark) (map[int64]*Event, error) {
	if s.dropped.Load() {
		return map[int64]*Event{}, nil
	}
	return s.synthSource.Events(ctx, mode, ids, mark)
}

func (s *dropSource) Mark(ctx context.Context) (Mark, error) { return "mark-1", nil }

// A change published while the file is being read (the change feed polls meanwhile) is not lost:
// the snapshot installed from the file has it applied. It was dropped before (no snapshot to
// patch yet), and the index kept the file's state until that event changed again.
func TestIndexFileLoadKeepsTheChangesPublishedMeanwhile(t *testing.T) {
	ctx := context.Background()
	mode := Mode{CustomTables: true}
	site := &calendard.Site{UseCustomTables: true}
	src := &dropSource{synthSource: synthSource{n: 50}}
	events, err := src.Events(ctx, mode, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := writeTestFile(t, events, mode)
	x := New(src, Options{BlockLen: 4})
	x.UseFile(path)
	after := make(chan struct{})
	loaded := make(chan bool, 1)
	mark := func(ctx context.Context) (Mark, error) {
		<-after
		return src.Mark(ctx)
	}
	go func() { loaded <- x.LoadFile(ctx, site, mark) }()
	src.dropped.Store(true)
	if err := x.Patch(ctx, []int64{1000}); err != nil {
		t.Fatal(err)
	}
	close(after)
	if !<-loaded {
		t.Fatal("the file was not loaded")
	}
	if _, ok := x.snap.Load().byID[1000]; ok {
		t.Error("event 1000, deleted while the file was read, is in the loaded index")
	}
	if _, ok := x.snap.Load().byID[1001]; !ok {
		t.Error("event 1001 is missing from the loaded index")
	}
}
