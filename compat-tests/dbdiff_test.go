package compattests

import (
	"database/sql"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestDiffSnapshotsListsOnlyRowsThatChanged(t *testing.T) {
	str := func(s string) *string { return &s }
	postCols := []string{"ID", "post_title", "post_modified"}
	post := func(title string, modified *string) row {
		return makeRow(postCols, []*string{str("7"), str(title), modified})
	}
	metaCols := []string{"meta_id", "post_id", "meta_key", "meta_value"}
	meta := func(id, value string) row {
		return makeRow(metaCols, []*string{str(id), str("7"), str("_EventCost"), str(value)})
	}
	before := Snapshot{
		"posts":    {"7": post("Fair", str("2026-01-01 00:00:00"))},
		"postmeta": {"1": meta("1", "5"), "2": meta("2", "6")},
	}
	for _, tc := range []struct {
		name  string
		after Snapshot
		want  map[string][]change
	}{
		{"an identical snapshot has no changes", Snapshot{
			"posts":    {"7": post("Fair", str("2026-01-01 00:00:00"))},
			"postmeta": {"1": meta("1", "5"), "2": meta("2", "6")},
		}, map[string][]change{}},
		{"a changed value is an update of the whole row", Snapshot{
			"posts":    {"7": post("Fête", str("2026-01-01 00:00:00"))},
			"postmeta": {"1": meta("1", "5"), "2": meta("2", "6")},
		}, map[string][]change{"posts": {{"update", map[string]any{"ID": "7", "post_title": "Fête"}}}}},
		{"a value turned NULL in an ignored column is no change", Snapshot{
			"posts":    {"7": post("Fair", nil)},
			"postmeta": {"1": meta("1", "5"), "2": meta("2", "6")},
		}, map[string][]change{}},
		{"inserted and deleted rows are listed", Snapshot{
			"posts":    {"7": post("Fair", str("2026-01-01 00:00:00"))},
			"postmeta": {"1": meta("1", "5"), "3": meta("3", "8")},
		}, map[string][]change{"postmeta": {
			{"insert", map[string]any{"post_id": "7", "meta_key": "_EventCost", "meta_value": "8"}},
			{"delete", map[string]any{"post_id": "7", "meta_key": "_EventCost", "meta_value": "6"}},
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DiffSnapshots(before, tc.after); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("sameRow tells NULL from the empty string", func(t *testing.T) {
		a, b, ab := []string{"a"}, []string{"b"}, []string{"a", "b"}
		if sameRow(makeRow(a, []*string{nil}), makeRow(a, []*string{str("")})) ||
			sameRow(makeRow(a, []*string{str("")}), makeRow(b, []*string{str("")})) {
			t.Fatal("different rows compared equal")
		}
		if !sameRow(makeRow(ab, []*string{nil, str("x")}), makeRow([]string{"a", "b"}, []*string{nil, str("x")})) {
			t.Fatal("equal rows compared different")
		}
	})
	t.Run("values come back as they were encoded", func(t *testing.T) {
		cols := []string{"a", "b", "c", "d"}
		long := strings.Repeat("é", 200)
		r := makeRow(cols, []*string{str(""), nil, str(long), str("x\x00y")})
		got := rowToMap(r)
		want := map[string]any{"a": "", "b": nil, "c": long, "d": "x\x00y"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("bmpOnly rewrites only characters above U+FFFF", func(t *testing.T) {
		for in, want := range map[string]string{"plain": "plain", "caf\u00e9 \u4e2d": "caf\u00e9 \u4e2d",
			"jam \U0001F3B8!": "jam ?!", "bad \xf8 byte": "bad \xf8 byte"} {
			if got := string(bmpOnly([]byte(in))); got != want {
				t.Errorf("bmpOnly(%q) = %q, want %q", in, got, want)
			}
		}
	})
}

// database/sql's RawBytes read some of SQLite's empty texts as NULL (the first row's, with a fresh
// buffer); a snapshot must tell them apart on every row, as the recordings do.
func TestSnapshotValuesTellTheEmptyStringFromNULL(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE v (a TEXT, b TEXT, n INTEGER, f REAL); INSERT INTO v VALUES ('', NULL, 5, 1.5), (NULL, '', -7, 0.25), ('', 'x', NULL, NULL)"); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT a, b, n, f FROM v")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	vals := make([]rawValue, 4)
	var got []string
	for rows.Next() {
		if err := rows.Scan(&vals[0], &vals[1], &vals[2], &vals[3]); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if v.null {
				got = append(got, "NULL")
			} else {
				got = append(got, strconv.Quote(string(v.b)))
			}
		}
	}
	want := []string{`""`, "NULL", `"5"`, `"1.5"`, "NULL", `""`, `"-7"`, `"0.25"`, `""`, `"x"`, "NULL", "NULL"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
