package eventindex

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// The index file's format. A restart at a million events must be serving within a few seconds, so
// the file is laid out as the compiled snapshot wants its data: fixed-width columns read in large
// chunks, the events already in list order with their byte pairs (no sort, no text scan at load),
// every event's IDs in one array and the search text in two blobs that the events' strings point
// into (no per-event allocation). Equal descriptions are stored once.
//
// Layout: the magic, then the head (length and fields, varints: mode, mark, counts), then the
// sections at offsets the counts fix, then a trailer of one xxhash per part (head and sections)
// and the trailer's own hash. A file whose size, any hash or any count does not agree is not
// used; so is one whose events are not in the order a compile gives them.
//
//	statuses  the distinct post_status spellings (varint-prefixed strings)
//	events    fileEventSize bytes per event: main list order, then the irregular ones by ID, then the rest by ID
//	rows      16 bytes per date row (start, end packed)
//	irr       the texts of the irregular rows (row index, legacy, start, end)
//	ids       8 bytes per category, tag, venue and organizer ID
//	grams     32 bytes per event of the main list (its byte pairs)
//	heads     the events' title and excerpt text, one after the other
//	bodyEnds  8 bytes per distinct body: where it ends in bodies
//	bodies    the distinct bodies, one after the other
const fileMagic = "calendard event index v7\n"

const (
	fileEventSize = 64
	fileRowSize   = 16
	fileGramSize  = 32
	fileChunk     = 1 << 20 // a multiple of every record size
)

// section numbers, in file order.
const (
	secStatuses = iota
	secEvents
	secRows
	secIrr
	secIDs
	secGrams
	secHeads
	secBodyEnds
	secBodies
	numSections
)

// event record flags.
const (
	flagHidden = 1 << iota
	flagFeatured
	flagPassword
	flagNoText
	flagNoIDs
	flagsKnown = 1<<iota - 1
)

// fileHead is what the head holds: the mode, the mark and every section's size.
type fileHead struct {
	mode                                  Mode
	mark                                  Mark
	n, nMain, nSlow, nRows, nIDs, nBodies int64
	size                                  [numSections]int64 // bytes
}

// maxFileCount bounds every count read from a head before anything is allocated from it.
const maxFileCount = 1 << 40

func (h *fileHead) encode() []byte {
	b := []byte(fileMagic)
	var body []byte
	body = append(body, boolByte(h.mode.CustomTables), boolByte(h.mode.UTC))
	body = binary.AppendUvarint(body, uint64(len(h.mark)))
	body = append(body, h.mark...)
	for _, v := range []int64{h.n, h.nMain, h.nSlow, h.nRows, h.nIDs, h.nBodies} {
		body = binary.AppendUvarint(body, uint64(v))
	}
	for _, v := range h.size {
		body = binary.AppendUvarint(body, uint64(v))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(body)))
	return append(b, body...)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// decodeHead parses a head's fields and checks that the counts agree with the fixed sections' sizes.
func decodeHead(body []byte) (*fileHead, error) {
	h := &fileHead{}
	d := varints{b: body}
	h.mode.CustomTables, h.mode.UTC = d.byte() == 1, d.byte() == 1
	h.mark = Mark(d.bytes(d.uint()))
	for _, p := range []*int64{&h.n, &h.nMain, &h.nSlow, &h.nRows, &h.nIDs, &h.nBodies} {
		*p = d.int()
	}
	for i := range h.size {
		h.size[i] = d.int()
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errors.New("bad head")
	}
	if h.nMain+h.nSlow > h.n ||
		h.size[secEvents] != h.n*fileEventSize || h.size[secRows] != h.nRows*fileRowSize ||
		h.size[secIDs] != h.nIDs*8 || h.size[secGrams] != h.nMain*fileGramSize || h.size[secBodyEnds] != h.nBodies*8 ||
		h.nBodies < 1 {
		return nil, errors.New("head counts disagree")
	}
	return h, nil
}

// varints decodes a varint-coded byte slice; the first failure sticks.
type varints struct {
	b   []byte
	err error
}

func (d *varints) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int is a count: a uint bounded by maxFileCount.
func (d *varints) int() int64 {
	v := d.uint()
	if v > maxFileCount {
		d.err = cmp.Or(d.err, errors.New("count out of range"))
		return 0
	}
	return int64(v)
}

func (d *varints) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = cmp.Or(d.err, io.ErrUnexpectedEOF)
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *varints) bytes(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = cmp.Or(d.err, io.ErrUnexpectedEOF)
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *varints) str() string { return string(d.bytes(d.uint())) }

// fileOrder is the order the file keeps events in: the main list in list order (as compile sorts
// it), the irregular events by ID, then the events no list shows, by ID. It runs beside a live
// index, often at the first build's peak, so it sorts the pointers in place (no copies of the keys
// as sortMain makes: the write is in the background, memory is the scarcer).
func fileOrder(events map[int64]*Event) (order []*Event, nMain, nSlow int) {
	for _, e := range events {
		if m, ok := listable(e); ok && m {
			nMain++
		} else if ok {
			nSlow++
		}
	}
	order = make([]*Event, len(events))
	m, sl, r := 0, nMain, nMain+nSlow
	for _, e := range events {
		switch main, ok := listable(e); {
		case ok && main:
			order[m] = e
			m++
		case ok:
			order[sl] = e
			sl++
		default:
			order[r] = e
			r++
		}
	}
	byID := func(a, b *Event) int { return cmp.Compare(a.id, b.id) }
	slices.SortFunc(order[:nMain], mainOrder)
	slices.SortFunc(order[nMain:nMain+nSlow], byID)
	slices.SortFunc(order[nMain+nSlow:], byID)
	return order, nMain, nSlow
}

// writeIndexFile writes img to a temporary file next to path and renames it into place, so a
// reader never sees half a file.
func writeIndexFile(path string, img *image) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := encodeIndexFile(tmp, img); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// bodyKey names a body by its bytes' address: a build stores equal descriptions once
// (textPacker.addShared), so most equal bodies share one address and are written once.
type bodyKey struct {
	p *byte
	n int
}

// maxBodyKeys bounds the writer's table of bodies seen: past it the table starts again (a body
// then may be written twice, which costs bytes, not correctness).
const maxBodyKeys = 1 << 16

// fileText is the writer's first pass: what the variable sections hold, and their sizes.
type fileText struct {
	statuses  []string
	statusIdx map[string]uint32
	irr       []byte
	bodies    []string // distinct bodies, the first ""
	bodyOf    []uint32 // by position in the file's order
	headBytes int64
	bodyBytes int64
}

func scanText(order []*Event, h *fileHead) *fileText {
	t := &fileText{statusIdx: map[string]uint32{}, bodies: []string{""}, bodyOf: make([]uint32, len(order))}
	seen := map[bodyKey]uint32{}
	row := uint64(0)
	lastIrr := uint64(0)
	for i, e := range order {
		st := e.status()
		if _, ok := t.statusIdx[st]; !ok {
			t.statusIdx[st] = uint32(len(t.statuses))
			t.statuses = append(t.statuses, st)
		}
		for _, r := range e.rows {
			if r.irr != nil {
				t.irr = binary.AppendUvarint(t.irr, row-lastIrr)
				lastIrr = row
				t.irr = append(t.irr, boolByte(r.irr.legacy))
				t.irr = appendStr(appendStr(t.irr, r.irr.start), r.irr.end)
			}
			row++
		}
		h.nIDs += int64(len(e.ids))
		t.headBytes += int64(len(e.text))
		if len(e.body) > 0 {
			k := bodyKey{unsafe.StringData(e.body), len(e.body)}
			b, ok := seen[k]
			if !ok {
				if len(seen) >= maxBodyKeys {
					clear(seen)
				}
				b = uint32(len(t.bodies))
				seen[k] = b
				t.bodies = append(t.bodies, e.body)
				t.bodyBytes += int64(len(e.body))
			}
			t.bodyOf[i] = b
		}
	}
	h.nRows = int64(row)
	h.nBodies = int64(len(t.bodies))
	return t
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// hashWriter writes to w and hashes what it wrote since the last sum.
type hashWriter struct {
	w   *bufio.Writer
	d   *xxhash.Digest
	n   int64
	err error
}

func (w *hashWriter) write(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
		_, _ = w.d.Write(b)
		w.n += int64(len(b))
	}
}

func (w *hashWriter) writeString(s string) {
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
		_, _ = w.d.WriteString(s)
		w.n += int64(len(s))
	}
}

// sum ends a part: its hash, after checking it had the size the head announced.
func (w *hashWriter) sum(size int64) uint64 {
	if w.err == nil && w.n != size {
		w.err = fmt.Errorf("index file part of %d bytes, %d announced", w.n, size)
	}
	s := w.d.Sum64()
	w.d.Reset()
	w.n = 0
	return s
}

// encodeIndexFile writes img in the file format.
func encodeIndexFile(f io.Writer, img *image) error {
	order, nMain, nSlow := fileOrder(img.events)
	h := &fileHead{mode: img.mode, mark: img.mark, n: int64(len(order)), nMain: int64(nMain), nSlow: int64(nSlow)}
	t := scanText(order, h)
	var statuses []byte
	for _, s := range t.statuses {
		statuses = appendStr(statuses, s)
	}
	h.size = [numSections]int64{secStatuses: int64(len(statuses)), secEvents: h.n * fileEventSize, secRows: h.nRows * fileRowSize,
		secIrr: int64(len(t.irr)), secIDs: h.nIDs * 8, secGrams: h.nMain * fileGramSize, secHeads: t.headBytes,
		secBodyEnds: h.nBodies * 8, secBodies: t.bodyBytes}
	w := &hashWriter{w: bufio.NewWriterSize(f, 1<<20), d: xxhash.New()}
	var sums [numSections + 1]uint64
	head := h.encode()
	w.write(head)
	sums[0] = w.sum(int64(len(head)))
	w.write(statuses)
	sums[1+secStatuses] = w.sum(h.size[secStatuses])
	var rec [fileEventSize]byte
	le := binary.LittleEndian
	headEnd := uint64(0)
	for i, e := range order {
		headEnd += uint64(len(e.text))
		flags := uint32(0)
		for bit, on := range [...]bool{e.hidden, e.featured, e.password, e.noText, e.noIDs} {
			if on {
				flags |= 1 << bit
			}
		}
		le.PutUint64(rec[0:], uint64(e.id))
		le.PutUint64(rec[8:], uint64(e.postDateN))
		le.PutUint64(rec[16:], uint64(e.parent))
		le.PutUint64(rec[24:], headEnd)
		le.PutUint32(rec[32:], t.statusIdx[e.status()])
		le.PutUint32(rec[36:], t.bodyOf[i])
		le.PutUint32(rec[40:], uint32(len(e.rows)))
		le.PutUint32(rec[44:], e.nCats)
		le.PutUint32(rec[48:], e.nTags)
		le.PutUint32(rec[52:], e.nVenues)
		le.PutUint32(rec[56:], uint32(len(e.ids)))
		le.PutUint32(rec[60:], flags)
		w.write(rec[:])
	}
	sums[1+secEvents] = w.sum(h.size[secEvents])
	for _, e := range order {
		for _, r := range e.rows {
			le.PutUint64(rec[0:], uint64(r.startN))
			le.PutUint64(rec[8:], uint64(r.endN))
			w.write(rec[:fileRowSize])
		}
	}
	sums[1+secRows] = w.sum(h.size[secRows])
	w.write(t.irr)
	sums[1+secIrr] = w.sum(h.size[secIrr])
	for _, e := range order {
		for _, id := range e.ids {
			w.write(le.AppendUint64(rec[:0], uint64(id)))
		}
	}
	sums[1+secIDs] = w.sum(h.size[secIDs])
	for _, e := range order[:nMain] {
		g := e.gramMask()
		for k, v := range g {
			le.PutUint64(rec[8*k:], v)
		}
		w.write(rec[:fileGramSize])
	}
	sums[1+secGrams] = w.sum(h.size[secGrams])
	for _, e := range order {
		w.writeString(e.text)
	}
	sums[1+secHeads] = w.sum(h.size[secHeads])
	end := uint64(0)
	for _, b := range t.bodies {
		end += uint64(len(b))
		w.write(le.AppendUint64(rec[:0], end))
	}
	sums[1+secBodyEnds] = w.sum(h.size[secBodyEnds])
	for _, b := range t.bodies {
		w.writeString(b)
	}
	sums[1+secBodies] = w.sum(h.size[secBodies])
	var trailer []byte
	for _, s := range sums {
		trailer = le.AppendUint64(trailer, s)
	}
	trailer = le.AppendUint64(trailer, xxhash.Sum64(trailer))
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(trailer); err != nil {
		return err
	}
	return w.w.Flush()
}

const trailerSize = (numSections + 2) * 8

// loaded is what a file gives: the events and the compiled order they were written in.
type loaded struct {
	mode             Mode
	mark             Mark
	events           []Event // in the file's order (fileOrder)
	nMain, nSlow     int
	grams            []gramMask
	textless, idless bool
}

// readIndexFile reads and checks an index file.
func readIndexFile(path string) (*loaded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readIndex(f, st.Size())
}

// readIndex reads and checks the index file f of size bytes.
func readIndex(f io.ReaderAt, size int64) (*loaded, error) {
	r := &fileReader{f: f}
	h, headBytes, err := r.head()
	if err != nil {
		return nil, err
	}
	var off [numSections + 1]int64
	off[0] = int64(len(headBytes))
	for i, n := range h.size {
		off[i+1] = off[i] + n
	}
	if size != off[numSections]+trailerSize {
		return nil, fmt.Errorf("%d bytes, %d expected", size, off[numSections]+trailerSize)
	}
	trailer, err := r.readAt(off[numSections], trailerSize)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	if xxhash.Sum64(trailer[:trailerSize-8]) != le.Uint64(trailer[trailerSize-8:]) {
		return nil, errors.New("bad trailer")
	}
	for i := range r.sums {
		r.sums[i] = le.Uint64(trailer[8*i:])
	}
	if xxhash.Sum64(headBytes) != r.sums[0] {
		return nil, errors.New("bad head")
	}
	r.h, r.off = h, off
	return r.read()
}

// fileReader reads the parts of one file; the sections' hashes are checked as they are read.
type fileReader struct {
	f    io.ReaderAt
	h    *fileHead
	off  [numSections + 1]int64
	sums [numSections + 1]uint64
}

func (r *fileReader) readAt(off, n int64) ([]byte, error) {
	b := make([]byte, n)
	if _, err := r.f.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// head reads the magic and the head, returning the head's bytes as hashed.
func (r *fileReader) head() (*fileHead, []byte, error) {
	pre, err := r.readAt(0, int64(len(fileMagic))+8)
	if err != nil || string(pre[:len(fileMagic)]) != fileMagic {
		return nil, nil, errors.New("not an index file of this version")
	}
	n := binary.LittleEndian.Uint64(pre[len(fileMagic):])
	if n > 1<<20 {
		return nil, nil, errors.New("bad head length")
	}
	body, err := r.readAt(int64(len(pre)), int64(n))
	if err != nil {
		return nil, nil, err
	}
	h, err := decodeHead(body)
	return h, append(pre, body...), err
}

// whole reads section sec at once and checks its hash.
func (r *fileReader) whole(sec int) ([]byte, error) {
	b, err := r.readAt(r.off[sec], r.h.size[sec])
	if err != nil {
		return nil, err
	}
	if xxhash.Sum64(b) != r.sums[1+sec] {
		return nil, fmt.Errorf("section %d: bad hash", sec)
	}
	return b, nil
}

// chunks reads section sec a chunk at a time (whole records of size each), checks its hash, and
// hands each chunk to use with the number of the chunk's first record.
func (r *fileReader) chunks(sec int, size int, use func(first int, b []byte) error) error {
	d := xxhash.New()
	buf := make([]byte, min(fileChunk, r.h.size[sec]))
	for at := int64(0); at < r.h.size[sec]; {
		b := buf[:min(int64(len(buf)), r.h.size[sec]-at)]
		if _, err := r.f.ReadAt(b, r.off[sec]+at); err != nil {
			return err
		}
		_, _ = d.Write(b)
		if err := use(int(at/int64(size)), b); err != nil {
			return err
		}
		at += int64(len(b))
	}
	if d.Sum64() != r.sums[1+sec] {
		return fmt.Errorf("section %d: bad hash", sec)
	}
	return nil
}

// read reads the sections: the text blobs on a second goroutine while this one decodes the events,
// their rows, IDs and byte pairs; then the events get their strings.
func (r *fileReader) read() (*loaded, error) {
	h := r.h
	var heads, bodies string
	var bodyEnds []int64
	var textErr error
	var wg sync.WaitGroup
	wg.Go(func() { heads, bodies, bodyEnds, textErr = r.texts() })
	l, headEnd, bodyOf, err := r.events()
	wg.Wait()
	if err == nil {
		err = textErr
	}
	if err != nil {
		return nil, err
	}
	from := 0
	for i := range l.events {
		e := &l.events[i]
		to := int(headEnd[i])
		if to < from || to > len(heads) {
			return nil, errors.New("bad text offsets")
		}
		e.text = heads[from:to]
		from = to
		if b := bodyOf[i]; b > 0 {
			e.body = bodies[bodyEnds[b-1]:bodyEnds[b]]
		}
	}
	if from != len(heads) {
		return nil, errors.New("bad text offsets")
	}
	l.mode, l.mark, l.nMain, l.nSlow = h.mode, h.mark, int(h.nMain), int(h.nSlow)
	return l, nil
}

// texts reads the search text: the heads and the distinct bodies, as strings that share the bytes
// read (never written again), and where each body ends.
func (r *fileReader) texts() (heads, bodies string, ends []int64, err error) {
	hb, err := r.whole(secHeads)
	if err != nil {
		return "", "", nil, err
	}
	bb, err := r.whole(secBodies)
	if err != nil {
		return "", "", nil, err
	}
	ends = make([]int64, r.h.nBodies)
	last := uint64(0)
	err = r.chunks(secBodyEnds, 8, func(first int, b []byte) error {
		for k := 0; k+8 <= len(b); k += 8 {
			v := binary.LittleEndian.Uint64(b[k:])
			if v < last || v > uint64(len(bb)) {
				return errors.New("bad body offsets")
			}
			ends[first+k/8], last = int64(v), v
		}
		return nil
	})
	if err == nil && (last != uint64(len(bb)) || ends[0] != 0) {
		err = errors.New("bad body offsets")
	}
	return unsafe.String(unsafe.SliceData(hb), len(hb)), unsafe.String(unsafe.SliceData(bb), len(bb)), ends, err
}

// events decodes the events and everything of fixed width; headEnd and bodyOf give each event's
// texts once they are read.
func (r *fileReader) events() (l *loaded, headEnd []uint64, bodyOf []uint32, err error) {
	h := r.h
	sb, err := r.whole(secStatuses)
	if err != nil {
		return nil, nil, nil, err
	}
	type status struct {
		code uint8
		rare *string
	}
	var statuses []status
	for d := (varints{b: sb}); len(d.b) > 0; {
		s := d.str()
		if d.err != nil {
			return nil, nil, nil, d.err
		}
		c, rare := internStatus(s)
		statuses = append(statuses, status{c, rare})
	}
	l = &loaded{events: make([]Event, h.n)}
	rows := make([]dateRow, h.nRows)
	ids := make([]int64, h.nIDs)
	headEnd, bodyOf = make([]uint64, h.n), make([]uint32, h.n)
	var nRows, nIDs uint64
	le := binary.LittleEndian
	err = r.chunks(secEvents, fileEventSize, func(first int, b []byte) error {
		for k := 0; k+fileEventSize <= len(b); k += fileEventSize {
			i, rec := first+k/fileEventSize, b[k:k+fileEventSize]
			e := &l.events[i]
			e.id, e.postDateN, e.parent = int64(le.Uint64(rec)), int64(le.Uint64(rec[8:])), int64(le.Uint64(rec[16:]))
			headEnd[i] = le.Uint64(rec[24:])
			st, body := le.Uint32(rec[32:]), le.Uint32(rec[36:])
			nr, nc, nt, nv, ni := uint64(le.Uint32(rec[40:])), le.Uint32(rec[44:]), le.Uint32(rec[48:]), le.Uint32(rec[52:]), uint64(le.Uint32(rec[56:]))
			flags := le.Uint32(rec[60:])
			if int(st) >= len(statuses) || int64(body) >= h.nBodies || flags&^flagsKnown != 0 ||
				uint64(nc)+uint64(nt)+uint64(nv) > ni || nRows+nr > uint64(len(rows)) || nIDs+ni > uint64(len(ids)) {
				return fmt.Errorf("event %d: bad record", i)
			}
			e.statusID, e.rare = statuses[st].code, statuses[st].rare
			bodyOf[i] = body
			if nr > 0 {
				e.rows = rows[nRows : nRows+nr : nRows+nr]
				nRows += nr
			}
			if ni > 0 {
				e.ids = ids[nIDs : nIDs+ni : nIDs+ni]
				nIDs += ni
			}
			e.nCats, e.nTags, e.nVenues = nc, nt, nv
			e.hidden, e.featured, e.password = flags&flagHidden != 0, flags&flagFeatured != 0, flags&flagPassword != 0
			e.noText, e.noIDs = flags&flagNoText != 0, flags&flagNoIDs != 0
			l.textless = l.textless || e.noText
			l.idless = l.idless || e.noIDs
		}
		return nil
	})
	if err == nil && (nRows != uint64(len(rows)) || nIDs != uint64(len(ids))) {
		err = errors.New("bad row or ID counts")
	}
	if err == nil {
		err = r.rows(rows)
	}
	if err == nil {
		err = r.chunks(secIDs, 8, func(first int, b []byte) error {
			for k := 0; k+8 <= len(b); k += 8 {
				ids[first+k/8] = int64(le.Uint64(b[k:]))
			}
			return nil
		})
	}
	if err == nil {
		l.grams = make([]gramMask, h.nMain)
		err = r.chunks(secGrams, fileGramSize, func(first int, b []byte) error {
			for k := 0; k+fileGramSize <= len(b); k += fileGramSize {
				g := &l.grams[first+k/fileGramSize]
				for w := range g {
					g[w] = le.Uint64(b[k+8*w:])
				}
			}
			return nil
		})
	}
	return l, headEnd, bodyOf, err
}

// rows decodes the date rows and the texts of the irregular ones.
func (r *fileReader) rows(rows []dateRow) error {
	le := binary.LittleEndian
	err := r.chunks(secRows, fileRowSize, func(first int, b []byte) error {
		for k := 0; k+fileRowSize <= len(b); k += fileRowSize {
			rows[first+k/fileRowSize] = dateRow{startN: int64(le.Uint64(b[k:])), endN: int64(le.Uint64(b[k+8:]))}
		}
		return nil
	})
	if err != nil {
		return err
	}
	ib, err := r.whole(secIrr)
	if err != nil {
		return err
	}
	row := uint64(0)
	for d, n := (varints{b: ib}), 0; len(d.b) > 0; n++ {
		delta := d.uint()
		legacy := d.byte()
		start, end := d.str(), d.str()
		if d.err != nil || (n > 0 && delta == 0) || delta >= uint64(len(rows)) || row+delta >= uint64(len(rows)) || legacy > 1 {
			return errors.New("bad irregular rows")
		}
		row += delta
		rows[row].irr = &rowText{start: start, end: end, legacy: legacy == 1}
	}
	return nil
}
