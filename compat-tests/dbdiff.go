package compattests

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Tables whose changes the sets record, with their primary key columns.
var trackedTables = []struct {
	name string
	pk   []string
	meta bool // matched by content, not by meta_id
}{
	{"posts", []string{"ID"}, false},
	{"postmeta", []string{"meta_id"}, true},
	{"terms", []string{"term_id"}, false},
	{"term_taxonomy", []string{"term_taxonomy_id"}, false},
	{"term_relationships", []string{"object_id", "term_taxonomy_id"}, false},
	{"termmeta", []string{"meta_id"}, true},
	{"tec_events", []string{"event_id"}, false},
	{"tec_occurrences", []string{"occurrence_id"}, false},
}

// Rule 2 and 3 of the set README: what is ignored and what is compared as "present".
var (
	ignoredPostColumns = map[string]bool{"post_date": true, "post_date_gmt": true, "post_modified": true, "post_modified_gmt": true, "guid": true}
	ignoredMetaKeys    = map[string]bool{"_edit_lock": true, "_edit_last": true, "_tribe_modified_fields": true, "_encloseme": true, "_pingme": true}
	clockMetaKeys      = map[string]bool{"_wp_trash_meta_time": true, "_Venuepost_date": true, "_Venuepost_date_gmt": true,
		"_Organizerpost_date": true, "_Organizerpost_date_gmt": true}
)

// row is one row as read: its table's columns (one slice shared by every row the snapshot read
// from that table) and its values encoded in one string (see encodeValue). A write changes a few
// rows of the fixture's thousands, so most rows compare as one string; only changed rows are decoded
// (rowToMap), which keeps the suite's own CPU small.
type row struct {
	cols []string
	enc  string
}

// Snapshot is the content of the tracked tables.
type Snapshot map[string]map[string]row // table -> pk -> row

// encodeValue appends one value to an encoded row: 0 for NULL, else uvarint(len+1) and the bytes.
func encodeValue(buf []byte, v []byte, null bool) []byte {
	if null {
		return append(buf, 0)
	}
	buf = binary.AppendUvarint(buf, uint64(len(v))+1)
	return append(buf, v...)
}

// values decodes a row's values, nil for NULL, in the order of its columns.
func (r row) values() []*string {
	out := make([]*string, 0, len(r.cols))
	for s := r.enc; s != ""; {
		n, k := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
		if k <= 0 || n > uint64(len(s)-k)+1 {
			panic("compat-tests: corrupt encoded row")
		}
		s = s[k:]
		if n == 0 {
			out = append(out, nil)
			continue
		}
		v := s[:n-1]
		s = s[n-1:]
		out = append(out, &v)
	}
	return out
}

// makeRow encodes a row of the given columns and values (nil for NULL).
func makeRow(cols []string, vals []*string) row {
	var buf []byte
	for _, v := range vals {
		if v == nil {
			buf = encodeValue(buf, nil, true)
		} else {
			buf = encodeValue(buf, []byte(*v), false)
		}
	}
	return row{cols: cols, enc: string(buf)}
}

// rawValue is a scan target that tells NULL from the empty string, which sql.RawBytes does not
// on every driver (modernc's SQLite hands some empty texts to RawBytes as nil), and reuses its
// buffer from row to row. Values are written as database/sql writes them into RawBytes.
type rawValue struct {
	b    []byte
	null bool
}

func (v *rawValue) Scan(src any) error {
	v.b, v.null = v.b[:0], false
	switch s := src.(type) {
	case nil:
		v.null = true
	case []byte:
		v.b = append(v.b, s...)
	case string:
		v.b = append(v.b, s...)
	case int64:
		v.b = strconv.AppendInt(v.b, s, 10)
	case uint64: // go-sql-driver/mysql, for unsigned columns
		v.b = strconv.AppendUint(v.b, s, 10)
	case float64:
		v.b = strconv.AppendFloat(v.b, s, 'g', -1, 64)
	case bool:
		v.b = strconv.AppendBool(v.b, s)
	case time.Time:
		v.b = s.AppendFormat(v.b, time.RFC3339Nano)
	default:
		return fmt.Errorf("unexpected %T from the driver", src)
	}
	return nil
}

// TakeSnapshot reads every tracked table (the fixture is small, so a full read is fine); text, when
// not nil, rewrites every value read (it returns its argument when there is nothing to rewrite).
func TakeSnapshot(ctx context.Context, db *sql.DB, prefix string, text func([]byte) []byte) (Snapshot, error) {
	snap := Snapshot{}
	for _, tt := range trackedTables {
		rows, err := db.QueryContext(ctx, "SELECT * FROM "+prefix+tt.name)
		if err != nil {
			return nil, err
		}
		cols, err := rows.Columns()
		if err != nil {
			rows.Close()
			return nil, err
		}
		var pk []int
		for _, k := range tt.pk {
			i := slices.Index(cols, k)
			if i < 0 {
				rows.Close()
				return nil, fmt.Errorf("%s%s has no column %s", prefix, tt.name, k)
			}
			pk = append(pk, i)
		}
		vals := make([]rawValue, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		m := map[string]row{}
		var buf, key []byte
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, err
			}
			buf = buf[:0]
			for i := range vals {
				v := &vals[i]
				if !v.null && text != nil {
					v.b = text(v.b)
				}
				buf = encodeValue(buf, v.b, v.null)
			}
			key = key[:0]
			for j, i := range pk {
				if j > 0 {
					key = append(key, '/')
				}
				if vals[i].null {
					key = append(key, "NULL"...)
				} else {
					key = append(key, vals[i].b...)
				}
			}
			m[string(key)] = row{cols: cols, enc: string(buf)}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
		snap[tt.name] = m
	}
	return snap, nil
}

// change is one normalised row change.
type change struct {
	op  string
	row map[string]any
}

// normalise drops ignored columns and rows and masks clock values.
func normalise(table string, r map[string]any) (map[string]any, bool) {
	out := map[string]any{}
	for k, v := range r {
		if table == "posts" && ignoredPostColumns[k] {
			continue
		}
		if strings.HasPrefix(table, "tec_") && k == "updated_at" {
			// Rule 3 compares it as present, but the recordings leave the column out entirely.
			continue
		}
		out[k] = v
	}
	if table == "postmeta" || table == "termmeta" {
		key, _ := out["meta_key"].(string)
		if ignoredMetaKeys[key] {
			return nil, false
		}
		if clockMetaKeys[key] {
			if v, _ := out["meta_value"].(string); v != "" {
				out["meta_value"] = "(present)"
			}
		}
		delete(out, "meta_id")
	}
	return out, true
}

func rowToMap(r row) map[string]any {
	m := map[string]any{}
	for i, v := range r.values() {
		if v == nil {
			m[r.cols[i]] = nil
		} else {
			m[r.cols[i]] = *v
		}
	}
	return m
}

// DiffSnapshots lists the normalised changes between two snapshots per table (using the unprefixed table name).
func DiffSnapshots(before, after Snapshot) map[string][]change {
	out := map[string][]change{}
	for _, tt := range trackedTables {
		b, a := before[tt.name], after[tt.name]
		add := func(op string, r row) {
			n, ok := normalise(tt.name, rowToMap(r))
			if ok {
				out[tt.name] = append(out[tt.name], change{op, n})
			}
		}
		for k, ar := range a {
			br, ok := b[k]
			if !ok {
				add("insert", ar)
				continue
			}
			// Nearly every row is untouched by a write: a row equal value for value normalises
			// to the same thing, so only the others go through normalise and fmt.Sprint (which
			// would otherwise be most of each write case's time).
			if sameRow(br, ar) {
				continue
			}
			nb, okb := normalise(tt.name, rowToMap(br))
			na, oka := normalise(tt.name, rowToMap(ar))
			if okb != oka || fmt.Sprint(nb) != fmt.Sprint(na) {
				add("update", ar)
			}
		}
		for k, br := range b {
			if _, ok := a[k]; !ok {
				add("delete", br)
			}
		}
	}
	return out
}

// sameRow reports whether two rows hold the same columns with the same values (NULL equal to NULL
// only).
func sameRow(a, b row) bool {
	return a.enc == b.enc && slices.Equal(a.cols, b.cols)
}

// recordedChanges decodes a case's db_changes into the same normalised form (tables unprefixed).
func recordedChanges(raw json.RawMessage, prefix string) (map[string][]change, error) {
	out := map[string][]change{}
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	var rec map[string][]struct {
		Op  string         `json:"op"`
		Row map[string]any `json:"row"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, err
	}
	for table, rows := range rec {
		name := strings.TrimPrefix(table, prefix)
		for _, r := range rows {
			if n, ok := normalise(name, r.Row); ok {
				out[name] = append(out[name], change{r.Op, n})
			}
		}
	}
	return out, nil
}

// compareChanges compares recorded and actual changes as multisets per table.
func compareChanges(want, got map[string][]change) []Diff {
	var diffs []Diff
	for _, tt := range trackedTables {
		w, g := canonical(want[tt.name]), canonical(got[tt.name])
		used := make([]bool, len(g))
		var missing []string
		for _, ws := range w {
			found := false
			for i, gs := range g {
				if !used[i] && gs == ws {
					used[i], found = true, true
					break
				}
			}
			if !found {
				missing = append(missing, ws)
			}
		}
		var extra []string
		for i, gs := range g {
			if !used[i] {
				extra = append(extra, gs)
			}
		}
		for _, m := range missing {
			diffs = append(diffs, Diff{"db " + tt.name, m, "(missing)"})
		}
		for _, e := range extra {
			diffs = append(diffs, Diff{"db " + tt.name, "(no such change)", e})
		}
	}
	return diffs
}

// canonical renders changes as sorted strings (JSON with sorted keys).
func canonical(cs []change) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		b, _ := json.Marshal(c.row)
		out = append(out, c.op+" "+string(b))
	}
	sort.Strings(out)
	return out
}

// changedPostIDs are the posts a write touched: their record dates are compared as well-formed only.
func changedPostIDs(want map[string][]change) map[string]bool {
	ids := map[string]bool{}
	for _, c := range want["posts"] {
		if id, ok := c.row["ID"].(string); ok {
			ids[id] = true
		}
	}
	return ids
}
