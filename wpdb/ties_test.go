package wpdb

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/calendard/calendard"
)

// addTies gives a store many venues sharing publication seconds across statuses, and tags and
// categories sharing counts, parents and descriptions: rows whose order only the database's
// handling of equal keys decides.
func addTies(t *testing.T, s *Store) {
	t.Helper()
	rng := rand.New(rand.NewSource(3))
	statuses := []string{"publish", "publish", "publish", "draft", "private", "pending"}
	dates := []string{"2026-11-21 23:28:51", "2026-11-21 23:28:51", "2026-11-22 08:00:00", "2025-01-01 00:00:00"}
	for i := 0; i < 60; i++ {
		if _, err := s.sql.Exec("INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, "+
			"post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, guid, post_type) "+
			"VALUES (1, ?, ?, '', ?, '', ?, ?, '', '', ?, ?, '', '', 'tribe_venue')",
			dates[rng.Intn(len(dates))], "2026-11-22 04:28:51", fmt.Sprintf("Tie venue %d", i), statuses[rng.Intn(len(statuses))],
			fmt.Sprintf("tie-venue-%d", i), "2026-11-22 04:28:51", "2026-11-22 04:28:51"); err != nil {
			t.Fatal(err)
		}
	}
	descriptions := []string{"", "", "same", "Same", "other"}
	for i := 0; i < 40; i++ {
		res, err := s.sql.Exec("INSERT INTO wp_terms (name, slug, term_group) VALUES (?, ?, ?)",
			fmt.Sprintf("Tie %d", i%7), fmt.Sprintf("tie-%d", i), rng.Intn(2))
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		taxonomy, parent := calendard.TaxonomyTag, int64(0)
		if i%2 == 0 {
			taxonomy, parent = calendard.TaxonomyCategory, int64(rng.Intn(3)*2)
		}
		if _, err := s.sql.Exec("INSERT INTO wp_term_taxonomy (term_id, taxonomy, description, parent, count) VALUES (?, ?, ?, ?, ?)",
			id, taxonomy, descriptions[rng.Intn(len(descriptions))], parent, rng.Intn(4)); err != nil {
			t.Fatal(err)
		}
	}
}

// Pages of rows with equal sort keys come out of the SQLite store in MariaDB's order: venue lists
// (one status read from an index, several filesorted) and term lists by every orderby.
func TestTiesAgreeAcrossStores(t *testing.T) {
	ctx := context.Background()
	mysql, _ := fixtureStore(t)
	lite := sqliteFixtureStore(t)
	addTies(t, mysql)
	addTies(t, lite)
	// The inserts change more than a tenth of wp_posts, so InnoDB recalculates its statistics in
	// the background, and MariaDB's plan for an 11-ID list (a range on the primary key, or not)
	// depended on whether that had finished. Recalculated now, they are what a site has.
	if _, err := mysql.sql.Exec("ANALYZE TABLE wp_posts, wp_terms, wp_term_taxonomy"); err != nil {
		t.Fatal(err)
	}

	statusSets := [][]string{nil, {"publish"}, {"draft"}, {"publish", "draft"}, {"publish", "private", "pending"}, {"publish", "publish"}}
	// ID lists (an event's venues, those with events, search hits): MariaDB reads short ones by primary
	// key, here up to 10 of the 72 venues.
	ids := func(from, n int) []int64 {
		var out []int64
		for id := from; id < from+n; id++ {
			out = append(out, int64(id))
		}
		return out
	}
	idLists := [][]int64{nil, {20, 21}, {208, 209, 210}, {20, 21, 208}, ids(208, 8), ids(208, 10), ids(208, 11), ids(205, 20), ids(200, 40)}
	for _, statuses := range statusSets {
		for _, page := range []struct{ offset, limit int }{{0, 1}, {0, 5}, {0, 10}, {10, 10}, {5, 7}, {0, 50}, {30, 20}, {0, 100}} {
			for _, in := range idLists {
				f := calendard.LinkedFilter{PostType: calendard.PostTypeVenue, Statuses: statuses, In: in,
					NotIn: []int64{12}, Offset: page.offset, Limit: page.limit}
				want, wantTotal, err := mysql.FindLinked(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				got, total, err := lite.FindLinked(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) || total != wantTotal {
					t.Errorf("venues %+v:\nmysql  %d %v\nsqlite %d %v", f, wantTotal, want, total, got)
				}
			}
		}
	}

	// Not name or term_group: MariaDB sorts those through a temporary table and leaves equal keys in
	// the order of the rows' memory addresses, which not even MariaDB repeats from one connection to
	// the next (TestUnreproducibleTiesKeepTheRows).
	orderBys := []string{calendard.TermOrderBySlug, calendard.TermOrderByCount, calendard.TermOrderByParent,
		calendard.TermOrderByDescription, calendard.TermOrderByTaxonomy, calendard.TermOrderByTermID, calendard.TermOrderByTermTaxonomyID, ""}
	// Filters on term_taxonomy narrow what MariaDB sorts; the search (on terms) picks among the
	// sorted rows.
	filters := []calendard.TermQuery{{}, {Search: "tie 1"}, {Search: "Tie"}, {Exclude: []int64{2, 3, 12, 22, 36}}, {NonEmpty: true}, {Parent: i64(0)}}
	for _, taxonomy := range []string{calendard.TaxonomyTag, calendard.TaxonomyCategory} {
		for _, orderBy := range orderBys {
			for _, desc := range []bool{false, true} {
				for _, page := range []struct{ offset, limit int }{{0, 0}, {0, 3}, {0, 10}, {3, 10}, {10, 50}} {
					for _, q := range filters {
						q.Taxonomy, q.OrderBy, q.Desc, q.Offset, q.Limit = taxonomy, orderBy, desc, page.offset, page.limit
						want, err := mysql.TermIDs(ctx, q)
						if err != nil {
							t.Fatal(err)
						}
						got, err := lite.TermIDs(ctx, q)
						if err != nil {
							t.Fatal(err)
						}
						if !reflect.DeepEqual(got, want) {
							t.Errorf("%+v:\nmysql  %v\nsqlite %v", q, want, got)
						}
					}
				}
			}
		}
	}
}

// Where MariaDB's order of equal keys is not reproducible, the SQLite store still answers the same
// rows in the same key order (equal keys in the order the rows were read).
func TestUnreproducibleTiesKeepTheRows(t *testing.T) {
	ctx := context.Background()
	mysql, _ := fixtureStore(t)
	lite := sqliteFixtureStore(t)
	addTies(t, mysql)
	addTies(t, lite)
	// The inserts change more than a tenth of wp_posts, so InnoDB recalculates its statistics in
	// the background, and MariaDB's plan for an 11-ID list (a range on the primary key, or not)
	// depended on whether that had finished. Recalculated now, they are what a site has.
	if _, err := mysql.sql.Exec("ANALYZE TABLE wp_posts, wp_terms, wp_term_taxonomy"); err != nil {
		t.Fatal(err)
	}
	for _, orderBy := range []string{calendard.TermOrderByName, calendard.TermOrderByTermGroup} {
		for _, desc := range []bool{false, true} {
			q := calendard.TermQuery{Taxonomy: calendard.TaxonomyTag, OrderBy: orderBy, Desc: desc}
			want, err := mysql.TermIDs(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := lite.TermIDs(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			keys := func(s *Store, ids []int64) []string {
				var out []string
				for _, id := range ids {
					var name string
					var group int64
					if err := s.sql.QueryRow("SELECT name, term_group FROM wp_terms WHERE term_id = ?", id).Scan(&name, &group); err != nil {
						t.Fatal(err)
					}
					if orderBy == calendard.TermOrderByName {
						out = append(out, name)
					} else {
						out = append(out, fmt.Sprint(group))
					}
				}
				return out
			}
			if !reflect.DeepEqual(keys(lite, got), keys(mysql, want)) || !reflect.DeepEqual(sorted(got), sorted(want)) {
				t.Errorf("tags by %s desc=%v:\nmysql  %v\nsqlite %v", orderBy, desc, want, got)
			}
			if orderBy == calendard.TermOrderByName && !desc {
				// Equal names in read (term_taxonomy_id) order.
				if i := indexOf(got, 22); i < 0 || indexOf(got, 36) != i+1 || indexOf(got, 50) != i+2 {
					t.Errorf("equal names are not in read order: %v", got)
				}
			}
		}
	}
}

func sorted(ids []int64) []int64 {
	out := append([]int64(nil), ids...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func indexOf(ids []int64, id int64) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}
