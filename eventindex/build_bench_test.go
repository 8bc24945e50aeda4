package eventindex

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/calendard/calendard"
)

// synthSource is a Source that makes a calendar shaped like bench/gen's (syntheticIndex) through
// the builders a database's source fills (Posts, Keys, Texts), row by row as SQL rows arrive: a
// first build's work without the database's.
type synthSource struct{ n int }

func (s synthSource) each(fn func(i int, r *rand.Rand)) {
	r := rand.New(rand.NewPCG(7, uint64(s.n)))
	for i := 0; i < s.n; i++ {
		fn(i, r)
	}
}

func (s synthSource) Events(ctx context.Context, mode Mode, ids []int64, mark *Mark) (map[int64]*Event, error) {
	return s.events(mode, true), nil
}

func (s synthSource) FirstPass(ctx context.Context, mode Mode, mark *Mark) (map[int64]*Event, func() (*Keys, error), error) {
	return s.events(mode, false), func() (*Keys, error) { return s.IDs(mode), nil }, nil
}

// events is every event, withText with its search text and IDs, else as a first pass has them.
func (s synthSource) events(mode Mode, withText bool) map[int64]*Event {
	base := time.Date(2024, 11, 25, 0, 0, 0, 0, time.UTC)
	p := NewPosts(withText)
	k := NewKeys(mode, ListKeys)
	if withText {
		k = NewKeys(mode, AllKeys)
	}
	s.each(func(i int, r *rand.Rand) {
		start := base.Add(time.Duration(r.IntN(4*365*24)) * time.Hour)
		end := start.Add(time.Duration(1+r.IntN(48)) * time.Hour)
		id := int64(1000 + i)
		title, content := s.text(i)
		p.Add(id, "publish", start.AddDate(0, -2, 0).Format(calendard.DBDateTime), 0, "", title, "", content)
		k.AddOccurrence(id, sql.NullString{String: start.Format(calendard.DBDateTime), Valid: true},
			sql.NullString{String: end.Format(calendard.DBDateTime), Valid: true})
		if r.IntN(20) == 0 {
			k.AddMeta(id, metaFeatured, sql.NullString{String: "1", Valid: true})
		}
	})
	k.Done()
	if withText {
		s.ids(k)
	}
	out := p.Events()
	k.ApplyTo(out)
	return out
}

// ids adds every event's venue, organizers, category and tag, as the second pass reads them.
func (s synthSource) ids(k *Keys) {
	venues, orgs := max(1, s.n/100), max(1, s.n*6/1000)
	s.each(func(i int, r *rand.Rand) {
		id := int64(1000 + i)
		if r.IntN(100) < 85 {
			k.AddMeta(id, metaVenue, sql.NullString{String: strconv.Itoa(r.IntN(venues)), Valid: true})
		}
		for n := r.IntN(4); n > 0; n-- {
			k.AddMeta(id, metaOrganizer, sql.NullString{String: strconv.Itoa(r.IntN(orgs)), Valid: true})
		}
		k.AddTerm(id, int64(1+r.IntN(12)), calendard.TaxonomyCategory)
		k.AddTerm(id, int64(20+r.IntN(15)), calendard.TaxonomyTag)
	})
}

// IDs is every event's featured flag, terms, venues and organizers, as a second pass reads them.
func (s synthSource) IDs(mode Mode) *Keys {
	k := NewKeys(mode, IDKeys)
	s.ids(k)
	return k
}

func (s synthSource) text(i int) (title, content string) {
	words := []string{"concert", "festival", "market", "lecture", "workshop", "tour", "exhibition", "reading"}
	return fmt.Sprintf("%s %d", words[i%len(words)], i), "An evening of " + words[(i/8)%len(words)] +
		" with friends and music. Doors open at seven; the bar serves local wine, and tickets are available at the door."
}

func (s synthSource) Texts(ctx context.Context) ([]Text, error) {
	t := NewTexts()
	for i := 0; i < s.n; i++ {
		title, content := s.text(i)
		t.Add(int64(1000+i), title, "", content)
	}
	return t.Texts(), nil
}

func (s synthSource) Mark(ctx context.Context) (Mark, error) { return "", nil }

// BenchmarkFirstBuild100k is a first build of 100k events through its passes (list keys; terms,
// venues and organizers; search text and its trigram index) from a synthetic source: the CPU per
// build (cpu-ns/op) and the largest heap seen during it (peak-heap-MB, sampled every millisecond:
// live and not yet collected objects, which is what the process's memory follows).
func BenchmarkFirstBuild100k(b *testing.B) {
	site := &calendard.Site{UseCustomTables: true}
	src := synthSource{n: 100_000}
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
		}
	}()
	base := liveHeap()
	peak.Store(0)
	cpu0 := cpuTime()
	for b.Loop() {
		x := New(src, Options{})
		if err := x.Build(context.Background(), site); err != nil {
			b.Fatal(err)
		}
		if !x.WaitTextIndex(context.Background()) {
			b.Fatal("no text index")
		}
		if st := x.Stats(); st.Events != src.n || !st.IDsReady || !st.TextReady {
			b.Fatalf("after the build: %+v", st)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	close(stop)
	<-done
	b.ReportMetric(float64(int64(peak.Load())-base)/(1<<20), "peak-heap-MB")
}

// BenchmarkIDsPass100k is a first build's second pass at 100k events: reading every event's
// venues, organizers, categories and tags (keys-MB: what the read holds until it is applied, the
// peak of a first build) and writing them into the events of an idless snapshot.
func BenchmarkIDsPass100k(b *testing.B) {
	src := synthSource{n: 100_000}
	mode := Mode{CustomTables: true}
	var held int64
	for b.Loop() {
		b.StopTimer()
		events := src.events(mode, false)
		x := &Index{}
		x.snap.Store(compile(mode, events, defaultBlockLen))
		base := liveHeap()
		b.StartTimer()
		k := src.IDs(mode)
		b.StopTimer()
		held = liveHeap() - base
		b.StartTimer()
		x.addIDs(k, mode)
		if x.snap.Load().idless {
			b.Fatal("still idless")
		}
	}
	b.ReportMetric(float64(held)/(1<<20), "keys-MB")
}
