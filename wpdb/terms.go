package wpdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/calendard/calendard"
)

// termOrderColumns maps WP_Term_Query::parse_orderby keywords to the columns WordPress sorts by.
var termOrderColumns = map[string]string{
	calendard.TermOrderByTermID:         "t.term_id",
	calendard.TermOrderByName:           "t.name",
	calendard.TermOrderBySlug:           "t.slug",
	calendard.TermOrderByTermGroup:      "t.term_group",
	calendard.TermOrderByCount:          "tt.count",
	calendard.TermOrderByParent:         "tt.parent",
	calendard.TermOrderByTaxonomy:       "tt.taxonomy",
	calendard.TermOrderByTermTaxonomyID: "tt.term_taxonomy_id",
	calendard.TermOrderByDescription:    "tt.description",
	calendard.TermOrderByTermOrder:      "tr.term_order",
}

// termQuerySQL builds WP_Term_Query's statement: the same joins, WHERE clauses in WordPress' order,
// ORDER BY and LIMIT. The shape is kept because MySQL orders ties according to the plan it picks for
// the statement (a LIMIT, for one, changes the sort algorithm), and the reference's ties are what
// clients see. count selects COUNT(*) without order or limit, as wp_count_terms does.
func (db *DB) termQuerySQL(q calendard.TermQuery, count bool) (string, []any, error) {
	if count {
		return db.termStatement(q, "COUNT(*)", false)
	}
	return db.termStatement(q, "t.term_id", true)
}

// termStatement is WP_Term_Query's statement selecting fields, with its ORDER BY and LIMIT when
// ordered is set, else without either.
func (db *DB) termStatement(q calendard.TermQuery, fields string, ordered bool) (string, []any, error) {
	var args []any
	distinct := ""
	if len(q.ObjectIDs) > 0 {
		distinct = "DISTINCT"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT %s %s FROM %s AS t  INNER JOIN %s AS tt ON t.term_id = tt.term_id",
		distinct, fields, db.t("terms"), db.t("term_taxonomy"))
	if len(q.ObjectIDs) > 0 {
		b.WriteString(" INNER JOIN " + db.t("term_relationships") + " AS tr ON tr.term_taxonomy_id = tt.term_taxonomy_id")
	}

	where := []string{"tt.taxonomy IN (?)"}
	args = append(args, q.Taxonomy)
	if len(q.Include) > 0 {
		where = append(where, "t.term_id IN ( "+intList(q.Include, ",")+" )")
	}
	if len(q.Exclude) > 0 {
		where = append(where, "t.term_id NOT IN ("+intList(q.Exclude, ",")+")")
	}
	if len(q.Slugs) > 0 {
		where = append(where, "t.slug IN ("+placeholders(len(q.Slugs))+")")
		args = append(args, stringArgs(q.Slugs)...)
	}
	if len(q.ObjectIDs) > 0 {
		where = append(where, "tr.object_id IN ("+intList(q.ObjectIDs, ", ")+")")
	}
	if q.Parent != nil {
		// WordPress quotes the parent ID.
		where = append(where, "tt.parent = ?")
		args = append(args, strconv.FormatInt(*q.Parent, 10))
	}
	if q.NonEmpty {
		where = append(where, "tt.count > 0")
	}
	if q.Search != "" {
		like := "%" + escapeLike(q.Search) + "%"
		where = append(where, "((t.name LIKE ?) OR (t.slug LIKE ?))")
		args = append(args, like, like)
	}
	b.WriteString(" WHERE " + strings.Join(where, " AND "))
	if !ordered {
		return b.String(), args, nil
	}

	if q.OrderBy != "" {
		col, ok := termOrderColumns[q.OrderBy]
		if q.OrderBy == calendard.TermOrderByInclude && len(q.OrderIDs) > 0 {
			col, ok = db.orderByList("t.term_id", q.OrderIDs), true
		}
		if q.OrderBy == calendard.TermOrderBySlugIn && len(q.OrderSlugs) > 0 {
			col, ok = db.orderBySlugs(q.OrderSlugs), true
			args = append(args, stringArgs(q.OrderSlugs)...)
		}
		if !ok {
			return "", nil, fmt.Errorf("term query: unknown orderby %q", q.OrderBy)
		}
		dir := "ASC"
		if q.Desc {
			dir = "DESC"
		}
		b.WriteString(" ORDER BY " + col + " " + dir + db.tieBreak(termTies(q)...))
	} else {
		b.WriteString(db.planOrder(termReadOrder))
	}
	if q.Limit > 0 {
		if q.Offset > 0 {
			fmt.Fprintf(&b, " LIMIT %d,%d", q.Offset, q.Limit)
		} else {
			fmt.Fprintf(&b, " LIMIT %d", q.Limit)
		}
	}
	return b.String(), args, nil
}

// How MariaDB orders terms with equal keys for WP_Term_Query's statement. It reads term_taxonomy
// first (by the taxonomy index, or whole: term_taxonomy_id order either way) and joins terms. A sort
// on a term_taxonomy column is a filesort of those rows before the join, so conditions on terms
// columns (the search) only filter the sorted rows; one on a terms column, and any sort of a query
// starting from terms (include, slugs) or joining relationships (DISTINCT), sorts a temporary table
// of row references. MariaDB orders the equal keys of those by the rows' memory addresses, which
// nothing can reproduce (not even MariaDB, from one connection to the next): SQLite keeps them in
// read order. A BLOB column (description) makes the filesort sort references to term_taxonomy rows.
// A sort on a column the WHERE fixes (the taxonomy, the parent) is dropped: rows come in read order.
const termReadOrder = "tt.term_taxonomy_id"

// termTies are the ORDER BY terms that reproduce MariaDB's order of equal keys, when no filesort of
// rows decides it (see termFilesort).
func termTies(q calendard.TermQuery) []string {
	if q.OrderBy == calendard.TermOrderByDescription && len(q.ObjectIDs) == 0 && len(q.Include) == 0 && len(q.Slugs) == 0 {
		return []string{refOrder(termReadOrder)}
	}
	return []string{termReadOrder}
}

// termFilesortKeys are the term_taxonomy columns MariaDB sorts with their rows (filesort ties).
var termFilesortKeys = map[string]string{calendard.TermOrderByCount: "tt.count", calendard.TermOrderByParent: "tt.parent"}

// termFilesort returns, when the store must reproduce MariaDB's filesort for the query's order, the
// statement reading the rows MariaDB sorts, in its order, with their sort key and whether the search
// keeps them.
func (db *DB) termFilesort(q calendard.TermQuery) (string, []any, filesortKey, bool) {
	col, ok := termFilesortKeys[q.OrderBy]
	fixed := q.OrderBy == calendard.TermOrderByParent && q.Parent != nil // the sort is dropped
	if !ok || fixed || len(q.ObjectIDs) > 0 || len(q.Include) > 0 || len(q.Slugs) > 0 || !db.filesortTies() {
		return "", nil, filesortKey{}, false
	}
	keep, keepArgs := "1", []any(nil)
	if q.Search != "" {
		like := "%" + escapeLike(q.Search) + "%"
		keep, keepArgs = "((t.name LIKE ?) OR (t.slug LIKE ?))", []any{like, like}
	}
	sorted := q
	sorted.Search = ""
	query, args, err := db.termStatement(sorted, "t.term_id, "+col+", "+keep, false)
	if err != nil {
		return "", nil, filesortKey{}, false
	}
	return query + " ORDER BY " + termReadOrder, append(keepArgs, args...), filesortKey{desc: q.Desc}, true
}

// TermIDs runs the ids request of a term query.
func (db *DB) TermIDs(ctx context.Context, q calendard.TermQuery) ([]int64, error) {
	if read, args, key, ok := db.termFilesort(q); ok {
		// The join keeps MariaDB from handing the LIMIT to the sort: every row is sorted.
		if q.Limit <= 0 {
			return db.filesortPage(ctx, read, args, key, false, 0, -1)
		}
		return db.filesortPage(ctx, read, args, key, false, q.Offset, q.Limit)
	}
	query, args, err := db.termQuerySQL(q, false)
	if err != nil {
		return nil, err
	}
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// CountTerms runs the count request of a term query.
func (db *DB) CountTerms(ctx context.Context, q calendard.TermQuery) (int, error) {
	query, args, err := db.termQuerySQL(q, true)
	if err != nil {
		return 0, err
	}
	var n int
	err = db.sql.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// orderBySlugs is FIELD( t.slug, ... ) with one placeholder per slug (CASE on SQLite, which has no
// FIELD); the caller appends the slugs to the arguments.
func (db *DB) orderBySlugs(slugs []string) string {
	if db.dialect == SQLite {
		var b strings.Builder
		b.WriteString("(CASE t.slug")
		for i := range slugs {
			b.WriteString(" WHEN ? THEN " + strconv.Itoa(i+1))
		}
		b.WriteString(" ELSE 0 END)")
		return b.String()
	}
	return "FIELD( t.slug, " + placeholders(len(slugs)) + ")"
}

// intList joins integers for an IN list (they are spliced like WordPress does; integers are safe).
func intList(ids []int64, sep string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, sep)
}
