// Package wpdb reads and writes the WordPress tables The Events Calendar uses (wp_posts, wp_postmeta,
// the term tables, wp_options, the user tables and the plugin's tec_* tables) with hand-written SQL.
// Queries are small named functions; a page of API records costs a fixed number of queries.
// Lists are answered from the in-memory event index (package eventindex), which reads the database
// through this package's loaders (eventindex_source.go); text compares under the collation of
// internal/collation on the SQLite store as on MariaDB.
package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// DB is a WordPress database.
type DB struct {
	sql     *pool
	prefix  string
	dialect Dialect
	feed    *Feed
}

// newDB wraps a pool; every store has its change feed.
func newDB(p *sql.DB, prefix string, d Dialect) *DB {
	db := &DB{sql: &pool{DB: p}, prefix: prefix, dialect: d}
	db.feed = newFeed(db)
	return db
}

var prefixRe = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// ValidPrefix reports whether a table prefix is safe to splice into SQL (WordPress allows letters,
// digits and underscores only).
func ValidPrefix(p string) bool { return prefixRe.MatchString(p) }

// MySQLConfig turns the part after "mysql://" of CALENDAR_DB into a driver config with the settings
// calendard relies on: dates come back as the strings MySQL stores (no parseTime) and parameters are
// interpolated client-side to save a round trip per query. Unless the DSN names a charset, the
// connection speaks utf8mb4 with WordPress' collation, utf8mb4_unicode_520_ci, as wpdb::set_charset
// sets it: MariaDB plans statements by the collation of their literals (it drops an ORDER BY on a
// column the WHERE fixes to a literal only when the collations agree), so ties come out as
// WordPress sees them.
func MySQLConfig(dsn string) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if cfg.DBName == "" {
		return nil, errors.New("no database name")
	}
	if cfg.Collation == "" && !strings.Contains(dsn, "charset=") {
		if err := cfg.Apply(mysql.Charset("utf8mb4", "utf8mb4_unicode_520_ci")); err != nil {
			return nil, err
		}
	}
	cfg.ParseTime = false
	cfg.InterpolateParams = true
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	return cfg, nil
}

// OpenMySQL connects to a MySQL/MariaDB WordPress database. It does not ping: the service starts and
// reports an unreachable database through /healthz and 503 answers.
func OpenMySQL(dsn, prefix string) (*DB, error) {
	if !ValidPrefix(prefix) {
		return nil, fmt.Errorf("invalid table prefix %q", prefix)
	}
	cfg, err := MySQLConfig(dsn)
	if err != nil {
		return nil, err
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(deadlineConnector{wpSessionConnector{conn}})
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(16)
	db.SetConnMaxLifetime(5 * time.Minute)
	return newDB(db, prefix, MySQL), nil
}

// Open connects to the store a CALENDAR_DB value names: "mysql://<go-sql-driver DSN>" or
// "sqlite://<file path>" ("sqlite:///abs/path.db" or "sqlite://relative.db").
func Open(spec, prefix string) (*DB, error) {
	if dsn, ok := strings.CutPrefix(spec, "mysql://"); ok {
		return OpenMySQL(dsn, prefix)
	}
	if path, ok := SQLitePath(spec); ok {
		return OpenSQLite(path, prefix)
	}
	return nil, fmt.Errorf("unknown database %q: want mysql://DSN or sqlite://PATH", spec)
}

// SQLitePath returns the file of a "sqlite://" database value.
func SQLitePath(spec string) (string, bool) {
	path, ok := strings.CutPrefix(spec, "sqlite://")
	if !ok || path == "" {
		return "", false
	}
	return path, true
}

// Close closes the pool.
func (db *DB) Close() error { return db.sql.Close() }

// Ping checks the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.sql.PingContext(ctx) }

// t returns a prefixed table name.
func (db *DB) t(name string) string { return db.prefix + name }

// Prefix returns the table prefix.
func (db *DB) Prefix() string { return db.prefix }

// placeholders returns "?,?,?" for n values.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?,", n-1) + "?"
}

func int64Args(ids []int64) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return args
}

func stringArgs(ss []string) []any {
	args := make([]any, len(ss))
	for i, s := range ss {
		args[i] = s
	}
	return args
}

// nullString scans NULLable text columns (meta_value may be NULL) as "".
type nullString = sql.NullString
