package compattests

import (
	"reflect"
	"testing"
)

func TestDiffSnapshotsListsOnlyRowsThatChanged(t *testing.T) {
	str := func(s string) *string { return &s }
	post := func(title string, modified *string) row {
		return row{"ID": str("7"), "post_title": str(title), "post_modified": modified}
	}
	meta := func(id, value string) row {
		return row{"meta_id": str(id), "post_id": str("7"), "meta_key": str("_EventCost"), "meta_value": str(value)}
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
		if sameRow(row{"a": nil}, row{"a": str("")}) || sameRow(row{"a": str("")}, row{"b": str("")}) {
			t.Fatal("different rows compared equal")
		}
		if !sameRow(row{"a": nil, "b": str("x")}, row{"a": nil, "b": str("x")}) {
			t.Fatal("equal rows compared different")
		}
	})
}
