package wpdb

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
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
// integer of the text.
func (db *DB) castInt(expr string) string {
	if db.dialect == SQLite {
		return "CAST(" + expr + " AS INTEGER)"
	}
	return "CAST(" + expr + " AS SIGNED)"
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
	if err := t.tx.QueryRowContext(ctx, "SELECT GET_LOCK(CONCAT(DATABASE(), ?), 20)", name).Scan(&got); err != nil {
		return err
	}
	if !got.Valid || got.Int64 != 1 {
		return errLockTimeout
	}
	return nil
}

// releaseLocks frees the session's named locks before the connection returns to the pool.
func (db *DB) releaseLocks(ctx context.Context, conn *sql.Conn) {
	if db.dialect == MySQL {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "DO RELEASE_ALL_LOCKS()")
	}
}

// connectionID identifies the session (tests use it to kill a connection mid-write); 0 on SQLite.
func (db *DB) connectionID(ctx context.Context, tx *sql.Tx) (int64, error) {
	if db.dialect == SQLite {
		return 0, nil
	}
	var id int64
	err := tx.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id)
	return id, err
}

// upsertTECEventSQL is the plugin's INSERT ... ON DUPLICATE KEY UPDATE of a tec_events row keyed on
// post_id; updated_at moves only when a value changes. MySQL uses up an AUTO_INCREMENT value even
// when the statement updates; SQLite's upsert does not, so wasteEventID reproduces that.
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

// wasteEventID advances the tec_events AUTO_INCREMENT counter by one after an upsert that updated,
// as InnoDB's does (a no-op on MySQL, where the statement itself did it).
func (t *Tx) wasteEventID(ctx context.Context) error {
	if t.db.dialect != SQLite {
		return nil
	}
	_, err := t.exec(ctx, "UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = ?", t.t("tec_events"))
	return err
}
