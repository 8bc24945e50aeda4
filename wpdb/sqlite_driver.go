//go:build !nosqlite

package wpdb

import (
	"database/sql/driver"
	"errors"
	"sync"

	"modernc.org/sqlite"
)

// The SQLite driver (modernc.org/sqlite, pure Go) and what calendard registers in it. Every build
// has it but one: the race detector's (make race, -tags nosqlite), whose tests run on MariaDB only
// and which would otherwise instrument the driver's C-to-Go translation, a third of that build's
// CPU on a fresh machine (sqlite_nodriver.go; issue 15).

var registerOnce sync.Once
var registerErr error

func registerSQLite() error {
	registerOnce.Do(func() {
		if err := sqlite.RegisterCollationUtf8(CollationName, collate520); err != nil {
			registerErr = err
			return
		}
		// like(pattern, value) and like(pattern, value, escape): one variadic registration. The
		// functions read their text arguments in place (VolatileArgs), which also keeps text with NUL
		// characters whole, and never retain them.
		if err := sqlite.RegisterFunction("like", &sqlite.FunctionImpl{NArgs: -1, Deterministic: true,
			Scalar: scalar(likeFunc), VolatileArgs: true}); err != nil {
			registerErr = err
			return
		}
		if err := sqlite.RegisterFunction(castSignedFunc, &sqlite.FunctionImpl{NArgs: 1, Deterministic: true,
			Scalar: scalar(castSignedSQL), VolatileArgs: true}); err != nil {
			registerErr = err
			return
		}
		// CAST(x AS DATETIME) as a comparison operand and as a value (mysqldate.go).
		if err := sqlite.RegisterFunction(castDatetimeCmpFunc, &sqlite.FunctionImpl{NArgs: 1, Deterministic: true,
			Scalar: scalar(castDatetimeCmpSQL), VolatileArgs: true}); err != nil {
			registerErr = err
			return
		}
		if err := sqlite.RegisterFunction(castDatetimeFunc, &sqlite.FunctionImpl{NArgs: 1, Deterministic: true,
			Scalar: scalar(castDatetimeSQL), VolatileArgs: true}); err != nil {
			registerErr = err
			return
		}
		// crc32(text) as MySQL's CRC32: the watermark's term-name signature and the search index's
		// fingerprints are the same SQL on both stores.
		registerErr = sqlite.RegisterFunction("crc32", &sqlite.FunctionImpl{NArgs: 1, Deterministic: true,
			Scalar: scalar(crc32SQL), VolatileArgs: true})
	})
	return registerErr
}

// scalar adapts a function of its arguments to the driver's scalar function signature.
func scalar(f func([]driver.Value) (driver.Value, error)) func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
	return func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) { return f(args) }
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
