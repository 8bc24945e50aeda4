package eventindex

import (
	"database/sql"

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
	lists            idListsByEvent
	// termLists, when set, holds the categories and tags (read apart from the meta keys, see
	// WithTerms); lists then holds only venues and organizers.
	termLists idListsByEvent
	// last and lastID remember listsOf's last answer: rows come grouped by post (relationships in
	// their primary key's order, meta by key then post), so most rows skip the map.
	last   *idLists
	lastID int64
	rows   map[int64][]dateRow
	// legacy: a postmeta snapshot, where an event without date meta still lists (no bound joins
	// it), as one row with neither date.
	legacy bool
	// noIDs: the terms, venues and organizers were not read (a first pass, ListKeys).
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
	k := &Keys{hidden: map[int64]bool{}, featured: map[int64]bool{}, lists: idListsByEvent{}, rows: map[int64][]dateRow{},
		mode: mode, set: set, noIDs: set == ListKeys, starts: map[int64][]string{}, ends: map[int64][]string{}}
	k.startKey, k.endKey = "_EventStartDate", "_EventEndDate"
	if mode.UTC {
		k.startKey, k.endKey = "_EventStartDateUTC", "_EventEndDateUTC"
	}
	if set != IDKeys {
		k.metaKeys = append(k.metaKeys, metaHidden, metaFeatured)
	}
	if set != ListKeys {
		k.metaKeys = append(k.metaKeys, metaVenue, metaOrganizer)
	}
	if !mode.CustomTables && set != IDKeys {
		k.metaKeys = append(k.metaKeys, k.startKey, k.endKey)
	}
	return k
}

// NewTermKeys starts a read of the categories and tags alone (AddTerm), for WithTerms.
func NewTermKeys() *Keys { return &Keys{lists: idListsByEvent{}} }

// MetaKeys are the meta keys a read of k's set reads, as the index spells them.
func (k *Keys) MetaKeys() []string { return k.metaKeys }

// AddMeta folds in one postmeta row, its key as the database matched it (under the collation).
func (k *Keys) AddMeta(id int64, key string, v sql.NullString) {
	k.addMeta(id, canonicalKey(key, k.metaKeys), v)
}

// AddOccurrence folds in one tec_occurrences row (a row without both dates matches nothing).
func (k *Keys) AddOccurrence(id int64, start, end sql.NullString) {
	if start.Valid && end.Valid {
		k.rows[id] = append(k.rows[id], newRow(start.String, end.String))
	}
}

// AddTerm folds in one term relationship of taxonomy (the category or tag taxonomy, as the database
// matched it).
func (k *Keys) AddTerm(id, term int64, taxonomy string) {
	l := k.listsOf(id)
	if canonicalKey(taxonomy, taxonomies) == calendard.TaxonomyCategory {
		l.cats = append(l.cats, term)
	} else {
		l.tags = append(l.tags, term)
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
func (k *Keys) WithTerms(terms *Keys) { k.termLists = terms.lists }

// KeySet is which keys a read of meta keys reads (NewKeys).
type KeySet uint8

const (
	AllKeys  KeySet = iota // every key: flags, dates, venues and organizers
	ListKeys               // what a plain list needs: dates, hidden, featured (no terms, venues, organizers)
	IDKeys                 // venues and organizers alone
)

// Replace puts fresh's keys of ids in place of k's.
func (k *Keys) Replace(ids []int64, fresh *Keys) {
	k.last = nil
	for _, id := range ids {
		k.hidden[id], k.featured[id] = fresh.hidden[id], fresh.featured[id]
		k.lists[id], k.rows[id] = fresh.lists[id], fresh.rows[id]
		if k.termLists != nil {
			k.termLists[id] = fresh.lists[id]
		}
	}
}

// ApplyTo sets the keys of the events in out, packing rows and IDs into large blocks: a few
// allocations for the whole calendar instead of several per event, and the collector has that
// many fewer objects to mark.
func (k *Keys) ApplyTo(out map[int64]*Event) {
	var idArena []int64
	var rowArena []dateRow
	for id, e := range out {
		e.hidden, e.featured = k.hidden[id], k.featured[id]
		rows := k.rows[id]
		if len(rows) == 0 && k.legacy {
			rows = []dateRow{legacyRow("", "", false, false)}
		}
		if len(rows) > 0 {
			if cap(rowArena)-len(rowArena) < len(rows) {
				rowArena = make([]dateRow, 0, max(len(rows), 8<<10))
			}
			from := len(rowArena)
			rowArena = append(rowArena, rows...)
			e.rows = rowArena[from:len(rowArena):len(rowArena)]
		}
		if k.noIDs {
			e.noIDs = true
			continue
		}
		cats, tags, venues, orgs := k.idsOf(id)
		e.setIDs(&idArena, cats, tags, venues, orgs)
	}
}

// idsOf is the event's categories, tags, venues and organizers as read.
func (k *Keys) idsOf(id int64) (cats, tags, venues, orgs []int64) {
	l, t := k.lists[id], k.lists[id]
	if k.termLists != nil {
		t = k.termLists[id]
	}
	if l != nil {
		venues, orgs = l.venues, l.orgs
	}
	if t != nil {
		cats, tags = t.cats, t.tags
	}
	return cats, tags, venues, orgs
}

// idLists collects an event's IDs while the build reads them.
type idLists struct{ cats, tags, venues, orgs []int64 }

type idListsByEvent map[int64]*idLists

// listsOf is k.lists.of(id), remembering the last one.
func (k *Keys) listsOf(id int64) *idLists {
	if k.last == nil || k.lastID != id {
		k.last, k.lastID = k.lists.of(id), id
	}
	return k.last
}

func (m idListsByEvent) of(id int64) *idLists {
	l := m[id]
	if l == nil {
		l = &idLists{}
		m[id] = l
	}
	return l
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
			l := k.listsOf(id)
			l.venues = append(l.venues, mysqlcast.Signed(v.String))
		}
	case metaOrganizer:
		if v.Valid {
			l := k.listsOf(id)
			l.orgs = append(l.orgs, mysqlcast.Signed(v.String))
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
