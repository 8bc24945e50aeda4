//go:build nosqlite

package wpdb

import "errors"

// A build without the SQLite driver (-tags nosqlite): only make race's, whose tests run on MariaDB
// (sqlite_driver.go says why). Opening a SQLite store says what is missing instead of failing in
// database/sql with an unknown driver.

func registerSQLite() error {
	return errors.New("this binary was built without SQLite (build tag nosqlite): use a MySQL or MariaDB store")
}

func sqliteBusy(error) bool { return false }
