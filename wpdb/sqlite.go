package wpdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/crc32"
	"net/url"
	"strconv"
	"time"

	"github.com/calendard/calendard/internal/collation"
	"github.com/calendard/calendard/internal/mysqlcast"
)

// The embedded store: a SQLite file holding the same WordPress tables. MySQL compares and sorts the
// WordPress tables' text with utf8mb4_unicode_520_ci (case- and accent-insensitive, trailing spaces
// ignored) and matches LIKE the same way; SQLite gets that behaviour from a registered collation,
// which the schema declares on every text column, and a replacement like(), both driven by the
// collation's own weights (internal/collation).

// CollationName is the SQLite collation standing in for utf8mb4_unicode_520_ci.
const CollationName = "wp_unicode_ci"

func crc32SQL(args []driver.Value) (driver.Value, error) {
	if args[0] == nil {
		return nil, nil
	}
	return int64(crc32.ChecksumIEEE([]byte(toText(args[0])))), nil
}

// castDatetimeCmpFunc and castDatetimeFunc stand in for MySQL's CAST(x AS DATETIME): the packed
// value it compares as (NULL for NULL), and its value as text ("YYYY-MM-DD hh:mm:ss" or NULL).
const (
	castDatetimeCmpFunc = "mysql_datetime_cmp"
	castDatetimeFunc    = "mysql_datetime"
)

func castDatetimeCmpSQL(args []driver.Value) (driver.Value, error) {
	if args[0] == nil {
		return nil, nil
	}
	return mysqlcast.DatetimeCompared(toText(args[0])), nil
}

func castDatetimeSQL(args []driver.Value) (driver.Value, error) {
	if args[0] == nil {
		return nil, nil
	}
	if v, ok := mysqlcast.DatetimeValue(toText(args[0])); ok {
		return v, nil
	}
	return nil, nil
}

// castSignedFunc is the SQLite function standing in for MySQL's CAST(x AS SIGNED).
const castSignedFunc = "mysql_cast_signed"

func castSignedSQL(args []driver.Value) (driver.Value, error) {
	switch x := args[0].(type) {
	case nil:
		return nil, nil
	case int64:
		return x, nil
	case float64:
		return mysqlcast.Signed(strconv.FormatFloat(x, 'f', -1, 64)), nil
	default:
		return mysqlcast.Signed(toText(x)), nil
	}
}

// likeFunc is MySQL's LIKE under the tables' collation: % and _ wildcards, backslash escapes (or the
// ESCAPE character), characters compared one by one under utf8mb4_unicode_520_ci. SQLite calls
// like(pattern, value[, escape]).
func likeFunc(args []driver.Value) (driver.Value, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, errors.New("like() takes 2 or 3 arguments")
	}
	if args[0] == nil || args[1] == nil {
		return nil, nil
	}
	esc := '\\'
	if len(args) == 3 {
		if s, ok := args[2].(string); ok && s != "" {
			esc = []rune(s)[0]
		}
	}
	if collation.LikeMatch([]rune(toText(args[0])), []rune(toText(args[1])), esc) {
		return int64(1), nil
	}
	return int64(0), nil
}

func toText(v driver.Value) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	default:
		return fmt.Sprint(x)
	}
}

// SQLiteDSN is the driver DSN of a database file: WAL journaling, a busy timeout, transactions
// that take the write lock when they begin (one writer at a time, no upgrade deadlocks), and a page
// cache of sqliteCacheKiB per connection.
func SQLiteDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeoutMS))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(0)")
	q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", sqliteCacheKiB))
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// sqliteBusyTimeoutMS is how long a connection waits for the write lock another holds before
// SQLITE_BUSY, when no deadline is shorter (boundBusyWait).
const sqliteBusyTimeoutMS = 10000

// boundBusyWait makes conn's wait for SQLite's write lock end with ctx's deadline, and returns
// what restores the default wait. SQLite's busy handler sleeps through sqlite3_interrupt, which is
// all the driver does when a context ends, so without this a write behind a lock held elsewhere
// (another process, a backup, the sqlite3 shell) would wait the whole busy timeout whatever the
// request's deadline.
func (db *DB) boundBusyWait(ctx context.Context, conn *sql.Conn) func() {
	dl, ok := ctx.Deadline()
	if db.dialect != SQLite || !ok {
		return func() {}
	}
	// Rounded up, so that the wait ends with the deadline passed and is answered as its 503.
	ms := (time.Until(dl) + time.Millisecond - 1).Milliseconds()
	if ms >= sqliteBusyTimeoutMS {
		return func() {}
	}
	ms = max(ms, 1)
	bg := context.WithoutCancel(ctx) // a pragma on the connection's own memory: no lock, no wait
	if _, err := conn.ExecContext(bg, "PRAGMA busy_timeout = "+strconv.FormatInt(ms, 10)); err != nil {
		return func() {}
	}
	return func() {
		_, _ = conn.ExecContext(bg, "PRAGMA busy_timeout = "+strconv.Itoa(sqliteBusyTimeoutMS))
	}
}

// sqliteCacheKiB is each connection's page cache. SQLite's default is 2,000 KiB, and each of the
// pool's 8 connections keeps its own copy of the same hot pages, which the operating system's file
// cache holds anyway: memory spent for nothing on a large calendar. Lists, totals and
// searches come from the event index and records from the record caches, so SQLite reads little
// on the hot path; 512 KiB keeps the upper levels of the indexes a single record reads.
const sqliteCacheKiB = 512

// OpenSQLite opens (creating if needed) a SQLite WordPress database file. Tables are created by
// Migrate.
func OpenSQLite(path, prefix string) (*DB, error) {
	if !ValidPrefix(prefix) {
		return nil, fmt.Errorf("invalid table prefix %q", prefix)
	}
	if path == "" {
		return nil, errors.New("no database file")
	}
	if err := registerSQLite(); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", SQLiteDSN(path))
	if err != nil {
		return nil, err
	}
	// Readers run concurrently in WAL mode; writers queue on the write lock.
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	return newDB(db, prefix, SQLite), nil
}
