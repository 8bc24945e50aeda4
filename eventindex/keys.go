package eventindex

import (
	"cmp"
	"database/sql"
	"slices"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/collation"
	"github.com/calendard/calendard/internal/mysqlcast"
)

// The keys stored beside the posts (hidden, featured, venues, organizers, dates, terms), as a
// Source reads them (NewKeys, AddMeta, AddOccurrence, AddTerm) and applies them to its events.

// Meta keys the index reads.
const (
	metaHidden    = "_EventHideFromUpcoming"
	metaFeatured  = "_tribe_featured"
	metaVenue     = "_EventVenueID"
	metaOrganizer = "_EventOrganizerID"
)

// MetaKeys are the meta keys the index reads in some mode, in the order the embedded store's listkeys
// index names them.
var MetaKeys = []string{metaHidden, metaFeatured, metaVenue, metaOrganizer, "_EventStartDate", "_EventEndDate", "_EventStartDateUTC", "_EventEndDateUTC"}

// Keys are the list keys stored beside the posts, by post ID (posts that turn out not to be
// events are dropped when they are applied). The zero Keys hold none: applied, they leave every
// event without flags, dates or IDs.
type Keys struct {
	hidden, featured map[int64]bool
	// cols holds the categories, tags, venues and organizers read (idCats … idOrgs), as (post, ID)
	// rows in the order read: a whole calendar's are millions of rows, 16 bytes each, where a map
	// of per-event lists cost about 100 bytes an event more (and one allocation per list).
	cols [idKinds]idColumn
	// termsApart: the categories and tags were read apart from the meta keys (WithTerms), so a
	// post whose meta keys are read again (Replace) keeps the terms of cols.
	termsApart bool
	// fresh holds the IDs of posts read again (Replace), in place of their rows in cols.
	fresh map[int64]*[idKinds][]int64
	// occ holds the occurrence rows read (the custom tables), as (post, row) rows in the order
	// read; rows the date rows of a postmeta site (Done) and of posts read again (Replace), which
	// take the place of their occ rows (freshRows).
	occ       column[dateRow]
	rows      map[int64][]dateRow
	freshRows map[int64]bool
	// legacy: a postmeta snapshot, where an event without date meta still lists (no bound joins
	// it), as one row with neither date.
	legacy bool
	// noIDs: the featured flag, terms, venues and organizers were not read (a first pass, ListKeys).
	noIDs bool

	// While meta rows are read (AddMeta): the keys read, the date keys of the mode and the date
	// texts by post, combined into rows by Done.
	mode             Mode
	set              KeySet
	metaKeys         []string
	startKey, endKey string
	starts, ends     map[int64][]string
}

// NewKeys starts a read of the meta and occurrence keys of set under mode (a first pass, ListKeys,
// leaves the events noIDs).
func NewKeys(mode Mode, set KeySet) *Keys {
	k := &Keys{hidden: map[int64]bool{}, featured: map[int64]bool{}, rows: map[int64][]dateRow{},
		mode: mode, set: set, noIDs: set == ListKeys, starts: map[int64][]string{}, ends: map[int64][]string{}}
	k.startKey, k.endKey = "_EventStartDate", "_EventEndDate"
	if mode.UTC {
		k.startKey, k.endKey = "_EventStartDateUTC", "_EventEndDateUTC"
	}
	if set != IDKeys {
		k.metaKeys = append(k.metaKeys, metaHidden)
	}
	if set != ListKeys {
		k.metaKeys = append(k.metaKeys, metaFeatured, metaVenue, metaOrganizer)
	}
	if !mode.CustomTables && set != IDKeys {
		k.metaKeys = append(k.metaKeys, k.startKey, k.endKey)
	}
	return k
}

// NewTermKeys starts a read of the categories and tags alone (AddTerm), for WithTerms.
func NewTermKeys() *Keys { return &Keys{} }

// MetaKeys are the meta keys a read of k's set reads, as the index spells them.
func (k *Keys) MetaKeys() []string { return k.metaKeys }

// AddMeta folds in one postmeta row, its key as the database matched it (under the collation).
func (k *Keys) AddMeta(id int64, key string, v sql.NullString) {
	k.addMeta(id, canonicalKey(key, k.metaKeys), v)
}

// AddOccurrence folds in one tec_occurrences row (a row without both dates matches nothing).
func (k *Keys) AddOccurrence(id int64, start, end sql.NullString) {
	if start.Valid && end.Valid {
		k.occ.add(id, newRow(start.String, end.String))
	}
}

// AddTerm folds in one term relationship of taxonomy (the category or tag taxonomy, as the database
// matched it).
func (k *Keys) AddTerm(id, term int64, taxonomy string) {
	if canonicalKey(taxonomy, taxonomies) == calendard.TaxonomyCategory {
		k.cols[idCats].add(id, term)
	} else {
		k.cols[idTags].add(id, term)
	}
}

// taxonomies are the taxonomies of the event terms the index reads.
var taxonomies = []string{calendard.TaxonomyCategory, calendard.TaxonomyTag}

// Done ends a read of meta keys: on a postmeta site the date meta rows become the events' date
// rows, every combination of a start and an end (the SQL joins them).
func (k *Keys) Done() {
	if k.mode.CustomTables || k.set == IDKeys {
		return
	}
	k.legacy = true
	for id, ss := range k.starts {
		es := k.ends[id]
		for _, s := range ss {
			for _, e := range es {
				k.rows[id] = append(k.rows[id], legacyRow(s, e, true, true))
			}
			if len(es) == 0 {
				k.rows[id] = append(k.rows[id], legacyRow(s, "", true, false))
			}
		}
	}
	for id, es := range k.ends {
		if len(k.starts[id]) == 0 {
			for _, e := range es {
				k.rows[id] = append(k.rows[id], legacyRow("", e, false, true))
			}
		}
	}
	k.starts, k.ends = nil, nil
}

// WithTerms makes terms' categories and tags those of k, whose own lists then hold only venues and
// organizers (a first build's second pass reads the two apart).
func (k *Keys) WithTerms(terms *Keys) {
	k.cols[idCats], k.cols[idTags] = terms.cols[idCats], terms.cols[idTags]
	k.termsApart = true
}

// KeySet is which keys a read of meta keys reads (NewKeys).
type KeySet uint8

const (
	AllKeys KeySet = iota // every key: flags, dates, venues and organizers
	// ListKeys is what a plain list needs: dates and the hidden flag. The featured flag waits with
	// the terms, venues and organizers: on a large MariaDB calendar its rows lie on most pages of
	// postmeta, so reading it took the first pass from under a second to several.
	ListKeys
	IDKeys // the featured flag, venues and organizers
)

// Replace puts fresh's keys of ids in place of k's.
func (k *Keys) Replace(ids []int64, fresh *Keys) {
	got := map[int64]*[idKinds][]int64{}
	fresh.eachIDs(func(id int64, lists *[idKinds][]int64) {
		l := *lists
		for kind := range l {
			l[kind] = slices.Clone(l[kind])
		}
		got[id] = &l
	})
	if k.fresh == nil {
		k.fresh, k.freshRows = map[int64]*[idKinds][]int64{}, map[int64]bool{}
	}
	occ := map[int64][]dateRow{}
	fresh.occ.each(func(id int64, rows []dateRow) { occ[id] = slices.Clone(rows) })
	for _, id := range ids {
		k.hidden[id], k.featured[id] = fresh.hidden[id], fresh.featured[id]
		k.rows[id] = append(slices.Clone(fresh.rows[id]), occ[id]...)
		k.freshRows[id] = true
		if k.fresh[id] = got[id]; k.fresh[id] == nil {
			k.fresh[id] = &[idKinds][]int64{}
		}
	}
}

// ApplyTo sets the keys of the events in out, packing rows and IDs into large blocks: a few
// allocations for the whole calendar instead of several per event, and the collector has that
// many fewer objects to mark.
func (k *Keys) ApplyTo(out map[int64]*Event) {
	var rowArena []dateRow
	setRows := func(e *Event, rows []dateRow) {
		if cap(rowArena)-len(rowArena) < len(rows) {
			rowArena = make([]dateRow, 0, max(len(rows), 8<<10))
		}
		from := len(rowArena)
		rowArena = append(rowArena, rows...)
		e.rows = rowArena[from:len(rowArena):len(rowArena)]
	}
	for id, e := range out {
		e.hidden, e.featured = k.hidden[id], k.featured[id]
		if rows := k.rows[id]; len(rows) > 0 {
			setRows(e, rows)
		}
		e.noIDs = k.noIDs
	}
	k.occ.each(func(id int64, rows []dateRow) {
		if e := out[id]; e != nil && !k.freshRows[id] {
			setRows(e, rows)
		}
	})
	if k.legacy {
		for _, e := range out {
			if len(e.rows) == 0 {
				setRows(e, []dateRow{legacyRow("", "", false, false)})
			}
		}
	}
	if k.noIDs {
		return
	}
	var idArena []int64
	k.eachIDs(func(id int64, l *[idKinds][]int64) {
		if e := out[id]; e != nil {
			e.setIDs(&idArena, l[idCats], l[idTags], l[idVenues], l[idOrgs])
		}
	})
}

// The kinds of ID an event lists, in the order Event.ids holds them.
const (
	idCats = iota
	idTags
	idVenues
	idOrgs
	idKinds
)

// eachIDs calls fn with the IDs of each post that has any (or was read again, Replace), in
// ascending post order, each kind in the order read. The lists are reused after fn returns.
func (k *Keys) eachIDs(fn func(id int64, lists *[idKinds][]int64)) {
	var at [idKinds]idCursor
	for kind := range k.cols {
		at[kind] = k.cols[kind].cursor()
	}
	fresh := make([]int64, 0, len(k.fresh))
	for id := range k.fresh {
		fresh = append(fresh, id)
	}
	slices.Sort(fresh)
	var lists [idKinds][]int64
	for {
		id, any := int64(0), false
		for kind := range at {
			if p, ok := at[kind].post(); ok && (!any || p < id) {
				id, any = p, true
			}
		}
		if len(fresh) > 0 && (!any || fresh[0] <= id) {
			id, any = fresh[0], true
		}
		if !any {
			return
		}
		for kind := range at {
			lists[kind] = at[kind].take(id, lists[kind][:0])
		}
		if len(fresh) > 0 && fresh[0] == id {
			fresh = fresh[1:]
			f := k.fresh[id]
			lists[idVenues], lists[idOrgs] = f[idVenues], f[idOrgs]
			if !k.termsApart {
				lists[idCats], lists[idTags] = f[idCats], f[idTags]
			}
		}
		fn(id, &lists)
	}
}

// postPair is one value of a post: an ID, or a date row.
type postPair[T any] struct {
	post int64
	v    T
}

// column holds (post, value) rows in the order read, in chunks of at most idChunk rows: a large
// read grows by whole chunks instead of copying everything read so far.
type column[T any] struct {
	chunks   [][]postPair[T]
	n        int
	last     int64
	unsorted bool // some post came after a greater one
}

// idColumn holds the IDs of one kind (Keys.cols).
type idColumn = column[int64]

const idChunk = 1 << 15

func (c *column[T]) add(post int64, v T) {
	if c.n > 0 && post < c.last {
		c.unsorted = true
	}
	c.last, c.n = post, c.n+1
	if len(c.chunks) == 0 || len(c.chunks[len(c.chunks)-1]) == idChunk {
		c.chunks = append(c.chunks, nil)
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, postPair[T]{post, v})
}

// cursor walks c in post order; rows of one post keep the order they were read in. A column read
// out of post order is sorted (once) first.
func (c *column[T]) cursor() cursor[T] {
	if c.unsorted {
		all := make([]postPair[T], 0, c.n)
		for _, ch := range c.chunks {
			all = append(all, ch...)
		}
		slices.SortStableFunc(all, func(a, b postPair[T]) int { return cmp.Compare(a.post, b.post) })
		c.chunks, c.unsorted = [][]postPair[T]{all}, false
	}
	return cursor[T]{chunks: c.chunks}
}

// each calls fn with each post's values, in post order (the list is reused after fn returns).
func (c *column[T]) each(fn func(post int64, vs []T)) {
	at := c.cursor()
	var vs []T
	for {
		p, ok := at.post()
		if !ok {
			return
		}
		vs = at.take(p, vs[:0])
		fn(p, vs)
	}
}

type cursor[T any] struct {
	chunks [][]postPair[T]
	i      int // the position in chunks[0]
}

type idCursor = cursor[int64]

// post is the post of the next row (ok false: none left).
func (c *cursor[T]) post() (int64, bool) {
	for len(c.chunks) > 0 && c.i == len(c.chunks[0]) {
		c.chunks, c.i = c.chunks[1:], 0
	}
	if len(c.chunks) == 0 {
		return 0, false
	}
	return c.chunks[0][c.i].post, true
}

// take appends the values of the next rows of post to dst.
func (c *cursor[T]) take(post int64, dst []T) []T {
	for {
		p, ok := c.post()
		if !ok || p != post {
			return dst
		}
		dst = append(dst, c.chunks[0][c.i].v)
		c.i++
	}
}

// addMeta folds one meta row (its key made canonical) into k.
func (k *Keys) addMeta(id int64, key string, v sql.NullString) {
	switch key {
	case metaHidden:
		k.hidden[id] = true
	case metaFeatured:
		k.featured[id] = true
	case metaVenue:
		if v.Valid { // CAST(NULL) is NULL, never IN (...)
			k.cols[idVenues].add(id, mysqlcast.Signed(v.String))
		}
	case metaOrganizer:
		if v.Valid {
			k.cols[idOrgs].add(id, mysqlcast.Signed(v.String))
		}
	case k.startKey:
		if v.Valid {
			k.starts[id] = append(k.starts[id], v.String)
		}
	case k.endKey:
		if v.Valid {
			k.ends[id] = append(k.ends[id], v.String)
		}
	}
}

// canonicalKey maps a key the database matched under its collation to the spelling asked for.
func canonicalKey(k string, keys []string) string {
	for _, want := range keys {
		if k == want {
			return want
		}
	}
	for _, want := range keys {
		if collation.Compare(k, want) == 0 {
			return want
		}
	}
	return k
}
