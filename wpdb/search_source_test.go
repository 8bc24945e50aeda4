package wpdb

import (
	"context"
	"slices"
	"strconv"
	"testing"
)

// TestChangesTheWatermarkCannotSeeShowInTheSearchPrints makes direct changes that move no count,
// highest ID or post_modified_gmt: the post prints name exactly the post changed, and a term rename
// moves the watermark (its term-name checksum) and the term prints.
func TestChangesTheWatermarkCannotSeeShowInTheSearchPrints(t *testing.T) {
	keys := []string{"_VenueCity", "_VenueLat", "_EventVenueID"}
	ctx := context.Background()
	eachStore(t, func(t *testing.T, s *Store) {
		exec := func(q string) {
			t.Helper()
			res, err := s.DB.sql.ExecContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				t.Fatalf("%s changed nothing", q)
			}
		}
		for _, tc := range []struct {
			name    string
			change  string
			changed []int64
		}{
			{"a bare meta UPDATE changes its post's print only", "UPDATE wp_postmeta SET meta_value = 'Wollongong' WHERE post_id = 12 AND meta_key = '_VenueCity'", []int64{12}},
			{"a meta key outside the list changes no print", "UPDATE wp_postmeta SET meta_value = '+1 000' WHERE post_id = 12 AND meta_key = '_VenuePhone'", nil},
			{"a title UPDATE without post_modified_gmt changes its post's print", "UPDATE wp_posts SET post_title = 'Numbat Fair' WHERE ID = 41", []int64{41}},
			{"a deleted meta row changes its post's print", "DELETE FROM wp_postmeta WHERE post_id = 12 AND meta_key = '_VenueLat'", []int64{12}},
			{"a relationship moved to another term changes the event's print",
				"UPDATE wp_term_relationships SET term_taxonomy_id = (SELECT MAX(term_taxonomy_id) FROM wp_term_taxonomy) WHERE object_id = 46 AND term_taxonomy_id = (SELECT MIN(term_taxonomy_id) FROM wp_term_relationships WHERE object_id = 46)",
				[]int64{46}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before, err := s.DB.SearchPrints(ctx, keys)
				if err != nil {
					t.Fatal(err)
				}
				if len(before) < 150 {
					t.Fatalf("%d prints, want one per event, venue and organizer", len(before))
				}
				exec(tc.change)
				after, err := s.DB.SearchPrints(ctx, keys)
				if err != nil {
					t.Fatal(err)
				}
				var changed []int64
				for id, p := range after {
					if before[id] != p {
						changed = append(changed, id)
					}
				}
				slices.Sort(changed)
				if !slices.Equal(changed, tc.changed) {
					t.Fatalf("changed prints %v, want %v", changed, tc.changed)
				}
			})
		}
		t.Run("a term renamed directly changes the prints of the events carrying it, and only theirs", func(t *testing.T) {
			var id int64
			if err := s.DB.sql.QueryRowContext(ctx, "SELECT MAX(term_id) FROM wp_term_taxonomy WHERE taxonomy = 'post_tag' AND count > 0").Scan(&id); err != nil {
				t.Fatal(err)
			}
			want, err := s.DB.EventsWithTermIDs(ctx, []int64{id})
			if err != nil || len(want) == 0 {
				t.Fatalf("events with tag %d: %v %v", id, want, err)
			}
			before, err := s.DB.SearchPrints(ctx, keys)
			if err != nil {
				t.Fatal(err)
			}
			exec("UPDATE wp_terms SET name = 'Quokka Tag' WHERE term_id = " + strconv.FormatInt(id, 10))
			after, err := s.DB.SearchPrints(ctx, keys)
			if err != nil {
				t.Fatal(err)
			}
			var changed []int64
			for pid, p := range after {
				if before[pid] != p {
					changed = append(changed, pid)
				}
			}
			slices.Sort(changed)
			slices.Sort(want)
			if !slices.Equal(changed, want) {
				t.Fatalf("changed prints %v, want the events with the tag %v", changed, want)
			}
		})
		t.Run("a term renamed directly moves the watermark and its print", func(t *testing.T) {
			f := s.DB.Changes()
			if _, err := f.Poll(ctx); err != nil {
				t.Fatal(err)
			}
			if moved, err := f.Poll(ctx); err != nil || moved {
				t.Fatalf("a poll without a change published: %v %v", moved, err)
			}
			before, err := s.DB.TermPrints(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var id int64
			if err := s.DB.sql.QueryRowContext(ctx, "SELECT MIN(term_id) FROM wp_term_taxonomy WHERE taxonomy = 'tribe_events_cat'").Scan(&id); err != nil {
				t.Fatal(err)
			}
			exec("UPDATE wp_terms SET name = 'Axolotl Works' WHERE term_id = " + strconv.FormatInt(id, 10))
			if moved, err := f.Poll(ctx); err != nil || !moved {
				t.Fatalf("the poll after a direct rename published nothing: %v", err)
			}
			after, err := s.DB.TermPrints(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for tid, p := range after {
				if (before[tid] != p) != (tid == id) {
					t.Errorf("term %d: print before %d after %d (renamed: %d)", tid, before[tid], p, id)
				}
			}
			evs, err := s.DB.EventsWithTermIDs(ctx, []int64{id})
			if err != nil || len(evs) == 0 {
				t.Fatalf("events with the renamed term: %v %v", evs, err)
			}
		})
	})
}
