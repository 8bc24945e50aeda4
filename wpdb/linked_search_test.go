package wpdb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/calendard/calendard"
)

// A venue or organizer search= with thousands of fragments (search=1,1,1,… in an 8 KiB URL) is
// answered on both stores; on SQLite a flat AND chain of that many LIKEs fails with "Expression tree
// is too large (maximum depth 1000)", the 500 this guards against. The answer is the same as for
// the fragments once each.
func TestSearchLinkedWithThousandsOfFragments(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, postType := range []string{calendard.PostTypeVenue, calendard.PostTypeOrganizer} {
			few, err := s.DB.SearchLinked(ctx, postType, "e")
			if err != nil {
				t.Fatal(err)
			}
			if len(few) == 0 {
				t.Fatalf("%s: no match for e", postType)
			}
			many, err := s.DB.SearchLinked(ctx, postType, strings.Repeat("e,", 2700))
			if err != nil {
				t.Fatalf("%s: %v", postType, err)
			}
			if !slices.Equal(few, many) {
				t.Errorf("%s: %v, want %v", postType, many, few)
			}
			distinct := make([]string, 2000)
			for i := range distinct {
				distinct[i] = fmt.Sprintf("x%d", i)
			}
			none, err := s.DB.SearchLinked(ctx, postType, strings.Join(distinct, ","))
			if err != nil || len(none) != 0 {
				t.Errorf("%s: 2,000 distinct fragments: %v %v, want no match", postType, none, err)
			}
		}
	})
}

func TestBalancedAnd(t *testing.T) {
	for n, want := range map[int]string{1: "(a)", 2: "((a) AND (a))", 3: "((a) AND ((a) AND (a)))"} {
		if got := balancedAnd(slices.Repeat([]string{"a"}, n)); got != want {
			t.Errorf("%d: %s, want %s", n, got, want)
		}
	}
}
