package wpdb

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"testing"

	"github.com/calendard/calendard/internal/mysqlcast"
	"github.com/calendard/calendard/internal/testenv"
)

// mysqlDatetime against a real MariaDB: for every text, the value CAST(text AS DATETIME) compares
// as (equal to the packed value calendard computes, and on the right side of a fixed bound), and
// the value it sorts as (NULL or the same date-time). The texts are the forms WordPress sites
// hold in date meta (the plugin's own, a date without time, empty, placeholders) and mutations of
// them; the same texts go through the SQLite store's functions.
func TestMySQLDatetimeIsMariaDBs(t *testing.T) {
	texts := []string{"2027-01-05 10:00:00", "2027-01-05", "", " ", "TBA", "garbage", "2027-01-05 10:00", "2027-1-5 9:0:0",
		"20270105", "20270105100000", "270105", "2027-01-05T10:00:00", "2027-01-05 10:00:00 extra", "2027-02-30 10:00:00",
		"2027-02-29", "2028-02-29", "0000-00-00 00:00:00", "0000-00-00", "2027-00-05", "2027-01-00", "2027-13-01", "2027-01-32",
		"2027-01-05 24:00:00", "2027-01-05 23:60:00", "2027-01-05 23:59:60", "  2027-01-05 10:00:00", "2027-01-05 10:00:00.7",
		"2027/01/05 10.00.00", "27-01-05", "70-01-05", "69-01-05", "1-1-1", "2027-01-05 10", "2027-01-05 1", "2027-01-05x",
		"2027", "202701", "2027-01", "10:00:00", "1804000000", "2027-01-05 10:00:00+05:00", "2027@01@05 10:00:00",
		"2027-01-05  10:00:00", "2027-01-05\t10:00:00", "99999-01-05", "2027-01-05 100:00:00", "\n2027-01-05", "+2027-01-05",
		"-2027-01-05", "2027--01--05", "2027-01-05 10::00", "20270105T100000", "2027-01-05T", "2027-01-05 T10:00",
		"9999-12-31 23:59:59", "2027-04-31 10:00:00", "2027.01.05", "2027-01-05 10-00-00", "07-1-5", "7-01-05", "123456",
		"1234567", "2701051", "May 5, 2027", "05/01/2027", "1 January 2027"}
	r := rand.New(rand.NewPCG(12, 34))
	const alphabet = "0123456789-: .T/+x\t"
	for range 100 {
		b := make([]byte, 1+r.IntN(16))
		for k := range b {
			b[k] = byte('0' + r.IntN(10))
		}
		if r.IntN(4) == 0 {
			b[r.IntN(len(b))] = "T."[r.IntN(2)]
		}
		texts = append(texts, string(b))
	}
	for range 1200 {
		b := []byte("2027-01-05 10:00:00")[:r.IntN(20)]
		for range 1 + r.IntN(3) {
			c := alphabet[r.IntN(len(alphabet))]
			switch k := r.IntN(3); {
			case k == 0 || len(b) == 0:
				i := r.IntN(len(b) + 1)
				b = append(b[:i], append([]byte{c}, b[i:]...)...)
			case k == 1:
				b[r.IntN(len(b))] = c
			default:
				i := r.IntN(len(b))
				b = append(b[:i], b[i+1:]...)
			}
		}
		texts = append(texts, string(b))
	}

	m := testenv.SharedMariaDB(t)
	ctx := context.Background()
	name := testenv.DBName("castdt", t)
	if err := m.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	my, err := sql.Open("mysql", m.DSN(name))
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	lite := sqliteFixtureStore(t)
	const bound = "2027-01-05 00:00:00"
	for _, text := range texts {
		n, _, valid := mysqlcast.Datetime(text)
		packed := mysqlcast.Unpack(n)
		var value sql.NullString
		var eq, ge int
		if err := my.QueryRowContext(ctx, "SELECT CAST(? AS DATETIME), CAST(? AS DATETIME) = ?, CAST(? AS DATETIME) >= ?",
			text, text, packed, text, bound).Scan(&value, &eq, &ge); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if eq != 1 || (ge == 1) != (packed >= bound) {
			t.Errorf("%q: MariaDB compares it as another date-time than %s (= %d, >= %s: %d)", text, packed, eq, bound, ge)
		}
		if value.Valid != valid || (valid && value.String != packed) {
			t.Errorf("%q: MariaDB's value %v, calendard's %q (valid %v)", text, value, packed, valid)
		}
		var liteValue sql.NullString
		var liteGE int
		if err := lite.sql.QueryRowContext(ctx, "SELECT "+lite.datetimeValue("?")+", "+lite.datetimeCompare("?", ">="),
			text, text, bound).Scan(&liteValue, &liteGE); err != nil {
			t.Fatalf("sqlite %q: %v", text, err)
		}
		if liteValue != value || liteGE != ge {
			t.Errorf("%q: SQLite's CAST %v (>= %d), MariaDB's %v (>= %d)", text, liteValue, liteGE, value, ge)
		}
	}
}
