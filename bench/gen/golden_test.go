package gen_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/calendard/calendard/bench/gen"
)

// goldenSum is the digest of the rows TestGenerateGolden's calendar writes. The generator's output
// is a function of its options and base: a change of this digest changes every benchmark's
// calendar, so it must be deliberate (and the benchmark figures measured again).
const goldenSum = "8a499a1edc8d11ad95b44d6dbbb4f9157a1889f9f99ac957816848d01a5e7d57"

// TestGenerateGolden writes a 1,500-event calendar into a freshly migrated SQLite database and
// checks that every generated row is the one the generator has always written (a digest of the
// tables' dumps), whatever the batching in which the rows are produced and written: in one batch,
// and in batches of 97 items.
func TestGenerateGolden(t *testing.T) {
	for _, n := range []int{0, 97} {
		t.Run(fmt.Sprintf("batch=%d", n), func(t *testing.T) {
			if n > 0 {
				defer gen.SetBatchItems(n)()
			}
			generateGolden(t)
		})
	}
}

func generateGolden(t *testing.T) {
	ctx := context.Background()
	db, store, err := gen.Open(migratedSQLite(t, "golden.db", "Europe/Berlin"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := gen.Generate(ctx, db, store, gen.Options{Events: 1500, Seed: 3, Now: anchor})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, q := range []string{
		"SELECT ID, post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, post_name, post_modified, post_modified_gmt, post_parent, guid, menu_order, post_type FROM wp_posts WHERE post_type IN ('tribe_events', 'tribe_venue', 'tribe_organizer', 'revision') ORDER BY ID",
		"SELECT m.meta_id, m.post_id, m.meta_key, m.meta_value FROM wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id WHERE p.post_type IN ('tribe_events', 'tribe_venue', 'tribe_organizer') ORDER BY m.meta_id",
		"SELECT t.term_id, t.name, t.slug, tt.term_taxonomy_id, tt.taxonomy, tt.description, tt.parent, tt.count FROM wp_terms t JOIN wp_term_taxonomy tt ON tt.term_id = t.term_id WHERE tt.taxonomy IN ('tribe_events_cat', 'post_tag') ORDER BY t.term_id",
		"SELECT r.object_id, r.term_taxonomy_id, r.term_order FROM wp_term_relationships r JOIN wp_posts p ON p.ID = r.object_id WHERE p.post_type = 'tribe_events' ORDER BY r.object_id, r.term_taxonomy_id",
		"SELECT * FROM wp_tec_events ORDER BY event_id",
		"SELECT * FROM wp_tec_occurrences ORDER BY occurrence_id",
		"SELECT option_value FROM wp_options WHERE option_name = 'tribe_events_calendar_options'",
	} {
		rows := dump(t, db, q)
		if len(rows) == 0 && !strings.Contains(q, "wp_options") {
			t.Errorf("%s: no rows", q)
		}
		h.Write([]byte(q + "\n" + strings.Join(rows, "\n") + "\n"))
	}
	for _, k := range []string{"event_id", "event_slug", "venue_id", "organizer_id", "category_slug", "tag_slug", "search"} {
		h.Write([]byte(k + "=" + res.Picks[k] + "\n"))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != goldenSum {
		t.Errorf("the generated rows' digest is %s, want %s", got, goldenSum)
	}
	if res.Events != 1500 || len(res.EventList) != 1500 || res.Published == 0 || res.Upcoming == 0 {
		t.Errorf("result: %d events (%d listed), %d published, %d upcoming", res.Events, len(res.EventList), res.Published, res.Upcoming)
	}
}
