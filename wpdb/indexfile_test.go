package wpdb

import (
	"context"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/eventindex"
)

// The index file lets the next start serve from memory at once, but only while it holds the
// database's state: a direct change, a damaged file or another table prefix means a build.
func TestEventIndexFileServesTheNextStartOnlyWhileCurrent(t *testing.T) {
	saved := eventindex.FileSaveDelay
	eventindex.FileSaveDelay = 0
	defer func() { eventindex.FileSaveDelay = saved }()
	filters := []calendard.EventFilter{
		{Statuses: []string{"publish"}, StartOnOrAfter: ptr("2000-01-01 00:00:00"), Limit: 500},
		{Statuses: []string{"publish", "draft", "private"}, StartOnOrAfter: ptr("2025-01-01 00:00:00"), EndOnOrBefore: ptr("2026-12-31 23:59:59"), Limit: 7, Offset: 3},
		{Statuses: []string{"publish"}, Search: calendard.ParseSearch("a"), Limit: 20},
	}
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		dir := t.TempDir()
		first := dir + "/first.index"
		start := func(file string) *Store {
			st := NewStore(s.DB, SiteOverrides{})
			st.Start(ctx, StartOptions{IndexFile: file})
			// Registered after the directory's removal, so run before it: no write lands in a
			// directory being removed.
			t.Cleanup(st.Index().CloseFile)
			if !st.Index().WaitTextReady(ctxTimeout(t, 20*time.Second)) { // the filters search too
				t.Fatal("index never ready")
			}
			return st
		}
		answers := func(st *Store) [][]int64 {
			site, err := st.Site(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var out [][]int64
			for _, f := range filters {
				ids, total, ok := st.Index().FindEvents(site, &f)
				if !ok {
					t.Fatalf("index declined %+v", f)
				}
				out = append(out, append(ids, int64(total)))
			}
			return out
		}
		built := start(first)
		if built.Index().Stats().FromFile {
			t.Fatal("the first start loaded a file that did not exist")
		}
		want := answers(built)
		for wait := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(first); err == nil {
				break
			}
			if time.Since(wait) > 10*time.Second {
				t.Fatal("the build was never written to the index file")
			}
		}
		data, err := os.ReadFile(first)
		if err != nil {
			t.Fatal(err)
		}
		copyTo := func(name string, b []byte) string {
			p := dir + "/" + name
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}

		t.Run("an unchanged database starts from the file with the same answers", func(t *testing.T) {
			st := start(copyTo("same.index", data))
			if !st.Index().Stats().FromFile {
				t.Fatal("built again although the file held the database's state")
			}
			if got := answers(st); !reflect.DeepEqual(got, want) {
				t.Errorf("from the file %v, built %v", got, want)
			}
		})
		t.Run("a damaged file is not used and the index is built", func(t *testing.T) {
			st := start(copyTo("damaged.index", data[:len(data)/2]))
			if st.Index().Stats().FromFile {
				t.Fatal("a truncated file was loaded")
			}
			if got := answers(st); !reflect.DeepEqual(got, want) {
				t.Errorf("after a damaged file %v, want %v", got, want)
			}
		})
		t.Run("a changed byte is not trusted and the index is built", func(t *testing.T) {
			b := append([]byte(nil), data...)
			b[len(b)*2/3] ^= 0x10 // in the event text, past the keys
			st := start(copyTo("changed.index", b))
			if st.Index().Stats().FromFile {
				t.Fatal("a file with a changed byte was loaded")
			}
			if got := answers(st); !reflect.DeepEqual(got, want) {
				t.Errorf("after a changed byte %v, want %v", got, want)
			}
		})
		t.Run("a file of an older version is not used", func(t *testing.T) {
			b := append([]byte("calendard event index v6\n"), data[len("calendard event index v6\n"):]...)
			st := start(copyTo("older.index", b))
			if st.Index().Stats().FromFile {
				t.Fatal("a file of another version was loaded")
			}
			if got := answers(st); !reflect.DeepEqual(got, want) {
				t.Errorf("after an older file %v, want %v", got, want)
			}
		})
		t.Run("a direct change since the file makes the next start build", func(t *testing.T) {
			ids := want[0][:len(want[0])-1]
			if _, err := s.sql.ExecContext(ctx, "UPDATE wp_posts SET post_status = 'draft', post_modified_gmt = '2031-01-01 00:00:00' WHERE ID = ?", ids[0]); err != nil {
				t.Fatal(err)
			}
			st := start(copyTo("old.index", data))
			if st.Index().Stats().FromFile {
				t.Fatal("a file older than the database was loaded")
			}
			if got := answers(st); reflect.DeepEqual(got, want) || got[0][len(got[0])-1] != want[0][len(want[0])-1]-1 {
				t.Errorf("after unpublishing %d the first list has %d events, want %d", ids[0], got[0][len(got[0])-1], want[0][len(want[0])-1]-1)
			}
		})
	})
}

// On MariaDB a list asked while a restart reads the index file waits for the file rather than go
// through SQL (at a million events a scan of the whole calendar, competing with the load). The
// load is held up by a lock on the posts table, which the database's mark reads: a list sent to
// SQL would wait on that lock too and be seen waiting.
func TestListsWaitForTheIndexFileOnMariaDB(t *testing.T) {
	saved := eventindex.FileSaveDelay
	eventindex.FileSaveDelay = 0
	defer func() { eventindex.FileSaveDelay = saved }()
	s, _ := fixtureStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	file := t.TempDir() + "/index"
	first := NewStore(s.DB, SiteOverrides{})
	first.Start(ctx, StartOptions{IndexFile: file})
	t.Cleanup(first.Index().CloseFile)
	if !first.Index().WaitTextReady(ctxTimeout(t, 20*time.Second)) {
		t.Fatal("index never ready")
	}
	for wait := time.Now(); first.Index().Stats().FileWrites == 0; time.Sleep(20 * time.Millisecond) {
		if time.Since(wait) > 10*time.Second {
			t.Fatal("the build was never written to the index file")
		}
	}
	first.Index().CloseFile()
	site, err := s.Site(ctx)
	if err != nil {
		t.Fatal(err)
	}

	lock, err := s.sql.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, "LOCK TABLES wp_posts WRITE"); err != nil {
		t.Fatal(err)
	}
	unlock := func() { _, _ = lock.ExecContext(ctx, "UNLOCK TABLES") }
	defer unlock()
	waiting := func(like string) bool {
		var n int
		err := s.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for table%' AND INFO LIKE ?", like).Scan(&n)
		return err == nil && n > 0
	}
	st := NewStore(s.DB, SiteOverrides{})
	st.Start(ctx, StartOptions{IndexFile: file})
	t.Cleanup(st.Index().CloseFile)
	for wait := time.Now(); !waiting("%COUNT(%"); time.Sleep(10 * time.Millisecond) {
		if time.Since(wait) > 20*time.Second {
			t.Fatal("the mark never waited for the lock")
		}
	}
	type answer struct {
		n   int
		err error
	}
	done := make(chan answer, 1)
	go func() {
		evs, _, err := st.FindEvents(ctx, site, calendard.EventFilter{Statuses: []string{"publish"}, Limit: 5})
		done <- answer{len(evs), err}
	}()
	// A list sent to SQL shows waiting for the lock within moments; one waiting for the file
	// does not show at all, so the lock is released after a generous second either way.
	for wait := time.Now(); time.Since(wait) < time.Second && !waiting("%ORDER BY%"); time.Sleep(10 * time.Millisecond) {
	}
	unlock()
	a := <-done
	if a.err != nil || a.n == 0 {
		t.Fatalf("the list: %d events, %v", a.n, a.err)
	}
	if !st.Index().Stats().FromFile {
		t.Fatal("the restart did not load the file")
	}
	select {
	case <-st.firstSQLList:
		t.Fatal("the list went to SQL while the index file was loading")
	default:
	}
}

// A calendar that is only patched (calendard's writes, the reconcile's findings) still gets its
// index file refreshed: after a poll that finds every change applied, the patched snapshot is
// written under that poll's reading, and the next start loads it and shows the write. Before, the
// file kept the last full build, which any write made stale, so every restart built again.
func TestPatchedIndexIsWrittenForTheNextStart(t *testing.T) {
	savedDelay, savedEvery := eventindex.FileSaveDelay, eventindex.PatchSaveEvery
	eventindex.FileSaveDelay, eventindex.PatchSaveEvery = 0, 0
	defer func() { eventindex.FileSaveDelay, eventindex.PatchSaveEvery = savedDelay, savedEvery }()
	eachStore(t, func(t *testing.T, s *Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		file := t.TempDir() + "/index"
		first := NewStore(s.DB, SiteOverrides{})
		first.Start(ctx, StartOptions{IndexFile: file, WatchInterval: time.Hour})
		t.Cleanup(first.Index().CloseFile)
		if !first.Index().WaitTextReady(ctxTimeout(t, 20*time.Second)) {
			t.Fatal("index never ready")
		}
		waitWrites := func(n uint64) {
			t.Helper()
			for wait := time.Now(); first.Index().Stats().FileWrites < n; time.Sleep(20 * time.Millisecond) {
				if time.Since(wait) > 20*time.Second {
					t.Fatalf("the index file was written %d times, want %d", first.Index().Stats().FileWrites, n)
				}
			}
		}
		waitWrites(1)
		var id int64
		if err := s.sql.QueryRowContext(ctx, "SELECT ID FROM wp_posts WHERE post_type = 'tribe_events' AND post_status = 'publish' ORDER BY ID LIMIT 1").Scan(&id); err != nil {
			t.Fatal(err)
		}
		const title = "Patched into the index file"
		if err := first.Write(ctx, nil, func(tx calendard.WriteTx) error {
			p, err := tx.LockPost(ctx, id)
			if err != nil {
				return err
			}
			p.Title = title
			return tx.UpdatePost(ctx, p)
		}); err != nil {
			t.Fatal(err)
		}
		if err := first.feed.Sync(ctx); err != nil { // the poll after the write
			t.Fatal(err)
		}
		waitWrites(2)
		first.Index().CloseFile()

		next := NewStore(s.DB, SiteOverrides{})
		next.Start(ctx, StartOptions{IndexFile: file, WatchInterval: time.Hour})
		t.Cleanup(next.Index().CloseFile)
		if !next.Index().WaitTextReady(ctxTimeout(t, 20*time.Second)) {
			t.Fatal("index never ready")
		}
		if !next.Index().Stats().FromFile {
			t.Fatal("the next start built again: the patched snapshot was not written, or not taken as current")
		}
		site, err := next.Site(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids, _, ok := next.Index().FindEvents(site, &calendard.EventFilter{Statuses: []string{"publish"}, Search: calendard.ParseSearch(title), Limit: 5})
		if !ok || len(ids) != 1 || ids[0] != id {
			t.Errorf("a search for the new title from the loaded file: %v (ok %v), want [%d]", ids, ok, id)
		}
	})
}
