package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// CopyProgress receives the number of rows copied so far out of total (all tables).
type CopyProgress func(done, total int64)

// CopyStats are the rows copied per table.
type CopyStats map[string]int64

// ErrTargetNotEmpty refuses to copy over existing calendar rows.
var ErrTargetNotEmpty = errors.New("the target database already holds calendar rows")

// Rows go in multi-row INSERTs of at most copyBatch rows or copyBatchBytes of values.
const (
	copyBatch      = 500
	copyBatchBytes = 1 << 20
)

// CopyCalendar copies every calendar table (posts, meta, terms, users, options and the plugin's
// tables) from src to dst, keeping IDs and AUTO_INCREMENT counters, in batches inside one
// transaction, then verifies the row counts. The target's tables are created when missing and must
// be empty unless replace is set (then they are emptied first).
func CopyCalendar(ctx context.Context, src, dst *DB, replace bool, progress CopyProgress) (CopyStats, error) {
	if err := dst.CreateTables(ctx); err != nil {
		return nil, err
	}
	var total int64
	counts := map[string]int64{}
	for _, tb := range Tables {
		exists, err := src.tablesExist(ctx, src.sql, src.t(tb.name))
		if err != nil {
			return nil, err
		}
		if !exists {
			continue // e.g. a WordPress site without the plugin's custom tables
		}
		var n int64
		if err := src.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+src.t(tb.name)).Scan(&n); err != nil {
			return nil, err
		}
		counts[tb.name] = n
		total += n
	}

	tx, err := dst.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if dst.dialect == MySQL {
		// Keep explicit zero IDs and dates exactly as they are.
		if _, err := tx.ExecContext(ctx, "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'"); err != nil {
			return nil, err
		}
	}
	for _, tb := range Tables {
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+dst.t(tb.name)).Scan(&n); err != nil {
			return nil, err
		}
		if n > 0 && !replace {
			return nil, fmt.Errorf("%w (%s has %d rows; copy with --replace to overwrite)", ErrTargetNotEmpty, dst.t(tb.name), n)
		}
		if n > 0 {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+dst.t(tb.name)); err != nil {
				return nil, err
			}
		}
	}

	var done int64
	stats := CopyStats{}
	for _, tb := range Tables {
		if _, ok := counts[tb.name]; !ok {
			continue
		}
		n, err := copyTable(ctx, src, tx, dst, tb, func(k int64) {
			if progress != nil {
				progress(done+k, total)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("copying %s: %w", tb.name, err)
		}
		done += n
		stats[tb.name] = n
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	// After the commit: on MySQL, ALTER TABLE would end the transaction.
	for _, tb := range Tables {
		if _, ok := counts[tb.name]; !ok {
			continue
		}
		if err := copyAutoIncrement(ctx, src, dst, tb); err != nil {
			return nil, fmt.Errorf("counter of %s: %w", tb.name, err)
		}
	}
	// Verify: every table holds what the source held when the copy started.
	for name, want := range counts {
		var got int64
		if err := dst.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+dst.t(name)).Scan(&got); err != nil {
			return nil, err
		}
		if got != want || stats[name] != want {
			return stats, fmt.Errorf("verification failed: %s has %d rows, the source had %d", name, got, want)
		}
	}
	return stats, nil
}

// copyTable streams one table in primary-key order and inserts it in multi-row batches.
func copyTable(ctx context.Context, src *DB, tx *sql.Tx, dst *DB, tb table, progress func(int64)) (int64, error) {
	names := make([]string, len(tb.cols))
	for i, c := range tb.cols {
		names[i] = c.name
	}
	colList := strings.Join(names, ", ")
	rows, err := src.sql.QueryContext(ctx, "SELECT "+colList+" FROM "+src.t(tb.name)+" ORDER BY "+strings.Join(tb.primary, ", "))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	row := "(" + placeholders(len(names)) + ")"
	var batch []any
	var n, inBatch int64
	var size int
	flush := func() error {
		if inBatch == 0 {
			return nil
		}
		q := "INSERT INTO " + dst.t(tb.name) + " (" + colList + ") VALUES " + strings.TrimSuffix(strings.Repeat(row+",", int(inBatch)), ",")
		if _, err := tx.ExecContext(ctx, q, batch...); err != nil {
			return err
		}
		n += inBatch
		progress(n)
		batch, inBatch, size = batch[:0], 0, 0
		return nil
	}
	for rows.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		for i, v := range vals {
			switch x := v.(type) {
			case []byte:
				vals[i] = string(x) // text travels as text between drivers
				size += len(x)
			case string:
				size += len(x)
			}
		}
		batch = append(batch, vals...)
		inBatch++
		if inBatch == copyBatch || size >= copyBatchBytes {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// copyAutoIncrement gives the target table the source's next AUTO_INCREMENT value, so IDs of rows
// created later (and the gaps WordPress and the plugin leave) match.
func copyAutoIncrement(ctx context.Context, src, dst *DB, tb table) error {
	if len(tb.primary) != 1 || !tb.cols[0].auto {
		return nil
	}
	next, err := src.nextAutoIncrement(ctx, tb)
	if err != nil || next <= 0 {
		return err
	}
	if dst.dialect == SQLite {
		if _, err := dst.sql.ExecContext(ctx, "DELETE FROM sqlite_sequence WHERE name = ?", dst.t(tb.name)); err != nil {
			return err
		}
		_, err := dst.sql.ExecContext(ctx, "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", dst.t(tb.name), next-1)
		return err
	}
	_, err = dst.sql.ExecContext(ctx, fmt.Sprintf("ALTER TABLE %s AUTO_INCREMENT = %d", dst.t(tb.name), next))
	return err
}

// nextAutoIncrement is the ID the table would give its next row (0 when unknown).
func (db *DB) nextAutoIncrement(ctx context.Context, tb table) (int64, error) {
	var next sql.NullInt64
	if db.dialect == SQLite {
		err := db.sql.QueryRowContext(ctx, "SELECT seq + 1 FROM sqlite_sequence WHERE name = ?", db.t(tb.name)).Scan(&next)
		if errors.Is(err, sql.ErrNoRows) {
			err = db.sql.QueryRowContext(ctx, "SELECT COALESCE(MAX("+tb.primary[0]+"), 0) + 1 FROM "+db.t(tb.name)).Scan(&next)
		}
		return next.Int64, err
	}
	err := db.sql.QueryRowContext(ctx, "SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
		db.t(tb.name)).Scan(&next)
	return next.Int64, err
}

// NextIDs returns, per table with an AUTO_INCREMENT key, the ID its next row would get.
func (db *DB) NextIDs(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	for _, tb := range Tables {
		if len(tb.primary) != 1 || !tb.cols[0].auto {
			continue
		}
		next, err := db.nextAutoIncrement(ctx, tb)
		if err != nil {
			return nil, err
		}
		out[tb.name] = next
	}
	return out, nil
}
