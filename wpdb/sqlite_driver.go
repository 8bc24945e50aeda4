//go:build !nosqlite

package wpdb

import (
	"database/sql/driver"
	"errors"
	"sync"

	"github.com/calendard/calendard/internal/collation"
	"modernc.org/sqlite"
)

// The SQLite driver (modernc.org/sqlite, pure Go) and what calendard registers in it. Every build
// has it but one: the race detector's (make race, -tags nosqlite), whose tests run on MariaDB only
// and which would otherwise instrument the driver's C-to-Go translation, a large part of that
// build (sqlite_nodriver.go).

var registerOnce sync.Once
var registerErr error

// sqliteFunctions are the SQL functions calendard adds to SQLite, each with its number of arguments
// (-1: any). They read their text arguments in place (VolatileArgs), which also keeps text with NUL
// characters whole, and never retain them.
var sqliteFunctions = []struct {
	name  string
	nargs int32
	f     func([]driver.Value) (driver.Value, error)
}{
	{"like", -1, likeFunc}, // like(pattern, value) and like(pattern, value, escape)
	{castSignedFunc, 1, castSignedSQL},
	// CAST(x AS DATETIME) as a comparison operand and as a value (internal/mysqlcast).
	{castDatetimeCmpFunc, 1, castDatetimeCmpSQL},
	{castDatetimeFunc, 1, castDatetimeSQL},
	// crc32(text) as MySQL's CRC32: the watermark's term-name signature and the search index's
	// fingerprints are the same SQL on both stores.
	{"crc32", 1, crc32SQL},
}

func registerSQLite() error {
	registerOnce.Do(func() {
		if registerErr = sqlite.RegisterCollationUtf8(CollationName, collation.Compare); registerErr != nil {
			return
		}
		for _, fn := range sqliteFunctions {
			f := fn.f
			impl := &sqlite.FunctionImpl{NArgs: fn.nargs, Deterministic: true, VolatileArgs: true,
				Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) { return f(args) }}
			if registerErr = sqlite.RegisterFunction(fn.name, impl); registerErr != nil {
				return
			}
		}
	})
	return registerErr
}

// sqliteBusy reports SQLite's "database is locked/busy" (SQLITE_BUSY, SQLITE_LOCKED and their
// extended codes), which a writer gets when another held the write lock past the busy timeout.
func sqliteBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return true
	}
	return false
}
