package wpdb

import (
	"context"
	"fmt"

	"github.com/calendard/calendard"
)

// Write-side queries of venue and organizer writes.

// duplicateColumns are the post columns FindPostByFields may compare (Tribe__Duplicate__Post's post
// fields for venues and organizers).
var duplicateColumns = map[string]bool{"post_title": true, "post_content": true, "post_excerpt": true}

// FindPostByFields is Tribe__Duplicate__Post::find_for with the "same" strategy: every given column
// equal under the table collation, statuses other than trash (and the plugin's misspelt "autodraft").
func (t *Tx) FindPostByFields(ctx context.Context, postType string, fields []calendard.KV) (int64, error) {
	if len(fields) == 0 {
		return 0, nil
	}
	where := "post_type = ? AND post_status NOT IN ('trash', 'autodraft')"
	args := []any{postType}
	for _, f := range fields {
		if !duplicateColumns[f.Key] {
			return 0, fmt.Errorf("FindPostByFields: column %q not allowed", f.Key)
		}
		where += " AND " + f.Key + " = ?"
		args = append(args, f.Value)
	}
	rows, err := t.query(ctx, "SELECT ID FROM "+t.t("posts")+" WHERE "+where+" ORDER BY ID LIMIT 1", args...)
	if err != nil {
		return 0, err
	}
	ids, err := scanIDs(rows)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[0], nil
}

// LinkedEventIDs returns the events pointing at a venue or organizer that have not ended, published
// or private as the query allows, hidden ones included, in event list order (start, publication
// date, ID). Dates come from the same columns event lists use.
func (t *Tx) LinkedEventIDs(ctx context.Context, lq calendard.LinkedEventsQuery) ([]int64, error) {
	q := t.db.newEventQuery(lq.Site)
	q.add("p.post_type = ?", calendard.PostTypeEvent)
	switch {
	case lq.Private:
		q.add("p.post_status IN ('publish', 'private')")
	case lq.PrivateAuthor > 0:
		q.add("(p.post_status = 'publish' OR (p.post_status = 'private' AND p.post_author = ?))", lq.PrivateAuthor)
	default:
		q.add("p.post_status = 'publish'")
	}
	q.add("EXISTS (SELECT 1 FROM "+t.t("postmeta")+" lm WHERE lm.post_id = p.ID AND lm.meta_key = ? AND "+
		t.db.castInt("lm.meta_value")+" = ?)", lq.MetaKey, lq.LinkedID)
	q.bound(false, ">=", lq.EndsOnOrAfter)
	limit := lq.Limit
	if limit <= 0 {
		limit = 10
	}
	rows, err := t.query(ctx, "SELECT p.ID FROM "+q.from+" WHERE "+q.whereSQL()+
		" GROUP BY p.ID, p.post_date ORDER BY MIN("+q.start+"), p.post_date, p.ID LIMIT ?", append(q.args, limit)...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}
