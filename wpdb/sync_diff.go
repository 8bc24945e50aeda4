package wpdb

import (
	"context"
	"database/sql"
	"strings"
)

// The journal's fingerprints. Every object of a v1 list keeps two in <prefix>calendard_sync_objects:
//
//   - row_fp: the post row's cheap columns (status, dates, post_modified_gmt, title, slug, parent,
//     password, author, order). Every save WordPress makes through wp_insert_post/wp_update_post
//     moves post_modified_gmt, so the watermark poll's Change{All} compares these alone, one
//     table scan that returns the differences only.
//   - full_fp: the row's long text (content, excerpt), every meta row (editor locks aside) and the
//     term relationships: what a bare SQL UPDATE can change without moving the row. Compared for
//     the posts calendard's own writes name and by the periodic reconcile.
//
// Terms (categories, tags) are few next to posts: every change that may touch them compares all.

// syncScope says which objects a diff compares.
type syncScope struct {
	all   bool    // every post of the three types
	ids   []int64 // these posts (all false)
	full  bool    // compare full_fp too
	terms bool    // the terms of both taxonomies
}

// syncResourceCase maps a post type column to its resource name in SQL.
func syncResourceCase(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for _, rt := range syncPostTypes {
		b.WriteString(" WHEN '" + rt[1] + "' THEN '" + rt[0] + "'")
	}
	b.WriteString(" END")
	return b.String()
}

// syncTypeCase maps a resource column to its post type in SQL.
func syncTypeCase(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for _, rt := range syncPostTypes {
		b.WriteString(" WHEN '" + rt[0] + "' THEN '" + rt[1] + "'")
	}
	b.WriteString(" END")
	return b.String()
}

const syncPostTypesIn = "('tribe_events', 'tribe_venue', 'tribe_organizer')"
const syncPostResourcesIn = "('events', 'venues', 'organizers')"

func (db *DB) syncRowFP() string {
	return "CRC32(CONCAT_WS(CHAR(31), p.post_status, p.post_modified_gmt, p.post_modified, p.post_date_gmt, p.post_date, " +
		"p.post_title, p.post_name, p.post_parent, p.post_password, p.post_author, p.menu_order, p.comment_status))"
}

func (db *DB) syncFullFP() string {
	return "CRC32(CONCAT_WS(CHAR(31), CRC32(CONCAT_WS(CHAR(31), p.post_content, p.post_excerpt)), " +
		"(SELECT COALESCE(SUM(CRC32(CONCAT_WS(CHAR(31), m.meta_id, m.meta_key, m.meta_value))), 0) FROM " + db.t("postmeta") +
		" m WHERE m.post_id = p.ID AND m.meta_key NOT IN ('_edit_lock', '_edit_last')), " +
		"(SELECT COALESCE(SUM(CRC32(tr.term_taxonomy_id)), 0) FROM " + db.t("term_relationships") + " tr WHERE tr.object_id = p.ID)))"
}

// syncDiff compares the scope's objects with their stored fingerprints (inside tx, which holds
// the state row's lock) and returns those that moved.
func (db *DB) syncDiff(ctx context.Context, tx *sql.Tx, sc syncScope) ([]syncChange, error) {
	var out []syncChange
	if sc.all || len(sc.ids) > 0 {
		ids := sc.ids
		if !sc.full {
			// The cheap pass finds the candidates; their full fingerprints are then read too.
			cands, err := db.syncPostDiff(ctx, tx, sc.all, ids, false)
			if err != nil {
				return nil, err
			}
			ids = nil
			for _, c := range cands {
				ids = append(ids, c.id)
			}
			if len(ids) > 0 {
				changed, err := db.syncPostDiff(ctx, tx, false, ids, true)
				if err != nil {
					return nil, err
				}
				out = append(out, changed...)
			}
		} else {
			changed, err := db.syncPostDiff(ctx, tx, sc.all, ids, true)
			if err != nil {
				return nil, err
			}
			out = append(out, changed...)
		}
		gone, err := db.syncPostsGone(ctx, tx, sc.all, sc.ids)
		if err != nil {
			return nil, err
		}
		out = append(out, gone...)
	}
	if sc.terms {
		changed, err := db.syncTermDiff(ctx, tx)
		if err != nil {
			return nil, err
		}
		out = append(out, changed...)
	}
	return out, nil
}

// syncPostDiff returns the posts (all, or ids) whose row (and, full, whole) fingerprint differs
// from the stored one, or that have none.
func (db *DB) syncPostDiff(ctx context.Context, tx *sql.Tx, all bool, ids []int64, full bool) ([]syncChange, error) {
	if !all && len(ids) == 0 {
		return nil, nil
	}
	row := db.syncRowFP()
	fullFP := "0"
	cond := "o.row_fp <> " + row + " OR o.status <> p.post_status"
	if full {
		fullFP = db.syncFullFP()
		cond += " OR o.full_fp <> " + fullFP
	}
	q := "SELECT p.ID, " + syncResourceCase("p.post_type") + ", p.post_status, " + row + ", " + fullFP + " FROM " + db.t("posts") +
		" p LEFT JOIN " + db.t("calendard_sync_objects") + " o ON o.object_id = p.ID AND o.resource = " + syncResourceCase("p.post_type") +
		" WHERE p.post_type IN " + syncPostTypesIn + " AND p.post_status <> 'auto-draft'"
	var args []any
	if !all {
		q += " AND p.ID IN (" + placeholders(len(ids)) + ")"
		args = int64Args(ids)
	}
	q += " AND (o.object_id IS NULL OR " + cond + ")"
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []syncChange
	for rows.Next() {
		var c syncChange
		if err := rows.Scan(&c.id, &c.resource, &c.status, &c.rowFP, &c.fullFP); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// syncPostsGone returns the stored post objects (all, or ids) whose row is gone or is no longer
// of the resource's post type (or became an auto-draft).
func (db *DB) syncPostsGone(ctx context.Context, tx *sql.Tx, all bool, ids []int64) ([]syncChange, error) {
	if !all && len(ids) == 0 {
		return nil, nil
	}
	q := "SELECT o.resource, o.object_id FROM " + db.t("calendard_sync_objects") + " o WHERE o.resource IN " + syncPostResourcesIn
	var args []any
	if !all {
		q += " AND o.object_id IN (" + placeholders(len(ids)) + ")"
		args = int64Args(ids)
	}
	q += " AND NOT EXISTS (SELECT 1 FROM " + db.t("posts") + " p WHERE p.ID = o.object_id AND p.post_type = " + syncTypeCase("o.resource") +
		" AND p.post_status <> 'auto-draft')"
	return scanGone(tx.QueryContext(ctx, q, args...))
}

func scanGone(rows *sql.Rows, err error) ([]syncChange, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []syncChange
	for rows.Next() {
		c := syncChange{deleted: true}
		if err := rows.Scan(&c.resource, &c.id); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// syncTermDiff compares every category and tag (row, taxonomy row and term meta) with its stored
// fingerprint.
func (db *DB) syncTermDiff(ctx context.Context, tx *sql.Tx) ([]syncChange, error) {
	resCase := "CASE tt.taxonomy"
	typeCase := "CASE o.resource"
	for _, rt := range syncTaxonomies {
		resCase += " WHEN '" + rt[1] + "' THEN '" + rt[0] + "'"
		typeCase += " WHEN '" + rt[0] + "' THEN '" + rt[1] + "'"
	}
	resCase += " END"
	typeCase += " END"
	fp := "CRC32(CONCAT_WS(CHAR(31), t.name, t.slug, t.term_group, tt.description, tt.parent, tt.count, " +
		"(SELECT COALESCE(SUM(CRC32(CONCAT_WS(CHAR(31), tm.meta_id, tm.meta_key, tm.meta_value))), 0) FROM " + db.t("termmeta") +
		" tm WHERE tm.term_id = t.term_id)))"
	q := "SELECT t.term_id, " + resCase + ", " + fp + " FROM " + db.t("terms") + " t JOIN " + db.t("term_taxonomy") +
		" tt ON tt.term_id = t.term_id LEFT JOIN " + db.t("calendard_sync_objects") + " o ON o.object_id = t.term_id AND o.resource = " + resCase +
		" WHERE tt.taxonomy IN ('" + syncTaxonomies[0][1] + "', '" + syncTaxonomies[1][1] + "') AND (o.object_id IS NULL OR o.row_fp <> " + fp + ")"
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []syncChange
	for rows.Next() {
		var c syncChange
		if err := rows.Scan(&c.id, &c.resource, &c.rowFP); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	gone, err := scanGone(tx.QueryContext(ctx, "SELECT o.resource, o.object_id FROM "+db.t("calendard_sync_objects")+
		" o WHERE o.resource IN ('"+syncTaxonomies[0][0]+"', '"+syncTaxonomies[1][0]+"') AND NOT EXISTS (SELECT 1 FROM "+
		db.t("term_taxonomy")+" tt WHERE tt.term_id = o.object_id AND tt.taxonomy = "+typeCase+")"))
	return append(out, gone...), err
}
