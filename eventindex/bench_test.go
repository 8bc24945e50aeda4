package eventindex

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard"
)

// syntheticIndex compiles an index of n events shaped like bench/gen's calendars (four years of
// dates, 100 venues and 60 organizers per 10k events, 1-2 categories, 0-2 tags), without a database.
// The descriptions follow 8 templates, as a generated calendar's few paragraphs do.
func syntheticIndex(n int) *snapshot { return syntheticIndexOf(n, false) }

// syntheticIndexOf is syntheticIndex; distinct gives every event a description of its own.
func syntheticIndexOf(n int, distinct bool) *snapshot {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	base := time.Date(2024, 11, 25, 0, 0, 0, 0, time.UTC)
	venues, orgs := max(1, n/100), max(1, n*6/1000)
	words := []string{"concert", "festival", "market", "lecture", "workshop", "tour", "exhibition", "reading"}
	p := NewPosts(true)
	for i := 0; i < n; i++ {
		start := base.Add(time.Duration(r.IntN(4*365*24)) * time.Hour)
		end := start.Add(time.Duration(1+r.IntN(48)) * time.Hour)
		status := "publish"
		if r.IntN(10) == 0 {
			status = []string{"draft", "private", "pending", "trash"}[r.IntN(4)]
		}
		title := fmt.Sprintf("%s %d", words[r.IntN(len(words))], i)
		if i%100 == 0 {
			title = "Winter gala " + title // the mix searches a word in about 1% of the titles
		}
		content := "An evening of " + words[r.IntN(len(words))] + " with friends and music. Doors open at seven; the bar serves " +
			"local wine, and tickets are available at the door or online until the day before."
		if distinct {
			content += fmt.Sprintf(" Ticket line %d, room %x.", r.IntN(1<<30), r.Uint64())
		}
		id := int64(1000 + i)
		p.Add(id, status, start.AddDate(0, -2, 0).Format(calendard.DBDateTime), 0, "", title, "", content)
		e := p.out[id]
		e.rows = []dateRow{newRow(start.Format(calendard.DBDateTime), end.Format(calendard.DBDateTime))}
		e.featured = r.IntN(20) == 0
		var venueIDs, orgIDs []int64
		if r.IntN(100) < 85 {
			venueIDs = []int64{int64(r.IntN(venues))}
		}
		for k := r.IntN(4); k > 0; k-- {
			orgIDs = append(orgIDs, int64(r.IntN(orgs)))
		}
		e.setIDs(nil, []int64{int64(1 + r.IntN(12))}, []int64{int64(20 + r.IntN(15))}, venueIDs, orgIDs)
	}
	return compile(Mode{CustomTables: true}, p.Events(), defaultBlockLen)
}

// BenchmarkEventIndexFind measures list answers from the index at 10k and 100k events: the cost of a
// default window must not grow with the calendar faster than the matches it counts.
func BenchmarkEventIndexFind(b *testing.B) {
	site := &calendard.Site{UseCustomTables: true}
	for _, n := range []int{10_000, 100_000} {
		snap := syntheticIndex(n)
		waitTextIndex(snap)
		from, to := "2026-11-24 23:59:00", "2028-11-25 12:00:00"
		cases := map[string]calendard.EventFilter{
			"default":  {Statuses: []string{"publish"}, StartOnOrAfter: &from, EndOnOrBefore: &to, Limit: 10},
			"page1000": {Statuses: []string{"publish"}, Limit: 10, Offset: 9990},
			"venue":    {Statuses: []string{"publish"}, StartOnOrAfter: &from, EndOnOrBefore: &to, VenueIDs: []int64{7}, Limit: 10},
			// A top-level category with its children: a quarter of the calendar.
			"category": {Statuses: []string{"publish"}, StartOnOrAfter: &from, EndOnOrBefore: &to, CategoryIDs: []int64{1, 2, 3}, Limit: 10},
			"search":   {Statuses: []string{"publish"}, StartOnOrAfter: &from, Search: calendard.ParseSearch("gala"), Limit: 10},
		}
		for name, f := range cases {
			b.Run(fmt.Sprintf("%s/%dk", name, n/1000), func(b *testing.B) {
				for b.Loop() {
					q, ok := snap.prepare(site, &f)
					if !ok {
						b.Fatal("declined")
					}
					if _, total := snap.find(q); total == 0 {
						b.Fatal("no events")
					}
				}
			})
		}
	}
}

func BenchmarkCompileIndex100k(b *testing.B) {
	snap := syntheticIndex(100_000)
	for b.Loop() {
		// The text index too: a compile starts it, and it is part of what a build costs.
		waitTextIndex(compile(snap.mode, snap.byID, defaultBlockLen))
	}
}

// BenchmarkTextIndex100k builds the search's trigram index of 100k events in one pass and in a
// range of slots per core (buildTextIndex on a machine of more than one).
func BenchmarkTextIndex100k(b *testing.B) {
	snap := syntheticIndex(100_000)
	text := func(i int) (string, string) { return snap.main[i].text, snap.main[i].body }
	for _, parts := range []int{1, min(runtime.GOMAXPROCS(0), 4)} {
		b.Run(fmt.Sprintf("ranges=%d", parts), func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				buildTextIndexParts(len(snap.main), parts, text)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkPatch100k is what a calendard write costs the index at 100k events: one event reloaded
// and put in its new place.
func BenchmarkPatch100k(b *testing.B) {
	snap := syntheticIndex(100_000)
	e := *snap.byID[5000]
	e.rows = []dateRow{newRow("2027-06-01 10:00:00", "2027-06-01 12:00:00")}
	fresh := map[int64]*Event{e.id: &e}
	for b.Loop() {
		snap.patched([]int64{e.id}, fresh)
	}
}

// BenchmarkLoadIndexFile is a restart's work at 100k and 1M events: reading the index file a full
// build wrote and compiling the snapshot from it (LoadFile without the database's mark). The text
// index the compile starts in the background is waited for outside the timing: a restart answers
// before it is in.
func BenchmarkLoadIndexFile(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			snap := syntheticIndex(n)
			path := b.TempDir() + "/index"
			if err := writeIndexFile(path, &image{mode: snap.mode, mark: "m", events: snap.byID}); err != nil {
				b.Fatal(err)
			}
			snap = nil
			runtime.GC()
			cpu0 := cpuTime()
			for b.Loop() {
				l, err := readIndexFile(path)
				if err != nil {
					b.Fatal(err)
				}
				s, err := compileLoaded(l, defaultBlockLen)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cpu0 -= cpuTime()
				s.tix.wait()
				cpu0 += cpuTime()
				b.StartTimer()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSearch measures the list's search= (a word in 1% of the titles, as in calendard-bench's
// mix) at 10k, 100k and 1M events, and the index's live heap (index-MB: what the compiled
// snapshot adds, its search text and text index included); "distinct" gives every event a
// description of its own.
func BenchmarkSearch(b *testing.B) {
	site := &calendard.Site{UseCustomTables: true}
	from := "2026-11-24 23:59:00"
	for _, c := range []struct {
		n        int
		distinct bool
	}{{10_000, false}, {100_000, false}, {1_000_000, false}, {1_000_000, true}} {
		name := fmt.Sprintf("%dk", c.n/1000)
		if c.distinct {
			name += "-distinct"
		}
		b.Run(name, func(b *testing.B) {
			before := liveHeap()
			snap := syntheticIndexOf(c.n, c.distinct)
			waitTextIndex(snap)
			heap := liveHeap() - before
			f := calendard.EventFilter{Statuses: []string{"publish"}, StartOnOrAfter: &from, Search: calendard.ParseSearch("gala"), Limit: 10}
			cpu0 := cpuTime()
			for b.Loop() {
				q, ok := snap.prepare(site, &f)
				if !ok {
					b.Fatal("declined")
				}
				if _, total := snap.find(q); total == 0 {
					b.Fatal("no events")
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(heap)/(1<<20), "index-MB")
			runtime.KeepAlive(snap)
		})
	}
}

// cpuTime is the process's CPU time (user and system) in nanoseconds: on a shared machine the
// wall time of an operation says more about the neighbours than about the operation.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// liveHeap is the heap in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
