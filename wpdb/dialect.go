package wpdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The two stores (MySQL/MariaDB, as WordPress runs, and the embedded SQLite file) share every query;
// what the two SQL dialects spell differently lives here and nowhere else.

// Dialect names the SQL flavour of a store.
type Dialect int

// The supported stores.
const (
	MySQL Dialect = iota
	SQLite
)

func (d Dialect) String() string {
	if d == SQLite {
		return "sqlite"
	}
	return "mysql"
}

// Dialect returns the store's SQL flavour.
func (db *DB) Dialect() Dialect { return db.dialect }

// forUpdate locks selected rows inside a transaction. SQLite writers hold the database's write lock
// for the whole transaction (BEGIN IMMEDIATE), so rows need no lock of their own.
func (db *DB) forUpdate() string {
	if db.dialect == SQLite {
		return ""
	}
	return " FOR UPDATE"
}

// castInt is MySQL's CAST(x AS SIGNED), the NUMERIC meta comparison WP_Meta_Query uses: the leading
// integer of the text. SQLite's CAST(x AS INTEGER) agrees but for numbers beyond the signed range,
// so SQLite calls MySQL's rules (castSigned).
func (db *DB) castInt(expr string) string {
	if db.dialect == SQLite {
		return castSignedFunc + "(" + expr + ")"
	}
	return "CAST(" + expr + " AS SIGNED)"
}

// datetimeCompare is WP_Meta_Query's DATETIME comparison, CAST(expr AS DATETIME) op param, with
// the bound text as its parameter.
func (db *DB) datetimeCompare(expr, op string) string {
	if db.dialect == SQLite {
		return castDatetimeCmpFunc + "(" + expr + ") " + op + " " + castDatetimeCmpFunc + "(?)"
	}
	return "CAST(" + expr + " AS DATETIME) " + op + " ?"
}

// datetimeValue is CAST(expr AS DATETIME) as a value to sort by (NULL first).
func (db *DB) datetimeValue(expr string) string {
	if db.dialect == SQLite {
		return castDatetimeFunc + "(" + expr + ")"
	}
	return "CAST(" + expr + " AS DATETIME)"
}

// orderByList is MySQL's FIELD(col, ids...): the position of col in the list, 0 when absent.
func (db *DB) orderByList(col string, ids []int64) string {
	if db.dialect == SQLite {
		var b strings.Builder
		b.WriteString("(CASE " + col)
		for i, id := range ids {
			b.WriteString(" WHEN " + strconv.FormatInt(id, 10) + " THEN " + strconv.Itoa(i+1))
		}
		b.WriteString(" ELSE 0 END)")
		return b.String()
	}
	return "FIELD( " + col + ", " + intList(ids, ",") + " )"
}

// tablesExist reports whether every named table exists.
func (db *DB) tablesExist(ctx context.Context, q querier, names ...string) (bool, error) {
	query := "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (" + placeholders(len(names)) + ")"
	if db.dialect == SQLite {
		query = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN (" + placeholders(len(names)) + ")"
	}
	var n int
	if err := q.QueryRowContext(ctx, query, stringArgs(names)...).Scan(&n); err != nil {
		return false, err
	}
	return n == len(names), nil
}

// querier is what *sql.DB, *sql.Conn and *sql.Tx share.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// namedLock takes a lock by name for the rest of the transaction (MySQL GET_LOCK, released after
// the transaction). On SQLite the transaction already excludes every other writer.
func (t *Tx) namedLock(ctx context.Context, name string) error {
	if t.db.dialect == SQLite {
		return nil
	}
	var got sql.NullInt64
	if err := t.tx.QueryRowContext(ctx, "SELECT GET_LOCK(CONCAT(DATABASE(), ?), ?)", name, lockWait(ctx)).Scan(&got); err != nil {
		return err
	}
	if !got.Valid || got.Int64 != 1 {
		return errLockTimeout
	}
	return nil
}

// lockWait is how long GET_LOCK may wait, in whole seconds: as long as the request's database
// deadline lets it (writers queued behind one lock on a busy server can take that long), or an
// hour without one.
func lockWait(ctx context.Context) int64 {
	d, ok := ctx.Deadline()
	if !ok {
		return 3600
	}
	return max(int64(math.Ceil(time.Until(d).Seconds())), 1)
}

// releaseLocks frees the session's named locks before the connection returns to the pool. It runs
// even when ctx was canceled, but never past ctx's deadline (at most releaseLocksTimeout): a
// server that stalls right after a commit must not hold the request. A connection whose locks
// could not be released is dropped instead of pooled (the server frees them when it goes).
func (db *DB) releaseLocks(ctx context.Context, conn *sql.Conn) {
	if db.dialect != MySQL {
		return
	}
	deadline, ok := ctx.Deadline()
	if !ok || time.Until(deadline) > releaseLocksTimeout {
		deadline = time.Now().Add(releaseLocksTimeout)
	}
	rctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer cancel()
	if _, err := conn.ExecContext(rctx, "DO RELEASE_ALL_LOCKS()"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

const releaseLocksTimeout = 5 * time.Second

// connectionID identifies the session (tests use it to kill a connection mid-write); 0 on SQLite.
func (db *DB) connectionID(ctx context.Context, tx *sql.Tx) (int64, error) {
	if db.dialect == SQLite {
		return 0, nil
	}
	var id int64
	err := tx.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id)
	return id, err
}

// autoIncrements reads the AUTO_INCREMENT counters inside a transaction that is about to roll back,
// on SQLite (nil on MySQL). InnoDB never gives back the values a transaction took, rollback or not;
// SQLite's counters (sqlite_sequence rows) roll back with the transaction, so keepAutoIncrements
// restores them afterwards and the next rows get the IDs MySQL would give them.
func (db *DB) autoIncrements(ctx context.Context, tx *sql.Tx) map[string]int64 {
	if db.dialect != SQLite {
		return nil
	}
	rows, err := tx.QueryContext(ctx, "SELECT name, seq FROM sqlite_sequence")
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var seq int64
		if rows.Scan(&name, &seq) == nil {
			out[name] = seq
		}
	}
	return out
}

// keepAutoIncrements moves the counters back up to what a rolled-back transaction had taken.
func (db *DB) keepAutoIncrements(ctx context.Context, conn *sql.Conn, counters map[string]int64) {
	if len(counters) == 0 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return
	}
	for name, seq := range counters {
		// A table's first row creates its counter: the rollback took the row away too.
		for _, q := range []string{"UPDATE sqlite_sequence SET seq = MAX(seq, ?2) WHERE name = ?1",
			"INSERT INTO sqlite_sequence (name, seq) SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?1)"} {
			if _, err := tx.ExecContext(ctx, q, name, seq); err != nil {
				_ = tx.Rollback()
				return
			}
		}
	}
	_ = tx.Commit()
}

// upsertTECEventSQL is the plugin's INSERT ... ON DUPLICATE KEY UPDATE of a tec_events row keyed on
// post_id; updated_at moves only when a value changes. Both spellings use up an AUTO_INCREMENT value
// when the statement updates (InnoDB allocates before it finds the duplicate; SQLite allocates the
// rowid before it finds the conflict and keeps the sqlite_sequence bump).
func (db *DB) upsertTECEventSQL() string {
	if db.dialect == SQLite {
		return "INSERT INTO " + db.t("tec_events") + ` (post_id, start_date, end_date, timezone, start_date_utc,
		end_date_utc, duration, updated_at, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(post_id) DO UPDATE SET
		updated_at = CASE WHEN start_date IS excluded.start_date AND end_date IS excluded.end_date
			AND timezone IS excluded.timezone AND start_date_utc IS excluded.start_date_utc
			AND end_date_utc IS excluded.end_date_utc AND duration IS excluded.duration AND hash IS excluded.hash
			THEN updated_at ELSE excluded.updated_at END,
		start_date = excluded.start_date, end_date = excluded.end_date, timezone = excluded.timezone,
		start_date_utc = excluded.start_date_utc, end_date_utc = excluded.end_date_utc, duration = excluded.duration,
		hash = excluded.hash`
	}
	return "INSERT INTO " + db.t("tec_events") + ` (post_id, start_date, end_date, timezone, start_date_utc,
		end_date_utc, duration, updated_at, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE
		updated_at = IF(start_date <=> VALUES(start_date) AND end_date <=> VALUES(end_date) AND timezone <=> VALUES(timezone)
			AND start_date_utc <=> VALUES(start_date_utc) AND end_date_utc <=> VALUES(end_date_utc)
			AND duration <=> VALUES(duration) AND hash <=> VALUES(hash), updated_at, VALUES(updated_at)),
		start_date = VALUES(start_date), end_date = VALUES(end_date), timezone = VALUES(timezone),
		start_date_utc = VALUES(start_date_utc), end_date_utc = VALUES(end_date_utc), duration = VALUES(duration),
		hash = VALUES(hash)`
}

// Ties. Rows whose ORDER BY keys are equal come out of MariaDB in the order its plan produces them:
// an index read in order, row references sorted after the key, or its filesort (filesort.go).
// WordPress' statements leave such ties to the database and clients see the result, so each paged
// statement states what MariaDB's plan does with them; on SQLite the helpers below reproduce it, on
// MySQL they add nothing and the statement stays WordPress' own.

// tieBreak returns ", " and the ORDER BY terms that order equal keys as MariaDB's plan does, on
// SQLite; "" on MySQL.
func (db *DB) tieBreak(terms ...string) string {
	if db.dialect != SQLite || len(terms) == 0 {
		return ""
	}
	return ", " + strings.Join(terms, ", ")
}

// planOrder returns " ORDER BY " and the order in which MariaDB's plan reads rows, for a statement
// without ORDER BY, on SQLite; "" on MySQL.
func (db *DB) planOrder(terms ...string) string {
	if db.dialect != SQLite || len(terms) == 0 {
		return ""
	}
	return " ORDER BY " + strings.Join(terms, ", ")
}

// refOrder is the order of MariaDB's row references to an InnoDB table with the BIGINT primary key
// col, which filesort appends to the sort key when it sorts references (a BLOB column is read): the
// key is stored least significant byte first and compared bytewise.
func refOrder(col string) string {
	terms := make([]string, 8)
	for i := range terms {
		terms[i] = fmt.Sprintf("((%s >> %d) & 255)", col, 8*i)
	}
	return strings.Join(terms, ", ")
}

// filesortTies reports whether the store must run MariaDB's filesort itself to order equal keys the
// way MariaDB does (SQLite).
func (db *DB) filesortTies() bool { return db.dialect == SQLite }

// filesortPage runs read, which selects for every row MariaDB's filesort sorts, in the order its plan
// reads them, an ID, the sort key and whether the statement keeps the row (conditions MariaDB applies
// after sorting, on a table joined later). It returns the IDs of the kept rows offset..offset+limit
// (limit < 0: to the end) in the order MariaDB gives them. withLimit says whether MariaDB hands the
// LIMIT to the filesort (a single-table sort does; a sort before a join does not).
func (db *DB) filesortPage(ctx context.Context, read string, args []any, key filesortKey, withLimit bool, offset, limit int) ([]int64, error) {
	rows, err := db.sql.QueryContext(ctx, read, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var readRows []filesortRow
	for rows.Next() {
		var r filesortRow
		if err := rows.Scan(&r.id, &r.key, &r.keep); err != nil {
			return nil, err
		}
		if b, ok := r.key.([]byte); ok {
			r.key = string(b)
		}
		readRows = append(readRows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	maxRows := -1
	if withLimit && limit >= 0 {
		maxRows = offset + limit
	}
	var ids []int64
	for _, r := range mariadbFilesort(readRows, key, maxRows) {
		if r.keep {
			ids = append(ids, r.id)
		}
	}
	if offset >= len(ids) {
		return nil, nil
	}
	ids = ids[offset:]
	if limit >= 0 && len(ids) > limit {
		ids = ids[:limit]
	}
	return ids, nil
}
