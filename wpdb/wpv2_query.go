package wpdb

import (
	"context"
	"strings"

	"github.com/calendard/calendard"
)

// The WP_Query of a wp/v2 post collection (WP_REST_Posts_Controller::get_items), in WordPress'
// SQL shape: MariaDB orders rows with equal sort keys as its plan reads them, and clients see that
// order, so on MySQL the statement is WordPress' own; on SQLite the plan's order is reproduced
// (filesort.go) as the plugin-namespace venue lists do (linked.go).

// corePostSQL is the FROM, WHERE and GROUP BY of the query, and its ORDER BY as WordPress (and,
// for events, the plugin's query filters) writes it.
type corePostSQL struct {
	from, where string
	args        []any
	groupBy     bool
	orderBy     string
	orderArgs   []any
	// sortKey is the one column MariaDB sorts by for a venue or organizer list ("" for ID and
	// FIELD() orders, whose keys never tie); sortText says it compares under the collation.
	sortKey  string
	sortText bool
}

func (db *DB) corePostSQL(site *calendard.Site, q calendard.CorePostQuery) *corePostSQL {
	P := db.t("posts")
	tr := db.t("term_relationships")
	s := &corePostSQL{from: P}
	var w strings.Builder
	add := func(cond string, args ...any) {
		w.WriteString(" AND " + cond)
		s.args = append(s.args, args...)
	}
	w.WriteString("1=1")
	if q.SearchFilename && len(q.Search) > 0 {
		s.from += " LEFT JOIN " + db.t("postmeta") + " AS sq1 ON ( " + P + ".ID = sq1.post_id AND sq1.meta_key = '_wp_attached_file' )"
	}
	if q.Parent != nil {
		add(P+".post_parent = ?", *q.Parent)
	}
	if len(q.ParentIn) > 0 {
		add(P+".post_parent IN ("+placeholders(len(q.ParentIn))+")", int64Args(q.ParentIn)...)
	}
	if len(q.ParentNotIn) > 0 {
		add(P+".post_parent NOT IN ("+placeholders(len(q.ParentNotIn))+")", int64Args(q.ParentNotIn)...)
	}
	if len(q.Include) > 0 {
		add(P+".ID IN ("+placeholders(len(q.Include))+")", int64Args(q.Include)...)
	}
	if len(q.Exclude) > 0 {
		add(P+".ID NOT IN ("+placeholders(len(q.Exclude))+")", int64Args(q.Exclude)...)
	}
	if len(q.Slugs) > 0 {
		add(P+".post_name IN ("+placeholders(len(q.Slugs))+")", stringArgs(q.Slugs)...)
	}
	if len(q.Authors) > 0 {
		add(P+".post_author IN ("+placeholders(len(q.Authors))+")", int64Args(q.Authors)...)
	}
	if len(q.AuthorsExclude) > 0 {
		add(P+".post_author NOT IN ("+placeholders(len(q.AuthorsExclude))+")", int64Args(q.AuthorsExclude)...)
	}
	if len(q.Search) > 0 {
		cond, args := coreSearchSQL(P, q)
		w.WriteString(" AND " + cond)
		s.args = append(s.args, args...)
		if q.SearchAnonymous {
			add("(" + P + ".post_password = '')")
		}
	}
	var dates []string
	date := func(v *string, col, op string) {
		if v != nil {
			dates = append(dates, P+"."+col+" "+op+" ?")
			s.args = append(s.args, *v)
		}
	}
	date(q.Before, "post_date", "<")
	date(q.ModifiedBefore, "post_modified", "<")
	date(q.After, "post_date", ">")
	date(q.ModifiedAfter, "post_modified", ">")
	if len(dates) > 0 {
		w.WriteString(" AND (" + strings.Join(dates, " AND ") + ")")
	}
	if len(q.Tax) > 0 {
		cond, args, grouped := coreTaxSQL(P, tr, q)
		if cond != "" {
			w.WriteString(" AND " + cond)
			s.args = append(s.args, args...)
		}
		s.groupBy = s.groupBy || grouped
	}
	var start string
	if q.EndsFrom != nil {
		// Tribe__Events__Query::filter_and_order_by_date: _EventStartDate EXISTS and _EventEndDate
		// >= now, which the plugin's custom tables answer from the occurrences table.
		if site.UseCustomTables {
			occ := db.t("tec_occurrences")
			s.from += " JOIN " + occ + " ON " + P + ".ID = " + occ + ".post_id"
			add(occ+".end_date >= ?", *q.EndsFrom)
			start = occ + ".start_date"
		} else {
			pm := db.t("postmeta")
			s.from += " INNER JOIN " + pm + " ON (" + P + ".ID = " + pm + ".post_id) INNER JOIN " + pm + " AS mt1 ON (" + P + ".ID = mt1.post_id)"
			add("("+pm+".meta_key = '_EventStartDate' AND (mt1.meta_key = '_EventEndDate' AND "+db.datetimeCompare("mt1.meta_value", ">=")+"))", *q.EndsFrom)
			start = pm + ".meta_value"
		}
		s.groupBy = true
	}
	add(P+".post_type = ?", q.PostType)
	if q.Statuses == nil {
		add("((" + P + ".post_status <> 'trash' AND " + P + ".post_status <> 'auto-draft'))")
	} else if len(q.Statuses) > 0 {
		ors := make([]string, len(q.Statuses))
		for i := range q.Statuses {
			ors[i] = P + ".post_status = ?"
		}
		add("(("+strings.Join(ors, " OR ")+"))", stringArgs(q.Statuses)...)
	}
	s.where = w.String()

	db.coreOrderSQL(s, site, q, start)
	return s
}

// coreSearchSQL is WP_Query's search clause: every term in one of the columns (the attachment's
// file name too for media), excluded terms in none of them.
func coreSearchSQL(P string, q calendard.CorePostQuery) (string, []any) {
	var args []any
	cols := q.SearchColumns
	if len(cols) == 0 {
		cols = []string{"post_title", "post_excerpt", "post_content"}
	}
	var terms []string
	for _, t := range q.Search {
		wild := "%"
		if q.SearchExact {
			wild = ""
		}
		like := wild + escapeLike(t.Text) + wild
		var parts []string
		colNames := append([]string(nil), cols...)
		if q.SearchFilename {
			colNames = append(colNames, "")
		}
		for _, c := range colNames {
			col := P + "." + c
			if c == "" {
				col = "sq1.meta_value"
			}
			if t.Exclude {
				parts = append(parts, "("+col+" NOT LIKE ?)")
			} else {
				parts = append(parts, "("+col+" LIKE ?)")
			}
			args = append(args, like)
		}
		op := " OR "
		if t.Exclude {
			op = " AND "
		}
		terms = append(terms, "("+strings.Join(parts, op)+")")
	}
	return "(" + strings.Join(terms, " AND ") + ")", args
}

// coreTaxSQL is WP_Tax_Query's clause over term_relationships (tr), "" when no clause applies;
// grouped when a clause names terms (the query then groups by post).
func coreTaxSQL(P, tr string, q calendard.CorePostQuery) (cond string, args []any, grouped bool) {
	var clauses []string
	for _, c := range q.Tax {
		ttids := c.Terms // term_taxonomy_ids, resolved by the caller
		switch c.Operator {
		case "NOT IN":
			if len(ttids) == 0 {
				continue
			}
			clauses = append(clauses, P+".ID NOT IN (SELECT object_id FROM "+tr+" WHERE term_taxonomy_id IN ("+placeholders(len(ttids))+"))")
			args = append(args, int64Args(ttids)...)
		case "AND":
			if len(ttids) == 0 {
				clauses = append(clauses, "0 = 1")
				continue
			}
			clauses = append(clauses, "(SELECT COUNT(1) FROM "+tr+" WHERE term_taxonomy_id IN ("+placeholders(len(ttids))+") AND object_id = "+P+".ID) = ?")
			args = append(append(args, int64Args(ttids)...), len(ttids))
		default:
			if len(ttids) == 0 {
				clauses = append(clauses, "0 = 1")
				continue
			}
			clauses = append(clauses, P+".ID IN (SELECT object_id FROM "+tr+" WHERE term_taxonomy_id IN ("+placeholders(len(ttids))+"))")
			args = append(args, int64Args(ttids)...)
		}
		grouped = true
	}
	if len(clauses) == 0 {
		return "", nil, grouped
	}
	rel := " AND "
	if q.TaxRelation == "OR" {
		rel = " OR "
	}
	return "(" + strings.Join(clauses, rel) + ")", args, grouped
}

// coreOrderSQL sets the ORDER BY of the query as WordPress (and, for events, the plugin) writes
// it; start is the event start column when the query joins the event dates.
func (db *DB) coreOrderSQL(s *corePostSQL, site *calendard.Site, q calendard.CorePostQuery, start string) {
	P := db.t("posts")
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	var order []string
	column := map[string]string{"date": "post_date", "title": "post_title", "post_name": "post_name",
		"modified": "post_modified", "author": "post_author", "parent": "post_parent"}
	switch q.OrderBy {
	case "date ID":
		order = append(order, P+".post_date "+dir, P+".ID "+dir)
	case "ID":
		order = append(order, P+".ID "+dir)
		if q.EndsFrom != nil && site.UseCustomTables {
			// Custom_Tables_Query::parse_orderby orders by post ID and occurrence.
			order = append(order, db.t("tec_occurrences")+".occurrence_id "+dir)
		}
	case "post__in", "post_name__in":
		// The plugin's ORDER BY rewrite splits WordPress' FIELD(col, a,b,c) at its commas and
		// drops every piece, so event lists lose this order; other types keep it.
		if q.EndsFrom == nil {
			col, vals := P+".ID", int64Args(q.Include)
			if q.OrderBy == "post_name__in" {
				col, vals = P+".post_name", stringArgs(q.Slugs)
			}
			if len(vals) > 0 {
				order = append(order, "FIELD("+col+", "+placeholders(len(vals))+")")
				s.orderArgs = vals
			}
		}
	case "relevance":
		// WP_Query orders by relevance only when orderby is exactly "relevance" (the plugin turns an
		// event query's orderby into an array, which drops it): title matches of the first term first.
		if q.EndsFrom == nil && len(q.Search) > 0 {
			order = append(order, P+".post_title LIKE ? DESC")
			s.orderArgs = append(s.orderArgs, "%"+escapeLike(q.Search[0].Text)+"%")
		}
	default:
		if c, ok := column[q.OrderBy]; ok {
			order = append(order, P+"."+c+" "+dir)
			s.sortKey, s.sortText = c, c == "post_title" || c == "post_name"
		}
	}
	if q.EndsFrom != nil {
		order = append(order, start+" ASC")
		if q.OrderBy != "date" {
			order = append(order, P+".post_date ASC")
		}
		s.sortKey = ""
	} else if len(order) == 0 {
		order = append(order, P+".post_date DESC")
		s.sortKey = "post_date"
	}
	s.orderBy = strings.Join(order, ", ")
}

// CorePostIDs returns one page of a wp/v2 collection query and found_posts.
func (db *DB) CorePostIDs(ctx context.Context, site *calendard.Site, q calendard.CorePostQuery) ([]int64, int, error) {
	s := db.corePostSQL(site, q)
	P := db.t("posts")
	var total int
	if err := db.sql.QueryRowContext(ctx, "SELECT COUNT(DISTINCT "+P+".ID) FROM "+s.from+" WHERE "+s.where, s.args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if q.Limit <= 0 || q.Offset < 0 || q.Offset >= total {
		// A negative offset is no page on either store (MariaDB refuses it, SQLite reads it as 0).
		return nil, total, nil
	}
	group := ""
	if s.groupBy {
		group = " GROUP BY " + P + ".ID"
	}
	if s.sortKey != "" && db.filesortTies() {
		// A venue or organizer list: rows come from type_status_date in (status, date, ID) order;
		// one status sorted by date reads that index in the sort's direction, anything else is
		// filesorted (newestFirst does the same for the plugin's lists).
		if s.sortKey == "post_date" && len(q.Statuses) > 0 && oneValue(q.Statuses) {
			dir := " ASC"
			if q.Desc || q.OrderBy != "date" {
				dir = " DESC"
			}
			return db.scanPage(ctx, "SELECT "+P+".ID FROM "+s.from+" WHERE "+s.where+group+" ORDER BY "+P+".post_date"+dir+", "+P+".ID"+dir+" LIMIT ?, ?",
				append(append([]any(nil), s.args...), q.Offset, q.Limit), total)
		}
		read := P + ".post_status, " + P + ".post_date, " + P + ".ID"
		desc := q.Desc || (s.sortKey == "post_date" && q.OrderBy != "date")
		ids, err := db.filesortPage(ctx, "SELECT "+P+".ID, "+P+"."+s.sortKey+", 1 FROM "+s.from+" WHERE "+s.where+group+" ORDER BY "+read,
			s.args, filesortKey{text: s.sortText, desc: desc}, true, q.Offset, q.Limit)
		return ids, total, err
	}
	tie := ""
	if db.filesortTies() {
		tie = db.tieBreak(P + ".ID DESC")
	}
	args := append(append(append([]any(nil), s.args...), s.orderArgs...), q.Offset, q.Limit)
	return db.scanPage(ctx, "SELECT "+P+".ID FROM "+s.from+" WHERE "+s.where+group+" ORDER BY "+s.orderBy+tie+" LIMIT ?, ?", args, total)
}

func (db *DB) scanPage(ctx context.Context, query string, args []any, total int) ([]int64, int, error) {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, err
	}
	ids, err := scanIDs(rows)
	return ids, total, err
}

// CorePosts loads posts for wp/v2 answers as CorePost does, for a whole page in a few queries.
func (db *DB) CorePosts(ctx context.Context, ids []int64) ([]*calendard.CorePost, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	posts, err := db.postsByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	terms, err := db.termsOfPosts(ctx, ids, calendard.TaxonomyCategory, calendard.TaxonomyTag)
	if err != nil {
		return nil, err
	}
	revs, err := db.revisionFiguresOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*calendard.CorePost, 0, len(ids))
	for _, id := range ids {
		p := posts[id]
		if p == nil {
			continue
		}
		cp := &calendard.CorePost{Post: p, Terms: map[string][]*calendard.Term{}}
		for _, t := range terms[id] {
			cp.Terms[t.Taxonomy] = append(cp.Terms[t.Taxonomy], t)
		}
		if r, ok := revs[id]; ok {
			cp.Revisions, cp.LatestRevision = r.count, r.latest
		}
		out = append(out, cp)
	}
	return out, nil
}

type revisionFigure struct {
	count  int
	latest int64
}

// revisionFiguresOf is revisionFigures for many posts: the count, and the newest by post_date
// then ID.
func (db *DB) revisionFiguresOf(ctx context.Context, ids []int64) (map[int64]revisionFigure, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT post_parent, ID FROM "+db.t("posts")+
		" WHERE post_parent IN ("+placeholders(len(ids))+") AND post_type = 'revision' AND post_status = 'inherit'"+
		" ORDER BY post_parent, post_date DESC, ID DESC", int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]revisionFigure{}
	for rows.Next() {
		var parent, id int64
		if err := rows.Scan(&parent, &id); err != nil {
			return nil, err
		}
		f, seen := out[parent]
		f.count++
		if !seen {
			f.latest = id
		}
		out[parent] = f
	}
	return out, rows.Err()
}
