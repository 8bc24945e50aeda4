package termapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/phpjson"
)

func TestParseIDList(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want []int64
	}{
		{"a CSV string splits on commas", "4,2,3", []int64{4, 2, 3}},
		{"whitespace separates too and empty items vanish", " 4 ,, 2\t3 ", []int64{4, 2, 3}},
		{"negative IDs become positive and duplicates go", "-4,4,2", []int64{4, 2}},
		{"words become 0", "abc", []int64{0}},
		{"a list is read item by item", []any{"5", json.Number("3")}, []int64{5, 3}},
		{"nested lists are skipped", []any{[]any{"1"}, "2"}, []int64{2}},
		{"a query-string array object is read by value", phpjson.Obj("0", "2", "1", "4"), []int64{2, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseIDList(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseIDList(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseTermOrderBy(t *testing.T) {
	tests := []struct {
		name, raw string
		include   any
		want      string
	}{
		{"column names are case-insensitive", "COUNT", nil, calendard.TermOrderByCount},
		{"id means term_id", "id", nil, calendard.TermOrderByTermID},
		{"none means no ORDER BY", "none", nil, ""},
		{"include without an include list sorts by name", "include", nil, calendard.TermOrderByName},
		{"include with an include list keeps its order", "include", "4,2", calendard.TermOrderByInclude},
		{"unknown keywords sort by name", "bogus", nil, calendard.TermOrderByName},
		{"slug__in with a string slug sorts by name", "slug__in", nil, calendard.TermOrderByName},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseTermOrderBy(tc.raw, tc.include); got != tc.want {
				t.Errorf("parseTermOrderBy(%q) = %q, want %q", tc.raw, got, tc.want)
			}
		})
	}
}

func TestTermLinkCarriesAncestorSlugs(t *testing.T) {
	terms := []*calendard.Term{
		{ID: 2, Slug: "music", Taxonomy: calendard.TaxonomyCategory},
		{ID: 3, Slug: "jazz", Parent: 2, Taxonomy: calendard.TaxonomyCategory},
		{ID: 4, Slug: "bebop", Parent: 3, Taxonomy: calendard.TaxonomyCategory},
		{ID: 5, Slug: "orphan", Parent: 99, Taxonomy: calendard.TaxonomyCategory},
		{ID: 6, Slug: "loop", Parent: 6, Taxonomy: calendard.TaxonomyCategory},
		{ID: 11, Slug: "live-music", Taxonomy: calendard.TaxonomyTag},
	}
	idx := newTermIndex(terms)
	site := &calendard.Site{HomeURL: "https://x.test", PrettyPermalinks: true, CategoryBase: "events/category", TagBase: "tag"}
	r := &handlers.Request{Site: site}
	tests := []struct {
		name string
		id   int64
		want string
	}{
		{"a top-level category is its slug", 2, "https://x.test/events/category/music/"},
		{"a grandchild carries both ancestors", 4, "https://x.test/events/category/music/jazz/bebop/"},
		{"a missing parent leaves an empty segment as WordPress does", 5, "https://x.test/events/category//orphan/"},
		{"a term that is its own parent stops after one round", 6, "https://x.test/events/category/loop/loop/"},
		{"tags are flat", 11, "https://x.test/tag/live-music/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Link(r, idx.ByID(tc.id), idx); got != tc.want {
				t.Errorf("termLink = %q, want %q", got, tc.want)
			}
		})
	}
	r.Site = &calendard.Site{HomeURL: "https://x.test", CategoryBase: "events/category", TagBase: "tag"}
	if got := Link(r, idx.ByID(4), idx); got != "https://x.test/?tribe_events_cat=bebop" {
		t.Errorf("plain permalinks: termLink = %q, want the query-var form", got)
	}
}
