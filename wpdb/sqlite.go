package wpdb

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
	"modernc.org/sqlite"
)

// The embedded store: a SQLite file holding the same WordPress tables. MySQL compares and sorts the
// WordPress tables' text with utf8mb4_unicode_520_ci (case- and accent-insensitive, trailing spaces
// ignored) and matches LIKE the same way; SQLite gets that behaviour from a registered collation,
// which the schema declares on every text column, and a replacement like().

// CollationName is the SQLite collation standing in for utf8mb4_unicode_520_ci.
const CollationName = "wp_unicode_ci"

var registerOnce sync.Once
var registerErr error

// collators are pooled: a collate.Collator is not safe for concurrent use.
var collators = sync.Pool{New: func() any {
	return collate.New(language.Und, collate.IgnoreCase, collate.IgnoreDiacritics, collate.IgnoreWidth)
}}

// compareCI orders two strings as utf8mb4_unicode_520_ci does at primary strength (PAD SPACE).
func compareCI(a, b string) int {
	a, b = strings.TrimRight(a, " "), strings.TrimRight(b, " ")
	if a == b {
		return 0
	}
	c := collators.Get().(*collate.Collator)
	defer collators.Put(c)
	return c.CompareString(a, b)
}

func registerSQLite() error {
	registerOnce.Do(func() {
		if err := sqlite.RegisterCollationUtf8(CollationName, compareCI); err != nil {
			registerErr = err
			return
		}
		// like(pattern, value) and like(pattern, value, escape): one variadic registration.
		registerErr = sqlite.RegisterDeterministicScalarFunction("like", -1, likeFunc)
	})
	return registerErr
}

// likeFunc is MySQL's LIKE under the tables' collation: % and _ wildcards, backslash escapes (or the
// ESCAPE character), case- and accent-insensitive. SQLite calls like(pattern, value[, escape]).
func likeFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
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
	pattern, value := fold(toText(args[0])), fold(toText(args[1]))
	if likeMatch([]rune(pattern), []rune(value), esc) {
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

// fold lowercases and strips combining marks, the character-level reading of the collation.
func fold(s string) string {
	s = norm.NFD.String(s)
	var b strings.Builder
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// likeMatch matches a LIKE pattern against a value.
func likeMatch(p, v []rune, esc rune) bool {
	for len(p) > 0 {
		switch {
		case p[0] == esc && len(p) > 1:
			if len(v) == 0 || v[0] != p[1] {
				return false
			}
			p, v = p[2:], v[1:]
		case p[0] == '%':
			for len(p) > 0 && p[0] == '%' {
				p = p[1:]
			}
			if len(p) == 0 {
				return true
			}
			for i := 0; i <= len(v); i++ {
				if likeMatch(p, v[i:], esc) {
					return true
				}
			}
			return false
		case p[0] == '_':
			if len(v) == 0 {
				return false
			}
			p, v = p[1:], v[1:]
		default:
			if len(v) == 0 || v[0] != p[0] {
				return false
			}
			p, v = p[1:], v[1:]
		}
	}
	return len(v) == 0
}

// SQLiteDSN is the driver DSN of a database file: WAL journaling, a busy timeout, and transactions
// that take the write lock when they begin (one writer at a time, no upgrade deadlocks).
func SQLiteDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(0)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

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
	return &DB{sql: db, prefix: prefix, dialect: SQLite}, nil
}
