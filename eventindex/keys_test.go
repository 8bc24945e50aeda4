package eventindex

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/calendard/calendard"
)

// The IDs a build reads arrive in whatever order the database sends them (by post, by key then
// post, by term, across chunks): every event gets its own IDs of each kind in the order read, and
// a post read again (Replace) gets the fresh read's venues and organizers, and its terms unless
// those were read apart.
func TestKeysGiveEachEventItsIDsInReadOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const posts = 5000
	want := map[int64]*[idKinds][]int64{}
	type row struct {
		post, id int64
		kind     int
	}
	var rows []row
	for p := int64(1); p <= posts; p++ {
		for n := r.IntN(6); n > 0; n-- {
			kind := r.IntN(idKinds)
			rows = append(rows, row{p, r.Int64N(1 << 40), kind})
		}
	}
	// Past several chunks, and out of post order; each post's rows of a kind keep their order.
	for len(rows) < 3*idChunk {
		p := int64(posts + 1 + len(rows))
		rows = append(rows, row{p, 1, idVenues})
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	k := NewKeys(Mode{CustomTables: true}, AllKeys)
	for _, x := range rows {
		l := want[x.post]
		if l == nil {
			l = &[idKinds][]int64{}
			want[x.post] = l
		}
		l[x.kind] = append(l[x.kind], x.id)
		switch x.kind {
		case idCats:
			k.AddTerm(x.post, x.id, calendard.TaxonomyCategory)
		case idTags:
			k.AddTerm(x.post, x.id, "Post_Tag") // as the collation matched it
		case idVenues:
			k.AddMeta(x.post, metaVenue, sql.NullString{String: strconv.FormatInt(x.id, 10), Valid: true})
		case idOrgs:
			k.AddMeta(x.post, metaOrganizer, sql.NullString{String: strconv.FormatInt(x.id, 10), Valid: true})
		}
	}
	k.Done()
	// Post 7 read again with one organizer; post posts+100000 (no rows before) with a venue.
	fresh := NewKeys(Mode{CustomTables: true}, AllKeys)
	fresh.AddMeta(7, metaOrganizer, sql.NullString{String: "99", Valid: true})
	fresh.AddMeta(posts+100000, metaVenue, sql.NullString{String: "98", Valid: true})
	fresh.AddTerm(posts+100000, 97, calendard.TaxonomyTag)
	fresh.Done()
	k.Replace([]int64{7, posts + 100000}, fresh)
	want[7] = &[idKinds][]int64{idOrgs: {99}}
	want[posts+100000] = &[idKinds][]int64{idVenues: {98}, idTags: {97}}

	events := map[int64]*Event{}
	for p := range want {
		events[p] = &Event{id: p}
	}
	events[posts+200000] = &Event{id: posts + 200000} // no IDs at all
	k.ApplyTo(events)
	for p, e := range events {
		w := want[p]
		if w == nil {
			w = &[idKinds][]int64{}
		}
		got := [idKinds][]int64{e.cats(), e.tags(), e.venues(), e.orgs()}
		for kind := range got {
			if len(got[kind]) == 0 && len(w[kind]) == 0 {
				continue
			}
			if !reflect.DeepEqual(got[kind], w[kind]) {
				t.Fatalf("post %d kind %d: %v, want %v", p, kind, got[kind], w[kind])
			}
		}
		if e.noIDs {
			t.Fatalf("post %d left without IDs", p)
		}
	}
}

// Occurrence rows arrive in the occurrence table's order: each event gets its own rows in the
// order read, a post read again (Replace) the fresh read's rows only, and a post without rows none.
func TestKeysGiveEachEventItsOccurrencesInReadOrder(t *testing.T) {
	day := func(d int) sql.NullString {
		return sql.NullString{String: fmt.Sprintf("2027-01-%02d 10:00:00", d), Valid: true}
	}
	k := NewKeys(Mode{CustomTables: true}, ListKeys)
	for _, o := range []struct{ post, start int64 }{{3, 5}, {1, 9}, {3, 2}, {2, 1}, {1, 4}, {3, 7}} {
		k.AddOccurrence(o.post, day(int(o.start)), day(int(o.start)+1))
	}
	k.Done()
	fresh := NewKeys(Mode{CustomTables: true}, ListKeys)
	fresh.AddOccurrence(2, day(20), day(21))
	fresh.AddOccurrence(2, day(18), day(19))
	fresh.Done()
	k.Replace([]int64{2}, fresh)
	events := map[int64]*Event{1: {id: 1}, 2: {id: 2}, 3: {id: 3}, 4: {id: 4}}
	k.ApplyTo(events)
	want := map[int64][]int{1: {9, 4}, 2: {20, 18}, 3: {5, 2, 7}, 4: nil}
	for id, days := range want {
		var got []int
		for _, r := range events[id].rows {
			got = append(got, int(r.startN/1_000_000%100))
		}
		if !reflect.DeepEqual(got, days) {
			t.Errorf("post %d: start days %v, want %v", id, got, days)
		}
		if !events[id].noIDs {
			t.Errorf("post %d: a first pass's keys left it with IDs", id)
		}
	}
}
