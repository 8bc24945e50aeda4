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
