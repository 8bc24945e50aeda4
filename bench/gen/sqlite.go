package gen

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// The SQLite bulk load. Its cost is the secondary indexes: every indexed text column compares
// through calendard's Go collation (wp_unicode_ci), called through the driver for each comparison
// of each B-tree seek. Created after the load, an index is one sort of the table's keys and an
// append of its pages in order, without the seeks, page splits and half-full pages of inserting
// into it row by row; the database journal is kept in memory and nothing is synced until the end.

// sqliteBulkCacheKiB is the page cache during the load (the service's is smaller): the indexes'
// sorts spill to temporary files beyond it.
const sqliteBulkCacheKiB = 1 << 20

// sqliteBulk sets conn up for the load: the rollback journal in memory instead of the WAL (which
// would hold a second copy of every page until the checkpoint), no syncs, a large page cache. It
// returns what restores the settings the connection had (the WAL is the database's own setting,
// kept in its file).
func sqliteBulk(ctx context.Context, conn *sql.Conn) (restore func() error, err error) {
	var journal, sync, cache string
	for _, p := range []struct {
		name string
		dst  *string
	}{{"journal_mode", &journal}, {"synchronous", &sync}, {"cache_size", &cache}} {
		if err := conn.QueryRowContext(ctx, "PRAGMA "+p.name).Scan(p.dst); err != nil {
			return nil, fmt.Errorf("PRAGMA %s: %w", p.name, err)
		}
	}
	restore = func() error {
		ctx := context.WithoutCancel(ctx)
		var errs []error
		var mode string
		if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode = "+journal).Scan(&mode); err != nil {
			errs = append(errs, fmt.Errorf("restoring journal_mode %s: %w", journal, err))
		} else if !strings.EqualFold(mode, journal) {
			errs = append(errs, fmt.Errorf("restoring journal_mode %s: the database stays in %s", journal, mode))
		}
		for _, p := range []string{"synchronous = " + sync, "cache_size = " + cache} {
			if _, err := conn.ExecContext(ctx, "PRAGMA "+p); err != nil {
				errs = append(errs, fmt.Errorf("restoring %s: %w", p, err))
			}
		}
		return errors.Join(errs...)
	}
	// Leaving WAL needs the database to itself: with another connection open on it (a server),
	// the load stays in WAL mode.
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode = MEMORY").Scan(&mode); err != nil && ctx.Err() != nil {
		return nil, err
	}
	for _, p := range []string{"synchronous = OFF", fmt.Sprintf("cache_size = -%d", sqliteBulkCacheKiB)} {
		if _, err := conn.ExecContext(ctx, "PRAGMA "+p); err != nil {
			return nil, errors.Join(fmt.Errorf("PRAGMA %s: %w", p, err), restore())
		}
	}
	return restore, nil
}

// sqliteIndex is a secondary index as the schema holds it: its name and the statement that created it.
type sqliteIndex struct{ name, ddl string }

// writtenTables are the tables the generator writes rows to.
var writtenTables = []string{"posts", "postmeta", "term_relationships", "tec_events", "tec_occurrences", "terms", "term_taxonomy"}

// dropIndexes drops the secondary indexes of the written tables and returns them in the order they
// were created. Creating them again from their own statements gives the schema back as it was,
// whoever created them (calendard migrate, calendard's later indexes, or a user). The implicit
// indexes of PRIMARY KEY and UNIQUE column constraints (sqlite_autoindex_*, no statement) stay.
func (w *writer) dropIndexes(ctx context.Context, tx *sql.Tx) ([]sqliteIndex, error) {
	names := make([]string, len(writtenTables))
	args := make([]any, len(writtenTables))
	for i, t := range writtenTables {
		names[i], args[i] = "?", w.t(t)
	}
	rows, err := tx.QueryContext(ctx, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ("+
		strings.Join(names, ", ")+") ORDER BY rowid", args...)
	if err != nil {
		return nil, err
	}
	var out []sqliteIndex
	for rows.Next() {
		var ix sqliteIndex
		if err := rows.Scan(&ix.name, &ix.ddl); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, ix)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, ix := range out {
		if _, err := tx.ExecContext(ctx, `DROP INDEX "`+strings.ReplaceAll(ix.name, `"`, `""`)+`"`); err != nil {
			return nil, fmt.Errorf("dropping index %s: %w", ix.name, err)
		}
	}
	return out, nil
}
