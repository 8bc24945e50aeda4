package wpdb

import (
	"context"
	"testing"
)

// PostByNamePrefix is redirect_guess_404_permalink's lookup on both stores: a LIKE on the slug's
// start with its wildcards taken literally, only the given types and statuses, the first by
// post_name (the index MariaDB reads), not by ID.
func TestPostByNamePrefix(t *testing.T) {
	ctx := context.Background()
	mysql, _ := fixtureStore(t)
	stores := map[string]*Store{"mysql": mysql, "sqlite": sqliteFixtureStore(t)}
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			insert := func(slug, status, typ string) int64 {
				t.Helper()
				res, err := s.sql.Exec("INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, "+
					"post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, guid, post_type) "+
					"VALUES (1, '2026-11-21 23:29:07', '2026-11-22 04:29:07', '', 'Guess', '', ?, ?, '', '', "+
					"'2026-11-21 23:29:07', '2026-11-22 04:29:07', '', '', ?)", status, slug, typ)
				if err != nil {
					t.Fatal(err)
				}
				id, _ := res.LastInsertId()
				return id
			}
			insert("guess-me-draft", "draft", "tribe_events")
			insert("guess-me-3", "publish", "tribe_events")
			want := insert("guess-me-2", "publish", "tribe_events") // higher ID, first by slug
			insert("guess-me-1", "publish", "post")
			insert("guessxme-0", "publish", "tribe_events")
			for _, c := range []struct {
				prefix string
				want   int64
			}{
				{"guess-me", want},
				{"GUESS-ME", want}, // the collation ignores case
				{"guess_me", 0},    // _ is no wildcard
				{"guess%me", 0},    // nor is %
				{"guess-you", 0},
			} {
				p, err := s.PostByNamePrefix(ctx, c.prefix, []string{"tribe_events"}, []string{"publish"})
				if err != nil {
					t.Fatal(err)
				}
				var got int64
				if p != nil {
					got = p.ID
				}
				if got != c.want {
					t.Errorf("%q: post %d, want %d", c.prefix, got, c.want)
				}
			}
		})
	}
}
