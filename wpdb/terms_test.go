package wpdb

import (
	"context"
	"reflect"
	"testing"

	"github.com/calendard/calendard"
)

func i64(n int64) *int64 { return &n }

// The fixture's event categories are 2..10 (10 "Empty Category" has no posts; 3 and 4 are children of 2,
// 6 of 5, 9 of 8); its tags are 11..20 (20 "Late Night" has no posts).
func TestTermQueryIDsAndCounts(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		cat := func(q calendard.TermQuery) calendard.TermQuery {
			q.Taxonomy = calendard.TaxonomyCategory
			if q.OrderBy == "" {
				q.OrderBy = calendard.TermOrderByName
			}
			return q
		}
		tag := func(q calendard.TermQuery) calendard.TermQuery {
			q.Taxonomy = calendard.TaxonomyTag
			if q.OrderBy == "" {
				q.OrderBy = calendard.TermOrderByName
			}
			return q
		}
		tests := []struct {
			name  string
			q     calendard.TermQuery
			ids   []int64
			count int
		}{
			{"categories sort by name ascending", cat(calendard.TermQuery{}), []int64{7, 10, 3, 9, 2, 4, 6, 5, 8}, 9},
			{"descending reverses the name order", cat(calendard.TermQuery{Desc: true}), []int64{8, 5, 6, 4, 2, 9, 3, 10, 7}, 9},
			{"non-empty drops terms without posts", cat(calendard.TermQuery{NonEmpty: true}), []int64{7, 3, 9, 2, 4, 6, 5, 8}, 8},
			{"include keeps only the listed IDs in name order", cat(calendard.TermQuery{Include: []int64{4, 2, 3}}), []int64{3, 2, 4}, 3},
			{"orderby include follows the include list", cat(calendard.TermQuery{Include: []int64{4, 2, 3}, OrderBy: calendard.TermOrderByInclude, OrderIDs: []int64{4, 2, 3}}), []int64{4, 2, 3}, 3},
			{"exclude removes the listed IDs", cat(calendard.TermQuery{Exclude: []int64{2, 3}}), []int64{7, 10, 9, 4, 6, 5, 8}, 7},
			{"slug matches exactly", cat(calendard.TermQuery{Slugs: []string{"jazz"}}), []int64{3}, 1},
			{"orderby slug__in follows the slug list", cat(calendard.TermQuery{Slugs: []string{"rock-and-roll", "music", "jazz"},
				OrderBy: calendard.TermOrderBySlugIn, OrderSlugs: []string{"rock-and-roll", "music", "jazz"}}), []int64{4, 2, 3}, 3},
			{"orderby slug__in descending reverses it", cat(calendard.TermQuery{Slugs: []string{"rock-and-roll", "music", "jazz"},
				OrderBy: calendard.TermOrderBySlugIn, OrderSlugs: []string{"rock-and-roll", "music", "jazz"}, Desc: true}), []int64{3, 2, 4}, 3},
			{"search matches name or slug case-insensitively", cat(calendard.TermQuery{Search: "ROCK"}), []int64{4}, 1},
			{"search wildcards match literally", cat(calendard.TermQuery{Search: "%"}), nil, 0},
			{"parent lists direct children", cat(calendard.TermQuery{Parent: i64(2)}), []int64{3, 4}, 2},
			{"object IDs list the post's terms", cat(calendard.TermQuery{ObjectIDs: []int64{34}}), []int64{9}, 1},
			{"orderby parent sorts by parent then as the database breaks ties", cat(calendard.TermQuery{OrderBy: calendard.TermOrderByParent}), []int64{2, 5, 7, 8, 10, 3, 4, 6, 9}, 9},
			{"tags page two with LIMIT offset", tag(calendard.TermQuery{Limit: 3, Offset: 3}), []int64{12, 13, 20}, 10},
			{"tags past the end give nothing but the full count", tag(calendard.TermQuery{Limit: 3, Offset: 294}), nil, 10},
			// Ties (14/17 and 11/13 share a count) come out as MariaDB orders them for WordPress' statement.
			{"tag count ties keep the reference order", tag(calendard.TermQuery{OrderBy: calendard.TermOrderByCount, Limit: 50}), []int64{20, 16, 14, 17, 18, 19, 15, 13, 11, 12}, 10},
			{"tag parent ties keep the reference order", tag(calendard.TermQuery{OrderBy: calendard.TermOrderByParent, Limit: 50}), []int64{11, 19, 18, 17, 16, 15, 14, 13, 12, 20}, 10},
			{"tag search finds the stored HTML-escaped name", tag(calendard.TermQuery{Search: "food &amp; drink"}), []int64{12}, 1},
			{"tags of a post with term order", tag(calendard.TermQuery{ObjectIDs: []int64{44}}), []int64{15, 13, 17}, 3},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				ids, err := s.TermIDs(ctx, tc.q)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(ids, tc.ids) {
					t.Errorf("ids = %v, want %v", ids, tc.ids)
				}
				n, err := s.CountTerms(ctx, tc.q)
				if err != nil {
					t.Fatal(err)
				}
				if n != tc.count {
					t.Errorf("count = %d, want %d", n, tc.count)
				}
			})
		}
	})
}

func TestTermQuerySQLShape(t *testing.T) {
	db := &DB{prefix: "wp_"}
	tests := []struct {
		name    string
		q       calendard.TermQuery
		count   bool
		want    string
		wantErr bool
	}{
		{"a flat page is limited in SQL", calendard.TermQuery{Taxonomy: "post_tag", OrderBy: "name", NonEmpty: true, Limit: 10, Offset: 20}, false,
			"SELECT  t.term_id FROM wp_terms AS t  INNER JOIN wp_term_taxonomy AS tt ON t.term_id = tt.term_id WHERE tt.taxonomy IN (?) AND tt.count > 0 ORDER BY t.name ASC LIMIT 20,10", false},
		{"the first page has no offset", calendard.TermQuery{Taxonomy: "post_tag", OrderBy: "slug", Desc: true, Limit: 10}, false,
			"SELECT  t.term_id FROM wp_terms AS t  INNER JOIN wp_term_taxonomy AS tt ON t.term_id = tt.term_id WHERE tt.taxonomy IN (?) ORDER BY t.slug DESC LIMIT 10", false},
		{"object IDs join relationships and select distinct", calendard.TermQuery{Taxonomy: "post_tag", ObjectIDs: []int64{44}, OrderBy: "term_order"}, false,
			"SELECT DISTINCT t.term_id FROM wp_terms AS t  INNER JOIN wp_term_taxonomy AS tt ON t.term_id = tt.term_id INNER JOIN wp_term_relationships AS tr ON tr.term_taxonomy_id = tt.term_taxonomy_id WHERE tt.taxonomy IN (?) AND tr.object_id IN (44) ORDER BY tr.term_order ASC", false},
		{"orderby none has no ORDER BY", calendard.TermQuery{Taxonomy: "x", Include: []int64{1, 2}, Exclude: []int64{3}}, false,
			"SELECT  t.term_id FROM wp_terms AS t  INNER JOIN wp_term_taxonomy AS tt ON t.term_id = tt.term_id WHERE tt.taxonomy IN (?) AND t.term_id IN ( 1,2 ) AND t.term_id NOT IN (3)", false},
		{"the count has no order and no limit", calendard.TermQuery{Taxonomy: "x", OrderBy: "name", Parent: i64(2), Search: "a", Limit: 5}, true,
			"SELECT  COUNT(*) FROM wp_terms AS t  INNER JOIN wp_term_taxonomy AS tt ON t.term_id = tt.term_id WHERE tt.taxonomy IN (?) AND tt.parent = ? AND ((t.name LIKE ?) OR (t.slug LIKE ?))", false},
		{"an unknown orderby is refused", calendard.TermQuery{Taxonomy: "x", OrderBy: "t.name; DROP TABLE"}, false, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := db.termQuerySQL(tc.q, tc.count)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if got != tc.want {
				t.Errorf("sql =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
