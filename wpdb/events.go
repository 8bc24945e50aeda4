package wpdb

import (
	"context"
	"slices"
	"strings"

	"github.com/calendard/calendard"
)

// eventQuery builds the WHERE clause of an event list. Dates come from the plugin's occurrence table
// when the plugin uses its custom tables (the tec_ct1_migration_state option decides, as in the
// plugin), otherwise from the _EventStartDate/_EventEndDate postmeta.
type eventQuery struct {
	db    *DB
	from  string
	where []string
	args  []any
	start string // expression of the event start to order by
	end   string // column of the event end (custom tables)
	// startKey and endKey are the date meta keys of a site on postmeta ("" with custom tables).
	startKey, endKey string
}

func (db *DB) newEventQuery(site *calendard.Site) *eventQuery {
	q := &eventQuery{db: db}
	utc := site.TimezoneModeSite
	if site.UseCustomTables {
		q.from = db.t("posts") + " p JOIN " + db.t("tec_occurrences") + " o ON o.post_id = p.ID"
		q.start, q.end = "o.start_date", "o.end_date"
		if utc {
			q.start, q.end = "o.start_date_utc", "o.end_date_utc"
		}
	} else {
		sk, ek := "_EventStartDate", "_EventEndDate"
		if utc {
			sk, ek = "_EventStartDateUTC", "_EventEndDateUTC"
		}
		// The plugin's legacy query (Tribe__Events__Repositories__Event::order_by_date and the
		// filter_by_* meta queries): the order is CAST(start meta AS DATETIME) over a LEFT JOIN,
		// so events without dates are listed when no bound asks for one; each bound is a meta
		// query clause of its own (bound).
		q.from = db.t("posts") + " p LEFT JOIN " + db.t("postmeta") + " ms ON ms.post_id = p.ID AND ms.meta_key = '" + sk + "'"
		q.start = db.datetimeValue("ms.meta_value")
		q.startKey, q.endKey = sk, ek
	}
	return q
}

// bound adds one date bound on the event start (or end): on custom tables a comparison of the
// occurrence's column; on postmeta WP_Meta_Query's DATETIME clause, which joins the meta key on its
// own (AND siblings never share a join), so with several rows of a key each bound may be met by a
// different one, and compares CAST(meta_value AS DATETIME) with the bound.
func (q *eventQuery) bound(start bool, op, value string) {
	if q.startKey == "" {
		col := q.end
		if start {
			col = q.start
		}
		q.add(col+" "+op+" ?", value)
		return
	}
	key := q.endKey
	if start {
		key = q.startKey
	}
	q.add("EXISTS (SELECT 1 FROM "+q.db.t("postmeta")+" bm WHERE bm.post_id = p.ID AND bm.meta_key = '"+key+"' AND "+
		q.db.datetimeCompare("bm.meta_value", op)+")", value)
}

func (q *eventQuery) add(cond string, args ...any) {
	q.where = append(q.where, cond)
	q.args = append(q.args, args...)
}

// apply translates the domain filter into SQL conditions.
func (q *eventQuery) apply(f *calendard.EventFilter) {
	pm := q.db.t("postmeta")
	q.add("p.post_type = ?", calendard.PostTypeEvent)
	if f.Statuses == nil {
		q.add("p.post_status NOT IN ('trash', 'auto-draft')")
	} else {
		q.add("p.post_status IN ("+placeholders(len(f.Statuses))+")", stringArgs(f.Statuses)...)
	}
	// Events hidden from listings never appear, whatever the parameters.
	q.add("NOT EXISTS (SELECT 1 FROM " + pm + " hm WHERE hm.post_id = p.ID AND hm.meta_key = '_EventHideFromUpcoming')")

	bound := func(v *string, start bool, op string) {
		if v != nil {
			q.bound(start, op, *v)
		}
	}
	bound(f.StartOnOrAfter, true, ">=")
	bound(f.EndOnOrBefore, false, "<=")
	bound(f.StartsBefore, true, "<")
	bound(f.StartsAfter, true, ">")
	bound(f.EndsBefore, false, "<")
	bound(f.EndsAfter, false, ">")

	if len(f.Search) > 0 {
		q.search(f.Search, f.SearchAlso)
		if f.SearchAnonymous {
			q.add("p.post_password = ''")
		}
	}

	termFilter := func(ids []int64, taxonomy string) {
		if ids == nil {
			return
		}
		if len(ids) == 0 {
			q.add("1 = 0")
			return
		}
		q.add("p.ID IN (SELECT tr.object_id FROM "+q.db.t("term_relationships")+" tr JOIN "+q.db.t("term_taxonomy")+
			" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id WHERE tt.taxonomy = ? AND tt.term_id IN ("+
			placeholders(len(ids))+"))", append([]any{taxonomy}, int64Args(ids)...)...)
	}
	termFilter(f.CategoryIDs, calendard.TaxonomyCategory)
	termFilter(f.TagIDs, calendard.TaxonomyTag)

	metaIn := func(ids []int64, key string) {
		if ids == nil {
			return
		}
		if len(ids) == 0 {
			q.add("1 = 0")
			return
		}
		// The plugin compares these as NUMERIC meta.
		q.add("EXISTS (SELECT 1 FROM "+pm+" lm WHERE lm.post_id = p.ID AND lm.meta_key = ? AND "+
			q.db.castInt("lm.meta_value")+" IN ("+placeholders(len(ids))+"))", append([]any{key}, int64Args(ids)...)...)
	}
	metaIn(f.VenueIDs, "_EventVenueID")
	metaIn(f.OrganizerIDs, "_EventOrganizerID")

	if f.Featured != nil {
		cond := "EXISTS (SELECT 1 FROM " + pm + " fm WHERE fm.post_id = p.ID AND fm.meta_key = '_tribe_featured')"
		if !*f.Featured {
			cond = "NOT " + cond
		}
		q.add(cond)
	}
	if f.Include != nil {
		if len(f.Include) == 0 {
			q.add("1 = 0")
		} else {
			q.add("p.ID IN ("+placeholders(len(f.Include))+")", int64Args(f.Include)...)
		}
	}
	if f.PostParent != nil {
		q.add("p.post_parent = ?", *f.PostParent)
	}
	if f.ModifiedBefore != nil {
		q.add("p.post_modified < ?", *f.ModifiedBefore)
	}
	if f.ModifiedAfter != nil {
		q.add("p.post_modified > ?", *f.ModifiedAfter)
	}
	if f.ReadableBy != nil {
		cond, args := readableSQL("p", f.ReadableBy)
		q.add(cond, args...)
	}
}

// search adds the keyword search: every term not excluded as a substring of the title, excerpt or
// content (or the event among also), and no excluded term in any of them.
func (q *eventQuery) search(terms []calendard.SearchTerm, also []int64) {
	var must, not []string
	var mustArgs, notArgs []any
	for _, t := range terms {
		like := "%" + escapeLike(t.Text) + "%"
		if t.Exclude {
			not = append(not, "(p.post_title NOT LIKE ? AND p.post_excerpt NOT LIKE ? AND p.post_content NOT LIKE ?)")
			notArgs = append(notArgs, like, like, like)
		} else {
			must = append(must, "(p.post_title LIKE ? OR p.post_excerpt LIKE ? OR p.post_content LIKE ?)")
			mustArgs = append(mustArgs, like, like, like)
		}
	}
	if len(must) > 0 {
		cond := strings.Join(must, " AND ")
		if len(also) > 0 {
			cond = "(" + cond + ") OR p.ID IN (" + placeholders(len(also)) + ")"
			mustArgs = append(mustArgs, int64Args(also)...)
		}
		q.add("("+cond+")", mustArgs...)
	}
	if len(not) > 0 {
		q.add("("+strings.Join(not, " AND ")+")", notArgs...)
	}
}

func (q *eventQuery) whereSQL() string { return strings.Join(q.where, " AND ") }

// escapeLike is $wpdb->esc_like: %, _ and \ match literally.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// FindEvents returns a page of events and the number of all matching events (3 + 7 queries: ids,
// count, then posts, meta, terms and linked posts for the whole page).
func (db *DB) FindEvents(ctx context.Context, site *calendard.Site, f calendard.EventFilter) ([]*calendard.Event, int, error) {
	q := db.newEventQuery(site)
	q.apply(&f)

	// The total and the page do not depend on each other: they run side by side, on two
	// connections, so a list the event index cannot answer waits for the slower of the two, not
	// for both (every list of a first start on MariaDB until the index is built).
	type counted struct {
		total int
		err   error
	}
	count := make(chan counted, 1)
	go func() {
		var c counted
		c.err = db.sql.QueryRowContext(ctx, "SELECT COUNT(DISTINCT p.ID) FROM "+q.from+" WHERE "+q.whereSQL(), q.args...).Scan(&c.total)
		count <- c
	}()
	ids, pageErr := db.eventPage(ctx, q, &f)
	c := <-count
	if c.err != nil {
		return nil, 0, c.err
	}
	if pageErr != nil {
		return nil, 0, pageErr
	}
	if c.total == 0 || f.Offset >= c.total {
		return nil, c.total, nil
	}
	events, err := db.eventsByIDs(ctx, ids)
	return events, c.total, err
}

// eventPage is the IDs of the page of events f asks for, in the list's order.
func (db *DB) eventPage(ctx context.Context, q *eventQuery, f *calendard.EventFilter) ([]int64, error) {
	order := "MIN(" + q.start + "), p.post_date, p.ID"
	if f.OrderByPostDate {
		order = "p.post_date, p.ID"
	}
	sqlText := "SELECT p.ID FROM " + q.from + " WHERE " + q.whereSQL() + " GROUP BY p.ID, p.post_date ORDER BY " + order +
		" LIMIT ? OFFSET ?"
	rows, err := db.sql.QueryContext(ctx, sqlText, append(slices.Clip(q.args), f.Limit, f.Offset)...)
	if err != nil {
		return nil, err
	}
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

// EventByID loads one event with everything it embeds, or nil when there is no such event.
func (db *DB) EventByID(ctx context.Context, id int64) (*calendard.Event, error) {
	evs, err := db.eventsByIDs(ctx, []int64{id})
	if err != nil || len(evs) == 0 {
		return nil, err
	}
	return evs[0], nil
}

// eventsByIDs loads events in the given order with their terms, venues, organizers and images.
func (db *DB) eventsByIDs(ctx context.Context, ids []int64) ([]*calendard.Event, error) {
	posts, err := db.postsByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	ordered := make([]*calendard.Post, 0, len(ids))
	for _, id := range ids {
		if p := posts[id]; p != nil && p.Type == calendard.PostTypeEvent {
			ordered = append(ordered, p)
		}
	}
	if len(ordered) == 0 {
		return nil, nil
	}
	terms, err := db.termsOfPosts(ctx, ids, calendard.TaxonomyCategory, calendard.TaxonomyTag)
	if err != nil {
		return nil, err
	}
	l, err := db.loadLinked(ctx, ordered)
	if err != nil {
		return nil, err
	}
	out := make([]*calendard.Event, 0, len(ordered))
	for _, p := range ordered {
		e := &calendard.Event{Post: p, Image: l.attachment(p)}
		for _, t := range terms[p.ID] {
			if t.Taxonomy == calendard.TaxonomyCategory {
				e.Categories = append(e.Categories, t)
			} else {
				e.Tags = append(e.Tags, t)
			}
		}
		for _, v := range p.Meta["_EventVenueID"] {
			if vp := l.posts[atoiID(v)]; vp != nil && vp.Type == calendard.PostTypeVenue {
				e.Venues = append(e.Venues, &calendard.Venue{Post: vp, Image: l.attachment(vp)})
			}
		}
		seen := map[int64]bool{}
		for _, v := range p.Meta["_EventOrganizerID"] {
			id := atoiID(v)
			if op := l.posts[id]; op != nil && op.Type == calendard.PostTypeOrganizer && !seen[id] {
				seen[id] = true
				e.Organizers = append(e.Organizers, &calendard.Organizer{Post: op, Image: l.attachment(op)})
			}
		}
		out = append(out, e)
	}
	return out, nil
}
