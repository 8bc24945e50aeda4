package search

import "testing"

func TestExceptIDsLeavesOutRunsOfListedEvents(t *testing.T) {
	listed := []int64{3, 5, 8, 9, 12, 20, 21, 30}
	for _, tc := range []struct {
		name string
		ids  []int64
		want string
	}{
		{"nothing to leave out is no filter", nil, ""},
		{"every listed event is one range", listed, "NOT (id 3 TO 30)"},
		{"lone events are listed", []int64{5, 12, 30}, "NOT (id IN [5, 12, 30])"},
		{"runs of listed neighbours are ranges", []int64{3, 5, 9, 12, 20, 30}, "NOT (id 3 TO 5 OR id 9 TO 20 OR id IN [30])"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := exceptIDs(tc.ids, listed); got != tc.want {
				t.Fatalf("exceptIDs(%v) = %q, want %q", tc.ids, got, tc.want)
			}
		})
	}
}
