package eventindex

import (
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/collation"
	"github.com/calendard/calendard/internal/mysqlcast"
)

// The records: an event's list keys (Event), its date rows, its folded search text, and the
// builders a Source fills them through (Posts, Texts).

// Mode is what decides which dates an index holds.
type Mode struct {
	CustomTables bool // dates from tec_occurrences (else _EventStartDate/_EventEndDate meta)
	UTC          bool // the site's "site" timezone mode: UTC columns
}

// ModeOf is the mode of the site's settings.
func ModeOf(site *calendard.Site) Mode {
	return Mode{CustomTables: site.UseCustomTables, UTC: site.TimezoneModeSite}
}

// dateRow is one (start, end) pair an event can match with: an occurrence row, or one combination
// of start and end meta rows (the SQL joins them, so every combination is a row).
type dateRow struct {
	startN, endN int64 // packed YYYYMMDDhhmmss when the text is a regular datetime
	// irr holds the texts of a row that is not two regular datetimes (nil: regular). A regular
	// row's texts are its packed dates written out (mysqlcast.Unpack), so they are not kept.
	irr *rowText
}

type rowText struct {
	start, end string
	// legacy marks a row of meta dates (postmeta snapshot): startN and endN hold the values
	// MariaDB's CAST compares (legacyAbsent: no such meta), the texts decide the sort value.
	legacy bool
}

// legacyAbsent stands for a missing start or end meta row in a legacy row.
const legacyAbsent = -1

// legacyRow is one (start, end) combination of an event's date meta on a postmeta site; a
// missing side (no row of the key) is absent. Two texts in the plugin's own form, a real date
// for the start, are a regular row: MariaDB reads them as their digits.
func legacyRow(start, end string, hasStart, hasEnd bool) dateRow {
	if hasStart && hasEnd {
		sp, sReg := mysqlcast.Pack(start)
		ep, eReg := mysqlcast.Pack(end)
		sn, sOK, sValid := mysqlcast.Datetime(start)
		en, eOK, _ := mysqlcast.Datetime(end)
		if sReg && eReg && sOK && eOK && sValid && sp == sn && ep == en {
			return dateRow{startN: sn, endN: en}
		}
	}
	r := dateRow{startN: legacyAbsent, endN: legacyAbsent, irr: &rowText{legacy: true}}
	if hasStart {
		r.startN, r.irr.start = mysqlcast.DatetimeCompared(start), strings.Clone(start)
	}
	if hasEnd {
		r.endN, r.irr.end = mysqlcast.DatetimeCompared(end), strings.Clone(end)
	}
	return r
}

// legacyStart is the row's start as CAST(... AS DATETIME) sorts it: null for no row or no date.
func (r *dateRow) legacyStart() (n int64, null bool) {
	if r.irr == nil {
		return r.startN, false
	}
	if r.startN == legacyAbsent {
		return 0, true
	}
	n, _, valid := mysqlcast.Datetime(r.irr.start)
	if !valid {
		return 0, true // NULLs tie
	}
	return n, false
}

func (r *dateRow) regular() bool { return r.irr == nil }

func (r *dateRow) startText() string {
	if r.irr != nil {
		return r.irr.start
	}
	return mysqlcast.Unpack(r.startN)
}

// Event is the list key of one tribe_events post. Its fields are ordered to leave no padding:
// the index holds one per event.
type Event struct {
	id        int64
	postDateN int64
	parent    int64
	rows      []dateRow
	// ids holds the event's categories, tags, venues (CAST(meta_value AS SIGNED) of every
	// _EventVenueID row) and organizers in one slice, split at nCats, nTags and nVenues: one
	// allocation instead of four, a third of the slice headers (see setIDs).
	ids []int64
	// text is the title and excerpt folded for LIKE (collation.LikeFold), each followed by a byte
	// that no folded text holds, and body the content folded: a search term matches within one
	// column as LIKE does. Events of equal content share one body (textPacker.addShared).
	text, body string
	// rare is the spelling of a status past the 255 interned ones (statusID rareStatus), else nil:
	// the common statuses are their code alone.
	rare                  *string
	nCats, nTags, nVenues uint32
	statusID              uint8 // statusCode(status)
	hidden                bool  // _EventHideFromUpcoming exists: never listed
	featured              bool  // _tribe_featured exists
	password              bool  // post_password <> '' (PAD SPACE: spaces alone are no password)
	noText                bool  // text is not loaded yet (a first build's first pass)
	noIDs                 bool  // ids are not loaded yet (a first build's first pass)
}

// setStatus stores the event's post_status as its interned code.
func (e *Event) setStatus(st string) {
	e.statusID, e.rare = internStatus(st)
}

// status is the event's post_status.
func (e *Event) status() string {
	if e.rare != nil {
		return *e.rare
	}
	return statusName(e.statusID)
}

func (e *Event) cats() []int64 { return e.ids[:e.nCats:e.nCats] }

func (e *Event) tags() []int64 {
	return e.ids[e.nCats : e.nCats+e.nTags : e.nCats+e.nTags]
}

func (e *Event) venues() []int64 {
	return e.ids[e.nCats+e.nTags : e.nCats+e.nTags+e.nVenues : e.nCats+e.nTags+e.nVenues]
}

func (e *Event) orgs() []int64 { return e.ids[e.nCats+e.nTags+e.nVenues:] }

// setIDs stores the four ID lists in one slice, taken from arena when it has room (a build packs
// every event's IDs into a few large blocks).
func (e *Event) setIDs(arena *[]int64, cats, tags, venues, orgs []int64) {
	n := len(cats) + len(tags) + len(venues) + len(orgs)
	if n == 0 {
		e.ids, e.nCats, e.nTags, e.nVenues = nil, 0, 0, 0
		return
	}
	var ids []int64
	if arena != nil {
		if cap(*arena)-len(*arena) < n {
			*arena = make([]int64, 0, max(n, 16<<10))
		}
		from := len(*arena)
		*arena = append(append(append(append(*arena, cats...), tags...), venues...), orgs...)
		ids = (*arena)[from:len(*arena):len(*arena)]
	} else {
		ids = append(append(append(append(make([]int64, 0, n), cats...), tags...), venues...), orgs...)
	}
	e.ids, e.nCats, e.nTags, e.nVenues = ids, uint32(len(cats)), uint32(len(tags)), uint32(len(venues))
}

// gramMask is a 256-bit set of hashed byte pairs. A text can contain a term only if its mask holds
// every bit of the term's: one AND per word rules out almost every event that lacks the term, and
// strings.Contains decides the rest.
type gramMask [4]uint64

func gramsOf[T string | []byte](s T) gramMask {
	var m gramMask
	for i := 0; i+1 < len(s); i++ {
		h := (uint32(s[i])*31 + uint32(s[i+1])) * 2654435761 >> 24 // 0..255
		m[h>>6] |= 1 << (h & 63)
	}
	return m
}

func (m *gramMask) holds(t *gramMask) bool {
	return m[0]&t[0] == t[0] && m[1]&t[1] == t[1] && m[2]&t[2] == t[2] && m[3]&t[3] == t[3]
}

// gramMask is the byte pairs of the event's search text.
func (e *Event) gramMask() gramMask {
	m, b := gramsOf(e.text), gramsOf(e.body)
	for k := range m {
		m[k] |= b[k]
	}
	return m
}

// hasText reports whether the event's title, excerpt or content holds the folded term.
func (e *Event) hasText(term string) bool {
	return strings.Contains(e.text, term) || strings.Contains(e.body, term)
}

// searchSep ends each column in Event.text: 0xFF never occurs in UTF-8.
const searchSep = "\xff"

// appendSearchHead appends an event's Event.text (its title and excerpt, folded) to dst: a build
// folds every event into one reused buffer and keeps only the result.
func appendSearchHead(dst []byte, title, excerpt string) []byte {
	dst = collation.LikeFoldAppend(dst, title)
	dst = append(dst, searchSep...)
	dst = collation.LikeFoldAppend(dst, excerpt)
	return append(dst, searchSep...)
}

// textPacker stores many short texts as substrings of a few large strings (textBlock bytes each):
// the search text of a whole calendar is then a few dozen objects instead of one per event, so the
// collector has that many fewer to mark and no text pays its size class's rounding. A substring
// shares its block's memory, so a block lives while any of its texts does: a full build replaces
// every event, and a patch's few events get strings of their own.
//
// addShared stores a text equal to one added shortly before (the last sharedTexts distinct ones)
// only once: events of a series, or of a template, mostly have the same description.
type textPacker struct {
	buf     []byte
	pending []packedText
	set     func(i int, s string) // gives text i its string once its block is made
	// seen maps the hash of a shared text to its string once made, pendingSeen to its place in
	// pending before; aliases are texts given another's string when it is made.
	seen        map[uint64]string
	pendingSeen map[uint64]int
	aliases     []packedText // i gets pending[from]'s string
}

type packedText struct{ i, from, to int }

const (
	textBlock   = 256 << 10
	sharedTexts = 1 << 16
)

// add appends text i (folded bytes, copied) to the current block.
func (p *textPacker) add(i int, b []byte) {
	if len(p.buf)+len(b) > textBlock && len(p.buf) > 0 {
		p.flush()
	}
	if p.buf == nil {
		p.buf = make([]byte, 0, max(textBlock, len(b)))
	}
	from := len(p.buf)
	p.buf = append(p.buf, b...)
	p.pending = append(p.pending, packedText{i, from, len(p.buf)})
}

// addShared is add for a text that equal texts may share.
func (p *textPacker) addShared(i int, b []byte) {
	if len(b) == 0 {
		p.set(i, "")
		return
	}
	if p.seen == nil {
		p.seen, p.pendingSeen = map[uint64]string{}, map[uint64]int{}
	}
	h := xxhash.Sum64(b)
	if s, ok := p.seen[h]; ok && s == string(b) {
		p.set(i, s)
		return
	}
	if k, ok := p.pendingSeen[h]; ok {
		if t := p.pending[k]; string(p.buf[t.from:t.to]) == string(b) {
			p.aliases = append(p.aliases, packedText{i: i, from: k})
			return
		}
	}
	if len(p.buf)+len(b) > textBlock && len(p.buf) > 0 {
		p.flush()
	}
	if len(p.seen)+len(p.pendingSeen) >= sharedTexts {
		clear(p.seen)
	}
	p.pendingSeen[h] = len(p.pending)
	p.add(i, b)
}

// flush makes the current block's string and hands out its texts; call it once after the last add.
func (p *textPacker) flush() {
	if len(p.pending) == 0 {
		return
	}
	block := string(p.buf)
	for _, t := range p.pending {
		p.set(t.i, block[t.from:t.to])
	}
	for _, a := range p.aliases {
		t := p.pending[a.from]
		p.set(a.i, block[t.from:t.to])
	}
	for h, k := range p.pendingSeen {
		t := p.pending[k]
		p.seen[h] = block[t.from:t.to]
	}
	clear(p.pendingSeen)
	p.buf, p.pending, p.aliases = p.buf[:0], p.pending[:0], p.aliases[:0]
}

// simple reports whether the event sorts by one regular row wherever a filter leaves it.
func (e *Event) simple() bool { return len(e.rows) == 1 && e.rows[0].regular() }

func newRow(start, end string) dateRow {
	sn, ok1 := mysqlcast.Pack(start)
	en, ok2 := mysqlcast.Pack(end)
	if ok1 && ok2 {
		return dateRow{startN: sn, endN: en}
	}
	return dateRow{startN: sn, endN: en, irr: &rowText{start: strings.Clone(start), end: strings.Clone(end)}}
}

// Posts collects the event posts a Source reads, a row at a time. The events are allocated in slabs
// and their texts packed into blocks (textPacker): a whole calendar is a few hundred objects for the
// collector to mark, not several per event.
type Posts struct {
	out              map[int64]*Event
	slab             []Event
	texts            []*Event
	heads, bodies    textPacker
	headBuf, bodyBuf []byte
	withText         bool
}

// NewPosts starts a read of posts; withText folds their search text (without it the events are
// noText: a first build's first pass).
func NewPosts(withText bool) *Posts {
	p := &Posts{out: map[int64]*Event{}, withText: withText}
	p.heads.set = func(i int, s string) { p.texts[i].text = s }
	p.bodies.set = func(i int, s string) { p.texts[i].body = s }
	return p
}

// Add adds one event post; title, excerpt and content are read only withText.
func (p *Posts) Add(id int64, status, postDate string, parent int64, password, title, excerpt, content string) {
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]Event, 0, min(max(len(p.out), 16), 4096))
	}
	p.slab = p.slab[:len(p.slab)+1]
	e := &p.slab[len(p.slab)-1]
	e.id, e.parent = id, parent
	e.setStatus(status)
	if p.withText {
		p.headBuf = appendSearchHead(p.headBuf[:0], title, excerpt)
		p.bodyBuf = collation.LikeFoldAppend(p.bodyBuf[:0], content)
		p.texts = append(p.texts, e)
		p.heads.add(len(p.texts)-1, p.headBuf)
		p.bodies.addShared(len(p.texts)-1, p.bodyBuf)
	} else {
		e.noText = true
	}
	e.password = password != "" && collation.Compare(password, "") != 0
	e.postDateN, _ = mysqlcast.Pack(postDate)
	p.out[e.id] = e
}

// Events returns the events added, by ID; call it once, after the last Add.
func (p *Posts) Events() map[int64]*Event {
	p.heads.flush()
	p.bodies.flush()
	return p.out
}

// Text is an event's folded search text (a first build's third pass).
type Text struct {
	id         int64
	text, body string
}

// Texts collects the search texts a Source reads, packed into blocks (textPacker).
type Texts struct {
	out              []Text
	heads, bodies    textPacker
	headBuf, bodyBuf []byte
}

// NewTexts starts a read of search texts.
func NewTexts() *Texts {
	t := &Texts{}
	t.heads.set = func(i int, s string) { t.out[i].text = s }
	t.bodies.set = func(i int, s string) { t.out[i].body = s }
	return t
}

// Add folds one event's title, excerpt and content.
func (t *Texts) Add(id int64, title, excerpt, content string) {
	t.out = append(t.out, Text{id: id})
	t.headBuf = appendSearchHead(t.headBuf[:0], title, excerpt)
	t.bodyBuf = collation.LikeFoldAppend(t.bodyBuf[:0], content)
	t.heads.add(len(t.out)-1, t.headBuf)
	t.bodies.addShared(len(t.out)-1, t.bodyBuf)
}

// Texts returns the texts added; call it once, after the last Add.
func (t *Texts) Texts() []Text {
	t.heads.flush()
	t.bodies.flush()
	return t.out
}
