package wpdb

import (
	"context"
	"database/sql"
	"strconv"
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
// the state row's lock) and returns those that moved, with the events embedding them.
func (db *DB) syncDiff(ctx context.Context, tx *sql.Tx, sc syncScope) ([]syncChange, error) {
	out, err := db.syncMoved(ctx, tx, sc)
	if err != nil {
		return nil, err
	}
	return db.syncEmbedding(ctx, tx, out)
}

// syncMoved is syncDiff without the embedding events. tx may be a read-only transaction (the
// reconcile's first pass, which holds no lock).
func (db *DB) syncMoved(ctx context.Context, tx *sql.Tx, sc syncScope) ([]syncChange, error) {
	var out []syncChange
	if !sc.all && len(sc.ids) > syncIDBatch {
		// Bounded IN lists (SQLite's and MariaDB's placeholder limits): a reconcile re-checks
		// its candidates by ID.
		for start := 0; start < len(sc.ids); start += syncIDBatch {
			part, err := db.syncMoved(ctx, tx, syncScope{ids: sc.ids[start:min(len(sc.ids), start+syncIDBatch)], full: sc.full})
			if err != nil {
				return nil, err
			}
			out = append(out, part...)
		}
		sc.ids = nil
	}
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
			for start := 0; start < len(ids); start += syncIDBatch {
				changed, err := db.syncPostDiff(ctx, tx, false, ids[start:min(len(ids), start+syncIDBatch)], true)
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

// syncIDBatch is the most IDs one diff query names.
const syncIDBatch = 500

// syncEmbedding adds to changes the events whose list record embeds a changed venue, organizer,
// category or tag (their own rows unchanged): a client following the events list gets them again.
func (db *DB) syncEmbedding(ctx context.Context, tx *sql.Tx, changes []syncChange) ([]syncChange, error) {
	var linked, terms []int64
	have := map[int64]bool{}
	for _, c := range changes {
		switch c.resource {
		case SyncVenues, SyncOrganizers:
			linked = append(linked, c.id)
		case SyncCategories, SyncTags:
			if !c.countOnly {
				terms = append(terms, c.id)
			}
		case SyncEvents:
			have[c.id] = true
		}
	}
	if len(linked)+len(terms) == 0 {
		return changes, nil
	}
	var events []int64
	add := func(q string, args []any) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			if !have[id] {
				have[id] = true
				events = append(events, id)
			}
		}
		return rows.Err()
	}
	linking, err := db.eventsLinkingTo(ctx, tx, linked)
	if err != nil {
		return nil, err
	}
	for _, id := range linking {
		if !have[id] {
			have[id] = true
			events = append(events, id)
		}
	}
	for start := 0; start < len(terms); start += 500 {
		batch := terms[start:min(len(terms), start+500)]
		if err := add("SELECT DISTINCT tr.object_id FROM "+db.t("term_relationships")+" tr JOIN "+db.t("term_taxonomy")+
			" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id WHERE tt.term_id IN ("+placeholders(len(batch))+")", int64Args(batch)); err != nil {
			return nil, err
		}
	}
	for start := 0; start < len(events); start += 500 {
		rows, err := db.syncPostRows(ctx, tx, false, events[start:min(len(events), start+500)], true, false)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r.resource == SyncEvents {
				r.embedded = true
				changes = append(changes, r)
			}
		}
	}
	return changes, nil
}

// eventsLinkingTo returns the posts whose venue or organizer meta names one of linked. Up to one
// batch is looked up by value; more (a reconcile after a bulk import of venues) are found in one
// pass over every venue and organizer row rather than one such pass per batch (the meta_value
// condition cannot use the meta_key index).
func (db *DB) eventsLinkingTo(ctx context.Context, tx *sql.Tx, linked []int64) ([]int64, error) {
	const keys = "meta_key IN ('_EventVenueID', '_EventOrganizerID')"
	if len(linked) == 0 {
		return nil, nil
	}
	if len(linked) <= syncIDBatch {
		vals := make([]any, len(linked))
		for i, id := range linked {
			vals[i] = strconv.FormatInt(id, 10)
		}
		rows, err := tx.QueryContext(ctx, "SELECT DISTINCT post_id FROM "+db.t("postmeta")+" WHERE "+keys+
			" AND meta_value IN ("+placeholders(len(vals))+")", vals...)
		if err != nil {
			return nil, err
		}
		return scanIDs(rows)
	}
	want := make(map[string]bool, len(linked))
	for _, id := range linked {
		want[strconv.FormatInt(id, 10)] = true
	}
	rows, err := tx.QueryContext(ctx, "SELECT post_id, meta_value FROM "+db.t("postmeta")+" WHERE "+keys)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	seen := map[int64]bool{}
	for rows.Next() {
		var id int64
		var v sql.NullString
		if err := rows.Scan(&id, &v); err != nil {
			return nil, err
		}
		// The collation's PAD SPACE: '12 ' equals '12' in the IN list above.
		if want[strings.TrimRight(v.String, " ")] && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// syncPostDiff returns the posts (all, or ids) whose row (and, full, whole) fingerprint differs
// from the stored one, or that have none.
func (db *DB) syncPostDiff(ctx context.Context, tx *sql.Tx, all bool, ids []int64, full bool) ([]syncChange, error) {
	return db.syncPostRows(ctx, tx, all, ids, full, true)
}

// syncPostRows reads the fingerprints of the posts (all, or ids), of those that differ from the
// stored ones only when changedOnly.
func (db *DB) syncPostRows(ctx context.Context, tx *sql.Tx, all bool, ids []int64, full, changedOnly bool) ([]syncChange, error) {
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
	if changedOnly {
		q += " AND (o.object_id IS NULL OR " + cond + ")"
	}
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
	// row_fp: the term's whole list record; full_fp: what an event embedding it shows but its
	// count, which moves with every event saved in the term (a category's count is read from
	// the categories list, not from each of its events).
	shown := "CRC32(CONCAT_WS(CHAR(31), t.name, t.slug, t.term_group, tt.description, tt.parent, " +
		"(SELECT COALESCE(SUM(CRC32(CONCAT_WS(CHAR(31), tm.meta_id, tm.meta_key, tm.meta_value))), 0) FROM " + db.t("termmeta") +
		" tm WHERE tm.term_id = t.term_id)))"
	fp := "CRC32(CONCAT_WS(CHAR(31), tt.count, " + shown + "))"
	q := "SELECT t.term_id, " + resCase + ", " + fp + ", " + shown + ", o.object_id IS NULL OR o.full_fp <> " + shown + " FROM " + db.t("terms") +
		" t JOIN " + db.t("term_taxonomy") + " tt ON tt.term_id = t.term_id LEFT JOIN " + db.t("calendard_sync_objects") +
		" o ON o.object_id = t.term_id AND o.resource = " + resCase +
		" WHERE tt.taxonomy IN ('" + syncTaxonomies[0][1] + "', '" + syncTaxonomies[1][1] + "') AND (o.object_id IS NULL OR o.row_fp <> " + fp + ")"
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []syncChange
	for rows.Next() {
		var c syncChange
		var shownMoved bool
		if err := rows.Scan(&c.id, &c.resource, &c.rowFP, &c.fullFP, &shownMoved); err != nil {
			rows.Close()
			return nil, err
		}
		c.countOnly = !shownMoved
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
