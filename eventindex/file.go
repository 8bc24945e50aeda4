package eventindex

import (
	"context"
	"errors"
	"fmt"
	"os"
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
	if _, err := os.Stat(path); err == nil {
		x.loading.Store(true) // until LoadFile has run
	}
}

// Loading reports whether an index file is there to be loaded and LoadFile has not finished
// with it: a list then waits for the load (WaitLoaded) rather than read the whole calendar.
func (x *Index) Loading() bool { return x.loading.Load() }

// WaitLoaded waits until a snapshot exists, no file is being loaded (Loading) or ctx ends.
func (x *Index) WaitLoaded(ctx context.Context) bool {
	return x.wait(ctx, func() bool { return x.Ready() || !x.Loading() })
}

// LoadFile installs the snapshot kept in the index file when it holds the database's current
// state; it reports whether it did. Nothing is loaded from a file of another database, mode or
// format. A nil site (its settings could not be read) loads nothing.
//
// mark gives the database's mark (nil: Source.Mark), called once while the file is read. It must
// be the caller's own reading of the database's state (the change feed's first poll) or one taken
// after it, or a change between the two readings would be neither in the file nor news to the
// feed. At a million events on MariaDB with a cold buffer pool a reading takes a second or more,
// which is why the feed's own reading is worth passing rather than a second one.
func (x *Index) LoadFile(ctx context.Context, site *calendard.Site, mark func(context.Context) (Mark, error)) bool {
	defer x.loading.Store(false)
	if x.file == nil || site == nil {
		return false
	}
	type markResult struct {
		mark Mark
		err  error
	}
	if _, err := os.Stat(x.file.path); errors.Is(err, os.ErrNotExist) {
		return false // a first start: no mark to read
	}
	if mark == nil {
		mark = x.src.Mark
	}
	marked := make(chan markResult, 1)
	go func() {
		m, err := mark(ctx)
		marked <- markResult{m, err}
	}()
	l, err := readIndexFile(x.file.path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) && x.log != nil {
			x.log(fmt.Errorf("event index file %s: %w (building instead)", x.file.path, err))
		}
		return false
	}
	if l.mode != ModeOf(site) {
		return false
	}
	// Compiled while the mark may still be on its way.
	snap, err := compileLoaded(l, x.blockLen)
	if err != nil {
		if x.log != nil {
			x.log(fmt.Errorf("event index file %s: %w (building instead)", x.file.path, err))
		}
		return false
	}
	now := <-marked
	if now.err != nil || now.mark != l.mark {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.snap.Load() != nil || x.building {
		return false // a build got there first
	}
	if len(x.patched) > 0 {
		// Changes published while the file was read (the feed polls meanwhile): the file holds
		// the state before them.
		fresh, err := x.src.Events(ctx, snap.mode, x.patched, nil)
		if err != nil {
			return false
		}
		snap, x.patched = snap.patched(x.patched, fresh), nil
	}
	x.snap.Store(snap)
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
