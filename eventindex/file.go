package eventindex

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/calendard/calendard"
)

// The index file keeps the last full build of the event index on disk, so that a restart serves
// lists from memory at once instead of reading the whole calendar again (a build reads every event
// post with its text, and its meta and term rows).
//
// A build records the change feed's watermark inside its own read transaction (the Source's Mark,
// which names the database too), so the file says exactly which database state it holds. At start
// the file is used only when the database's mark is still that one and the site's storage mode is
// the same; otherwise the index is built from the database. The watermark cannot see a bare UPDATE
// of a meta value
// (neither can the running service between two reconciles): such a change made while calendard was
// stopped shows after the first reconcile (CALENDAR_RECONCILE_INTERVAL), as it would have had
// calendard been running.

const fileMagic = "calendard event index v6\n"

// FileSaveDelay gathers the builds of a busy minute into one write of the file (a variable so that
// tests can shorten it).
var FileSaveDelay = 10 * time.Second

type file struct {
	path string
	log  func(error)

	mu      sync.Mutex
	pending *image // the newest build not yet written
	timer   *time.Timer
	closed  bool       // CloseFile: nothing more is written
	writing sync.Mutex // held while a build is written
	writes  atomic.Uint64
}

// image is what a file holds: the events of a full build and what they were read under.
type image struct {
	mode   Mode
	mark   Mark
	events map[int64]*Event
}

// UseFile makes the index load its last build from path at start (LoadFile) and write every full
// build there (a few seconds after it, the newest of a burst).
func (x *Index) UseFile(path string) {
	x.file = &file{path: path, log: x.log}
}

// LoadFile installs the snapshot kept in the index file when it holds the database's current
// state; it reports whether it did. Nothing is loaded from a file of another database, mode or
// format.
func (x *Index) LoadFile(ctx context.Context, site *calendard.Site) bool {
	if x.file == nil {
		return false
	}
	// The database's mark is read while the file is: at a million events on MariaDB with a cold
	// buffer pool the mark's counts take seconds, as does the file.
	type markResult struct {
		mark Mark
		err  error
	}
	if _, err := os.Stat(x.file.path); errors.Is(err, os.ErrNotExist) {
		return false // a first start: no mark to read
	}
	marked := make(chan markResult, 1)
	go func() {
		m, err := x.src.Mark(ctx)
		marked <- markResult{m, err}
	}()
	img, err := readIndexFile(x.file.path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) && x.log != nil {
			x.log(fmt.Errorf("event index file %s: %w (building instead)", x.file.path, err))
		}
		return false
	}
	if img.mode != ModeOf(site) {
		return false
	}
	now := <-marked
	if now.err != nil || now.mark != img.mark {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.snap.Load() != nil || x.building {
		return false // a build got there first
	}
	x.snap.Store(compile(img.mode, img.events, x.blockLen))
	x.fromFile.Store(true)
	return true
}

// CloseFile stops writing builds to the index file and waits for a write under way, so that the file
// and its directory are left alone once it returns (a service shutting down, a test removing them).
func (x *Index) CloseFile() {
	f := x.file
	if f == nil {
		return
	}
	f.writing.Lock()
	defer f.writing.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed, f.pending = true, nil
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
}

// save queues a full build for writing.
func (f *file) save(img *image) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.pending = img
	if f.timer == nil {
		f.timer = time.AfterFunc(FileSaveDelay, f.flush)
	}
}

// flush writes the newest pending build.
func (f *file) flush() {
	f.writing.Lock()
	defer f.writing.Unlock()
	f.mu.Lock()
	img := f.pending
	f.pending, f.timer = nil, nil
	f.mu.Unlock()
	if img == nil {
		return
	}
	if err := writeIndexFile(f.path, img); err != nil {
		if f.log != nil {
			f.log(fmt.Errorf("writing the event index file: %w", err))
		}
		return
	}
	f.writes.Add(1)
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
	w := &fileWriter{w: bufio.NewWriterSize(tmp, 1<<20)}
	w.str(fileMagic)
	w.bool(img.mode.CustomTables)
	w.bool(img.mode.UTC)
	w.str(string(img.mark))
	w.int(int64(len(img.events)))
	for _, e := range img.events {
		w.event(e)
	}
	if err := w.err; err != nil {
		tmp.Close()
		return err
	}
	if err := w.w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func readIndexFile(path string) (*image, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := &fileReader{r: bufio.NewReaderSize(fh, 1<<20)}
	if r.str() != fileMagic || r.err != nil {
		return nil, errors.New("not an index file of this version")
	}
	img := &image{}
	img.mode.CustomTables, img.mode.UTC = r.bool(), r.bool()
	img.mark = Mark(r.str())
	n := r.int()
	if r.err != nil || n < 0 || n > 1<<31 {
		return nil, fmt.Errorf("bad header (%v)", r.err)
	}
	img.events = make(map[int64]*Event, n)
	slab := make([]Event, n)
	var ids []int64
	var rows []dateRow
	heads := textPacker{set: func(i int, s string) { slab[i].text = s }}
	bodies := textPacker{set: func(i int, s string) { slab[i].body = s }}
	for i := range slab {
		e := &slab[i]
		r.event(e, &ids, &rows, !img.mode.CustomTables)
		if r.err != nil {
			return nil, fmt.Errorf("event %d of %d: %w", i, n, r.err)
		}
		head, body := splitSearchText(r.text)
		heads.add(i, head)
		bodies.addShared(i, body)
		img.events[e.id] = e
	}
	heads.flush()
	bodies.flush()
	return img, nil
}

// fileWriter and fileReader encode an event's list keys (varints and length-prefixed strings).
type fileWriter struct {
	w   *bufio.Writer
	buf [binary.MaxVarintLen64]byte
	err error
}

func (w *fileWriter) int(n int64) {
	if w.err == nil {
		_, w.err = w.w.Write(w.buf[:binary.PutVarint(w.buf[:], n)])
	}
}

func (w *fileWriter) str(s string) {
	w.int(int64(len(s)))
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

// raw writes s without its length (the caller wrote it).
func (w *fileWriter) raw(s string) {
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

func (w *fileWriter) bool(b bool) {
	if b {
		w.int(1)
	} else {
		w.int(0)
	}
}

func (w *fileWriter) event(e *Event) {
	w.int(e.id)
	w.str(e.status())
	w.int(e.postDateN)
	w.int(e.parent)
	w.bool(e.hidden)
	w.bool(e.featured)
	w.bool(e.password)
	w.int(int64(len(e.rows)))
	for _, r := range e.rows {
		w.int(r.startN)
		w.int(r.endN)
		w.bool(r.irr != nil)
		if r.irr != nil {
			w.str(r.irr.start)
			w.str(r.irr.end)
		}
	}
	w.int(int64(e.nCats))
	w.int(int64(e.nTags))
	w.int(int64(e.nVenues))
	w.int(int64(len(e.ids)))
	for _, id := range e.ids {
		w.int(id)
	}
	w.int(int64(len(e.text) + len(e.body)))
	w.raw(e.text)
	w.raw(e.body)
}

type fileReader struct {
	r   *bufio.Reader
	err error
	// text is the last event's search text, in a buffer the next event reuses: readIndexFile packs
	// it (textPacker).
	text []byte
}

func (r *fileReader) int() int64 {
	if r.err != nil {
		return 0
	}
	n, err := binary.ReadVarint(r.r)
	if err != nil {
		r.err = err
	}
	return n
}

func (r *fileReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > 1<<30 {
		r.err = cmpErr(r.err, errors.New("bad length"))
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.err = err
	}
	return b
}

func (r *fileReader) str() string { return string(r.bytes(int(r.int()))) }

func (r *fileReader) bool() bool { return r.int() != 0 }

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// legacy: the snapshot is of a postmeta site, whose irregular rows are legacy rows.
func (r *fileReader) event(e *Event, ids *[]int64, rows *[]dateRow, legacy bool) {
	e.id = r.int()
	e.setStatus(r.str())
	e.postDateN = r.int()
	e.parent = r.int()
	e.hidden, e.featured, e.password = r.bool(), r.bool(), r.bool()
	nr := int(r.int())
	if r.err != nil || nr < 0 || nr > 1<<20 {
		r.err = cmpErr(r.err, errors.New("bad row count"))
		return
	}
	if nr > 0 {
		if cap(*rows)-len(*rows) < nr {
			*rows = make([]dateRow, 0, max(nr, 8<<10))
		}
		from := len(*rows)
		for range nr {
			row := dateRow{startN: r.int(), endN: r.int()}
			if r.bool() {
				row.irr = &rowText{start: r.str(), end: r.str(), legacy: legacy}
			}
			*rows = append(*rows, row)
		}
		e.rows = (*rows)[from:len(*rows):len(*rows)]
	}
	nc, nt, nv, n := r.int(), r.int(), r.int(), r.int()
	if r.err != nil || nc < 0 || nt < 0 || nv < 0 || n < nc+nt+nv || n > 1<<20 {
		r.err = cmpErr(r.err, errors.New("bad ID counts"))
		return
	}
	if n > 0 {
		if cap(*ids)-len(*ids) < int(n) {
			*ids = make([]int64, 0, max(int(n), 16<<10))
		}
		from := len(*ids)
		for range n {
			*ids = append(*ids, r.int())
		}
		e.ids = (*ids)[from:len(*ids):len(*ids)]
	}
	e.nCats, e.nTags, e.nVenues = uint32(nc), uint32(nt), uint32(nv)
	if n := int(r.int()); r.err == nil && n >= 0 && n <= 1<<30 {
		r.text = slices.Grow(r.text[:0], n)[:n]
		_, r.err = io.ReadFull(r.r, r.text)
	} else {
		r.err = cmpErr(r.err, errors.New("bad text length"))
	}
}
