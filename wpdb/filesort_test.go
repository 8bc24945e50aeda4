package wpdb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/calendard/calendard/internal/testenv"
)

func rowsOf(ids []int64, keys []any) []filesortRow {
	out := make([]filesortRow, len(ids))
	for i := range ids {
		out[i] = filesortRow{id: ids[i], key: keys[i]}
	}
	return out
}

func idsOf(rows []filesortRow) []int64 {
	var out []int64
	for _, r := range rows {
		out = append(out, r.id)
	}
	return out
}

func same(n int, v any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// The expected orders are MariaDB 10.11's answers on the fixture (see each case).
func TestMariadbFilesortReproducesMariaDB(t *testing.T) {
	// Venues as MariaDB reads them from type_status_date for "every status": the draft 20 first, then
	// the published ones by date and ID; all share one publication second.
	venues := rowsOf([]int64{20, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 21}, same(12, "2026-11-21 23:28:51"))
	newest := filesortKey{desc: true}
	// Tags by term_taxonomy_id with their counts.
	tagCounts := rowsOf([]int64{11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
		[]any{int64(18), int64(22), int64(18), int64(11), int64(16), int64(10), int64(11), int64(13), int64(15), int64(0)})
	tests := []struct {
		name    string
		rows    []filesortRow
		key     filesortKey
		maxRows int
		want    []int64
	}{
		{"LIMIT 0,10 keeps the last row read in the top slot and reverses the rest", venues, newest, 10, []int64{21, 18, 17, 16, 15, 14, 13, 12, 11, 10}},
		{"LIMIT 0,5: every later row overwrites the top slot; insertion sort keeps the slots", venues, newest, 5, []int64{21, 10, 11, 12, 13}},
		{"LIMIT 0,1", venues, newest, 1, []int64{21}},
		{"LIMIT 0,11 holds every row: quicksort reverses all but the ends", venues, newest, 11, []int64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10}},
		{"LIMIT 0,50", venues, newest, 50, []int64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 21}},
		{"no LIMIT sorts the rows as read", venues, newest, -1, []int64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 21}},
		{"LIMIT 0 reads nothing", venues, newest, 0, nil},
		{"tags by count with ties (tags/list/orderby-count)", tagCounts, filesortKey{}, 50, []int64{20, 16, 14, 17, 18, 19, 15, 13, 11, 12}},
		{"tags by count descending (tags/list/orderby-count-desc)", tagCounts, filesortKey{desc: true}, 50, []int64{12, 11, 13, 15, 19, 18, 14, 17, 16, 20}},
		{"tags by parent, all equal (tags/list/orderby-parent)", rowsOf([]int64{11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, same(10, int64(0))), filesortKey{}, 50,
			[]int64{11, 19, 18, 17, 16, 15, 14, 13, 12, 20}},
		{"nine categories by parent: insertion sort is stable (categories/list/orderby-parent)",
			rowsOf([]int64{2, 3, 4, 5, 6, 7, 8, 9, 10}, []any{int64(0), int64(2), int64(2), int64(0), int64(5), int64(0), int64(0), int64(8), int64(0)}), filesortKey{}, -1,
			[]int64{2, 5, 7, 8, 10, 3, 4, 6, 9}},
		{"text keys compare under the collation", rowsOf([]int64{1, 2, 3}, []any{"b", "A", "á"}), filesortKey{text: true}, -1, []int64{2, 3, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := idsOf(mariadbFilesort(tc.rows, tc.key, tc.maxRows)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// The emulation against MariaDB itself: random tables full of equal keys (integers and collated
// text), sorted with random LIMITs in both directions. MariaDB reads the table in primary-key order
// and sorts rows carrying their columns, the case mariadbFilesort reproduces.
func TestMariadbFilesortMatchesMariaDB(t *testing.T) {
	ctx := context.Background()
	m := testenv.SharedMariaDB(t)
	if err := m.CreateDatabase(ctx, "wpdb_filesort"); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", m.DSN("wpdb_filesort"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewSource(1))
	words := []string{"a", "A", "á", "b", "B ", "c", "ç", "Ça", "ca", "zz", "Z"}
	for round := 0; round < 12; round++ {
		if _, err := db.Exec("CREATE OR REPLACE TABLE s (id bigint unsigned NOT NULL AUTO_INCREMENT, k int NOT NULL, " +
			"w varchar(20) NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci"); err != nil {
			t.Fatal(err)
		}
		n := 1 + rng.Intn(300)
		distinct := 1 + rng.Intn(8)
		var ints, texts []filesortRow
		var values []string
		var args []any
		for i := 0; i < n; i++ {
			k, w := int64(rng.Intn(distinct)), words[rng.Intn(len(words))]
			values = append(values, "(?, ?, ?)")
			args = append(args, i+1, k, w)
			ints = append(ints, filesortRow{id: int64(i + 1), key: k})
			texts = append(texts, filesortRow{id: int64(i + 1), key: w})
		}
		if _, err := db.Exec("INSERT INTO s (id, k, w) VALUES "+strings.Join(values, ", "), args...); err != nil {
			t.Fatal(err)
		}
		for q := 0; q < 15; q++ {
			desc := rng.Intn(2) == 0
			col, rows, key := "k", ints, filesortKey{desc: desc}
			if rng.Intn(2) == 0 {
				col, rows, key = "w", texts, filesortKey{desc: desc, text: true}
			}
			dir, limit := "ASC", ""
			maxRows := -1
			if rng.Intn(5) > 0 {
				maxRows = 1 + rng.Intn(120)
				limit = fmt.Sprintf(" LIMIT %d", maxRows)
			}
			if desc {
				dir = "DESC"
			}
			stmt := fmt.Sprintf("SELECT id FROM s ORDER BY %s %s%s", col, dir, limit)
			r, err := db.Query(stmt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := scanIDs(r)
			if err != nil {
				t.Fatal(err)
			}
			if got := idsOf(mariadbFilesort(rows, key, maxRows)); !reflect.DeepEqual(got, want) {
				t.Fatalf("%d rows, %d distinct keys, %s:\nMariaDB  %v\nemulated %v", n, distinct, stmt, want, got)
			}
		}
	}
}
