package demo_test

import (
	"context"
	"testing"

	"github.com/calendard/calendard/internal/demo"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The demo is written the same way on both stores: a seed gives the same calendar on MariaDB as on
// the embedded SQLite file, answer for answer.
func TestFillGivesTheSameCalendarOnMariaDBAndSQLite(t *testing.T) {
	m := testenv.SharedMariaDB(t)
	name := testenv.DBName("demo", t)
	if err := m.CreateDatabase(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	db, err := wpdb.OpenMySQL(m.DSN(name), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	maria, lite := newCalendarOn(t, db), newCalendar(t)
	maria.fill(t, demo.Options{Events: 120, Seed: 5})
	lite.fill(t, demo.Options{Events: 120, Seed: 5})
	if a, b := snapshot(t, maria), snapshot(t, lite); a != b {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		from := max(0, i-300)
		t.Errorf("the API shows different calendars from byte %d:\nMariaDB: …%s\nSQLite:  …%s", i, a[from:min(len(a), i+300)], b[from:min(len(b), i+300)])
	}
}
