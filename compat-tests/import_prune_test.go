package compattests

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// TestImportPrune imports site-a into SQLite, deletes two events at the source (41, sticky, and
// 100, password-protected), and re-imports: the deletions are reported and kept without --prune,
// deleted with it, and nothing else is written.
func TestImportPrune(t *testing.T) {
	testenv.SkipIfShort(t, "mariadbd")
	ctx := context.Background()
	set, bin, db, src := importSource(t, "import_prune_source")
	dbPath := filepath.Join(t.TempDir(), "pruned.db")
	spec := "sqlite://" + dbPath
	pw := set.AppPassword("admin")
	runImport(t, bin, src.Base, "admin", pw, spec)

	// Delete the events at the source, as wp_delete_post would, and serve the source afresh (its
	// response cache knows nothing of changes made behind its back).
	src.Stop()
	for _, q := range []string{
		"DELETE FROM wp_postmeta WHERE post_id IN (41, 100)",
		"DELETE FROM wp_term_relationships WHERE object_id IN (41, 100)",
		"DELETE FROM wp_tec_occurrences WHERE post_id IN (41, 100)",
		"DELETE FROM wp_tec_events WHERE post_id IN (41, 100)",
		"DELETE FROM wp_posts WHERE ID IN (41, 100) OR post_parent IN (41, 100) AND post_type = 'revision'",
	} {
		if err := db.Exec(ctx, "USE import_prune_source", q); err != nil {
			t.Fatal(err)
		}
	}
	// The same address: the source identities of the imported posts name it.
	port, err := strconv.Atoi(src.Base[strings.LastIndex(src.Base, ":")+1:])
	if err != nil {
		t.Fatal(err)
	}
	src = serveSource(t, set, bin, db, "import_prune_source", port, nil)

	events := func() map[string]bool {
		store, err := wpdb.OpenSQLite(dbPath, "wp_") // registers the store's collation
		if err != nil {
			t.Fatal(err)
		}
		store.Close()
		sdb, err := sql.Open("sqlite", wpdb.SQLiteDSN(dbPath))
		if err != nil {
			t.Fatal(err)
		}
		defer sdb.Close()
		_, rows := testenv.Rows(t, sdb, `SELECT ID FROM wp_posts WHERE post_type = 'tribe_events'`)
		out := map[string]bool{}
		for _, r := range rows {
			out[r[0].String] = true
		}
		return out
	}

	report := runImport(t, bin, src.Base, "admin", pw, spec)
	for _, w := range []string{"2 deleted at the source:", "events id 41 (post 41 here): kept", "events id 100 (post 100 here): kept"} {
		if !strings.Contains(report, w) {
			t.Errorf("without --prune the summary does not say %q:\n%s", w, report)
		}
	}
	if have := events(); !have["41"] || !have["100"] || len(have) != 150 {
		t.Errorf("without --prune: %d events, 41 %v, 100 %v", len(have), have["41"], have["100"])
	}

	pruned := runImport(t, bin, src.Base, "admin", pw, spec, "--prune")
	for _, w := range []string{"events id 41 (post 41 here): deleted", "events id 100 (post 100 here): deleted"} {
		if !strings.Contains(pruned, w) {
			t.Errorf("with --prune the summary does not say %q:\n%s", w, pruned)
		}
	}
	for res, n := range summaryWrites(pruned) {
		if n != "0" {
			t.Errorf("--prune wrote %s %s", n, res)
		}
	}
	if have := events(); have["41"] || have["100"] || len(have) != 148 {
		t.Errorf("after --prune: %d events, 41 %v, 100 %v", len(have), have["41"], have["100"])
	}
	if again := runImport(t, bin, src.Base, "admin", pw, spec, "--prune"); strings.Contains(again, "deleted at the source") {
		t.Errorf("a second --prune run finds deletions again:\n%s", again)
	}
}
