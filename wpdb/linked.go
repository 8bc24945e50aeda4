package wpdb

import (
	"context"
	"database/sql"
	"regexp"
	"strings"

	"github.com/calendard/calendard"
)

// linkedWhere builds the WHERE clause of a venue/organizer list in WP_Query's shape. The shape
// matters beyond the result set: MySQL breaks ties between equal publication dates according to
// the plan it picks, and clients see that order, so the SQL mirrors what WordPress sends.
func (db *DB) linkedWhere(f calendard.LinkedFilter) (string, []any) {
	posts := db.t("posts")
	var b strings.Builder
	var args []any
	b.WriteString("1=1")
	if f.In != nil {
		if len(f.In) == 0 {
			b.WriteString(" AND 1=0")
		} else {
			b.WriteString(" AND " + posts + ".ID IN (" + placeholders(len(f.In)) + ")")
			args = append(args, int64Args(f.In)...)
		}
	}
	if len(f.NotIn) > 0 {
		b.WriteString(" AND " + posts + ".ID NOT IN (" + placeholders(len(f.NotIn)) + ")")
		args = append(args, int64Args(f.NotIn)...)
	}
	if f.ModifiedBefore != nil {
		b.WriteString(" AND " + posts + ".post_modified < ?")
		args = append(args, *f.ModifiedBefore)
	}
	if f.ModifiedAfter != nil {
		b.WriteString(" AND " + posts + ".post_modified > ?")
		args = append(args, *f.ModifiedAfter)
	}
	if f.Statuses == nil {
		b.WriteString(" AND ((" + posts + ".post_type = ? AND (" + posts + ".post_status <> 'trash' AND " + posts + ".post_status <> 'auto-draft')))")
		args = append(args, f.PostType)
	} else {
		b.WriteString(" AND " + posts + ".post_type = ? AND ((")
		args = append(args, f.PostType)
		for i, s := range f.Statuses {
			if i > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString(posts + ".post_status = ?")
			args = append(args, s)
		}
		b.WriteString("))")
	}
	if f.ReadableBy != nil {
		cond, rargs := readableSQL(posts, f.ReadableBy)
		b.WriteString(" AND " + cond)
		args = append(args, rargs...)
	}
	return b.String(), args
}

// FindLinked returns one page of venue/organizer IDs, newest first, and the total.
func (db *DB) FindLinked(ctx context.Context, f calendard.LinkedFilter) ([]int64, int, error) {
	where, args := db.linkedWhere(f)
	var total int
	if err := db.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db.t("posts")+" WHERE "+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if f.Limit <= 0 || f.Offset >= total {
		return nil, total, nil
	}
	ids, err := db.newestFirst(ctx, where, args, f)
	return ids, total, err
}

// newestFirst runs WP_Query's page statement: ORDER BY post_date DESC LIMIT offset, count. Among equal
// dates MariaDB answers in its plan's order: one status is read from the type_status_date index
// backwards (newest ID first); several are read from it in order (status, date, ID), or by primary
// key when the statement lists few IDs (byPrimaryKey), and filesorted.
func (db *DB) newestFirst(ctx context.Context, where string, args []any, f calendard.LinkedFilter) ([]int64, error) {
	posts := db.t("posts")
	if !oneValue(f.Statuses) && db.filesortTies() {
		read := posts + ".post_status, " + posts + ".post_date, " + posts + ".ID"
		if f.In != nil {
			all, allArgs := db.linkedWhere(calendard.LinkedFilter{PostType: f.PostType, Statuses: f.Statuses})
			var n int
			if err := db.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+posts+" WHERE "+all, allArgs...).Scan(&n); err != nil {
				return nil, err
			}
			if byPrimaryKey(distinctIDs(f.In), n) {
				read = posts + ".ID"
			}
		}
		return db.filesortPage(ctx, "SELECT "+posts+".ID, "+posts+".post_date, 1 FROM "+posts+" WHERE "+where+
			" ORDER BY "+read, args, filesortKey{desc: true}, true, f.Offset, f.Limit)
	}
	rows, err := db.sql.QueryContext(ctx, "SELECT "+posts+".ID FROM "+posts+" WHERE "+where+
		" ORDER BY "+posts+".post_date DESC"+db.tieBreak(posts+".ID DESC")+" LIMIT ?, ?", append(args, f.Offset, f.Limit)...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// byPrimaryKey is MariaDB 10.11's cost-based choice for a post list of several statuses restricted
// to k IDs, where n rows of the type have those statuses: it reads the k rows by primary key rather
// than scanning type_status_date while 7k <= n+2 (the rule it follows from 12 to 800 rows;
// TestTiesAgreeAcrossStores holds it against MariaDB).
func byPrimaryKey(k, n int) bool { return 7*k <= n+2 }

// distinctIDs counts the distinct IDs of a list.
func distinctIDs(ids []int64) int {
	seen := map[int64]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	return len(seen)
}

// oneValue reports whether a list holds exactly one distinct value.
func oneValue(ss []string) bool {
	for _, s := range ss {
		if s != ss[0] {
			return false
		}
	}
	return len(ss) > 0
}

// LinkedPosts loads venues or organizers with meta and images, in the given order.
func (db *DB) LinkedPosts(ctx context.Context, ids []int64) ([]*calendard.LinkedPost, error) {
	posts, err := db.postsByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	thumbs := map[int64]bool{}
	for _, p := range posts {
		if id := atoiID(p.Meta.Value("_thumbnail_id")); id > 0 {
			thumbs[id] = true
		}
	}
	atts, err := db.postsByIDs(ctx, keys(thumbs))
	if err != nil {
		return nil, err
	}
	l := &linked{posts: atts}
	out := make([]*calendard.LinkedPost, 0, len(ids))
	for _, id := range ids {
		if p := posts[id]; p != nil {
			out = append(out, &calendard.LinkedPost{Post: p, Image: l.attachment(p)})
		}
	}
	return out, nil
}

var fragSep = regexp.MustCompile(`(?i)[^a-z\d-]+`)

// SearchLinked is find_like: the search is cut into fragments at every character that is not an
// ASCII letter, digit or hyphen; a post matches when one of its fields contains all fragments.
// Trashed posts never match; no fragment means no match.
func (db *DB) SearchLinked(ctx context.Context, postType, search string) ([]int64, error) {
	var frags []string
	seen := map[string]bool{}
	for _, f := range strings.Split(fragSep.ReplaceAllString(search, "_"), "_") {
		// array_filter drops "" and "0"; a fragment given twice is one condition (search=1,1,1,… of
		// 8 KiB would otherwise make thousands of LIKEs for every row that matched one).
		if f != "" && f != "0" {
			if p := "%" + escapeLike(strings.ToLower(strings.TrimSpace(f))) + "%"; !seen[p] {
				seen[p] = true
				frags = append(frags, p)
			}
		}
	}
	if len(frags) == 0 {
		return nil, nil
	}
	all := func(col string) string {
		parts := make([]string, len(frags))
		for i := range frags {
			parts[i] = col + " LIKE ?"
		}
		return balancedAnd(parts)
	}
	var args []any
	var ors []string
	for _, col := range []string{"p.post_title", "p.post_content", "p.post_excerpt"} {
		ors = append(ors, all(col))
		args = append(args, stringArgs(frags)...)
	}
	fields := calendard.LinkedSearchFields(postType)
	ors = append(ors, "EXISTS (SELECT 1 FROM "+db.t("postmeta")+" m WHERE m.post_id = p.ID AND m.meta_key IN ("+
		placeholders(len(fields))+") AND "+all("m.meta_value")+")")
	args = append(args, stringArgs(fields)...)
	args = append(args, stringArgs(frags)...)
	rows, err := db.sql.QueryContext(ctx, "SELECT p.ID FROM "+db.t("posts")+" p WHERE p.post_type = ? AND p.post_status <> 'trash' AND ("+
		strings.Join(ors, " OR ")+") ORDER BY p.ID", append([]any{postType}, args...)...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// balancedAnd joins conditions with AND as a balanced tree: a search may bring thousands of
// fragments (an 8 KiB request target holds ~2,700), and SQLite refuses an expression deeper than 1,000
// ("Expression tree is too large"), which a flat a AND b AND … chain of them is.
func balancedAnd(parts []string) string {
	if len(parts) == 1 {
		return "(" + parts[0] + ")"
	}
	mid := len(parts) / 2
	return "(" + balancedAnd(parts[:mid]) + " AND " + balancedAnd(parts[mid:]) + ")"
}

// LinkedOfEvents returns the IDs the events' venue/organizer meta points to, in one query: event
// by event in the given order, each event's in row order. Values that are not a positive integer
// point nowhere and are dropped.
func (db *DB) LinkedOfEvents(ctx context.Context, postType string, eventIDs []int64) ([]int64, error) {
	if len(eventIDs) == 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, "SELECT post_id, meta_value FROM "+db.t("postmeta")+
		" WHERE post_id IN ("+placeholders(len(eventIDs))+") AND meta_key = ? ORDER BY meta_id",
		append(int64Args(eventIDs), calendard.LinkedMetaKey(postType))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byEvent := map[int64][]int64{}
	for rows.Next() {
		var event int64
		var v nullString
		if err := rows.Scan(&event, &v); err != nil {
			return nil, err
		}
		if id := atoiID(strings.TrimSpace(v.String)); id > 0 {
			byEvent[event] = append(byEvent[event], id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var ids []int64
	for _, ev := range eventIDs {
		ids = append(ids, byEvent[ev]...)
	}
	return ids, nil
}

// LinkedWithEvents returns the IDs events point to, counting events in any status but draft and pending.
func (db *DB) LinkedWithEvents(ctx context.Context, postType string) ([]int64, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT DISTINCT m.meta_value FROM "+db.t("postmeta")+" m JOIN "+db.t("posts")+
		" e ON e.ID = m.post_id WHERE m.meta_key = ? AND e.post_type = ? AND e.post_status NOT IN ('draft', 'pending')",
		calendard.LinkedMetaKey(postType), calendard.PostTypeEvent)
	if err != nil {
		return nil, err
	}
	return scanMetaIDs(rows)
}

// UpcomingEventIDs returns the first events starting at or after from, in list order.
func (db *DB) UpcomingEventIDs(ctx context.Context, site *calendard.Site, statuses []string, from string, limit int) ([]int64, error) {
	q := db.newEventQuery(site)
	q.apply(&calendard.EventFilter{Statuses: statuses, StartOnOrAfter: &from})
	rows, err := db.sql.QueryContext(ctx, "SELECT p.ID FROM "+q.from+" WHERE "+q.whereSQL()+
		" GROUP BY p.ID, p.post_date ORDER BY MIN("+q.start+"), p.post_date, p.ID LIMIT ?", append(q.args, limit)...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// scanMetaIDs reads a one-column meta_value result holding post IDs, as the plugin casts them:
// values that are not a positive integer point nowhere and are dropped.
func scanMetaIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var v nullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		if id := atoiID(strings.TrimSpace(v.String)); id > 0 {
			ids = append(ids, id)
		}
	}
	return ids, rows.Err()
}

// scanIDs reads a one-column ID result and closes the rows.
func scanIDs(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close() error
}) ([]int64, error) {
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
