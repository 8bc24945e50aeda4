package testenv

import (
	"database/sql"
	"testing"
)

// Rows runs q and returns its column names and every row's values as text (a NULL is Valid false):
// what the tests that compare table contents, before and after or between stores, render.
func Rows(t testing.TB, db *sql.DB, q string, args ...any) (cols []string, rows [][]sql.NullString) {
	t.Helper()
	rs, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	if cols, err = rs.Columns(); err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, vals)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, rows
}
