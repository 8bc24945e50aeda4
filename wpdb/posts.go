package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"sort"

	"github.com/calendard/calendard"
)

const postColumns = `ID, post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt,
	post_status, comment_status, ping_status, post_password, post_name, post_modified, post_modified_gmt,
	post_parent, guid, menu_order, post_type, post_mime_type`

func scanPost(sc interface{ Scan(...any) error }) (*calendard.Post, error) {
	p := &calendard.Post{}
	err := sc.Scan(&p.ID, &p.Author, &p.Date, &p.DateGMT, &p.Content, &p.Title, &p.Excerpt,
		&p.Status, &p.CommentStatus, &p.PingStatus, &p.Password, &p.Name, &p.Modified, &p.ModifiedGMT,
		&p.Parent, &p.GUID, &p.MenuOrder, &p.Type, &p.MimeType)
	return p, err
}

// PostByID returns the bare post or nil.
func (db *DB) PostByID(ctx context.Context, id int64) (*calendard.Post, error) {
	row := db.sql.QueryRowContext(ctx, "SELECT "+postColumns+" FROM "+db.t("posts")+" WHERE ID = ?", id)
	p, err := scanPost(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return p, err
}

// AttachmentByURL finds a media library item by its GUID (the original file URL).
func (db *DB) AttachmentByURL(ctx context.Context, url string) (int64, error) {
	var id int64
	err := db.sql.QueryRowContext(ctx, "SELECT ID FROM "+db.t("posts")+" WHERE post_type = 'attachment' AND guid = ? ORDER BY ID LIMIT 1", url).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// PostsByName returns the bare posts of the given types with that post_name, in ID order.
func (db *DB) PostsByName(ctx context.Context, name string, postTypes ...string) ([]*calendard.Post, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT "+postColumns+" FROM "+db.t("posts")+
		" WHERE post_name = ? AND post_type IN ("+placeholders(len(postTypes))+") ORDER BY ID",
		append([]any{name}, stringArgs(postTypes)...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*calendard.Post
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PostByNamePrefix is the lookup of redirect_guess_404_permalink: the first post of one of the
// types and statuses whose post_name starts with prefix (LIKE 'prefix%' under the collation), in
// the order MariaDB reads it through the post_name index (post_name, then ID); nil when none.
func (db *DB) PostByNamePrefix(ctx context.Context, prefix string, postTypes, statuses []string) (*calendard.Post, error) {
	if len(postTypes) == 0 || len(statuses) == 0 {
		return nil, nil
	}
	args := append([]any{escapeLike(prefix) + "%"}, stringArgs(postTypes)...)
	args = append(args, stringArgs(statuses)...)
	row := db.sql.QueryRowContext(ctx, "SELECT "+postColumns+" FROM "+db.t("posts")+
		" WHERE post_name LIKE ? AND post_type IN ("+placeholders(len(postTypes))+") AND post_status IN ("+
		placeholders(len(statuses))+") ORDER BY post_name, ID LIMIT 1", args...)
	p, err := scanPost(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return p, err
}

// TrashedFrom returns the status a trashed post had before it was trashed.
func (db *DB) TrashedFrom(ctx context.Context, id int64) (string, error) {
	var v nullString
	err := db.sql.QueryRowContext(ctx, "SELECT meta_value FROM "+db.t("postmeta")+
		" WHERE post_id = ? AND meta_key = '_wp_trash_meta_status' ORDER BY meta_id LIMIT 1", id).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v.String, err
}

// postsByIDs loads posts with their meta, keyed by ID (2 queries).
func (db *DB) postsByIDs(ctx context.Context, ids []int64) (map[int64]*calendard.Post, error) {
	out := map[int64]*calendard.Post{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := db.sql.QueryContext(ctx, "SELECT "+postColumns+" FROM "+db.t("posts")+
		" WHERE ID IN ("+placeholders(len(ids))+")", int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, err
		}
		p.Meta = calendard.Meta{}
		out[p.ID] = p
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := db.loadMeta(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// loadMeta fills Meta of every post in one query, values in meta_id order.
func (db *DB) loadMeta(ctx context.Context, posts map[int64]*calendard.Post) error {
	if len(posts) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(posts))
	for id := range posts {
		ids = append(ids, id)
	}
	rows, err := db.sql.QueryContext(ctx, "SELECT post_id, meta_key, meta_value FROM "+db.t("postmeta")+
		" WHERE post_id IN ("+placeholders(len(ids))+") ORDER BY meta_id", int64Args(ids)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var k, v nullString
		if err := rows.Scan(&id, &k, &v); err != nil {
			return err
		}
		if p := posts[id]; p != nil {
			p.Meta[k.String] = append(p.Meta[k.String], v.String)
		}
	}
	return rows.Err()
}

// termsOfPosts returns the category and tag terms of each post, ordered by name like
// wp_get_object_terms (one query).
func (db *DB) termsOfPosts(ctx context.Context, ids []int64, taxonomies ...string) (map[int64][]*calendard.Term, error) {
	out := map[int64][]*calendard.Term{}
	if len(ids) == 0 {
		return out, nil
	}
	args := append(int64Args(ids), stringArgs(taxonomies)...)
	rows, err := db.sql.QueryContext(ctx, `SELECT tr.object_id, t.term_id, t.name, t.slug, t.term_group,
		tt.term_taxonomy_id, tt.taxonomy, tt.description, tt.parent, tt.count
		FROM `+db.t("term_relationships")+` tr
		JOIN `+db.t("term_taxonomy")+` tt ON tt.term_taxonomy_id = tr.term_taxonomy_id
		JOIN `+db.t("terms")+` t ON t.term_id = tt.term_id
		WHERE tr.object_id IN (`+placeholders(len(ids))+`) AND tt.taxonomy IN (`+placeholders(len(taxonomies))+`)
		ORDER BY t.name, t.term_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var oid int64
		t := &calendard.Term{}
		if err := rows.Scan(&oid, &t.ID, &t.Name, &t.Slug, &t.Group, &t.TaxonomyID, &t.Taxonomy,
			&t.Description, &t.Parent, &t.Count); err != nil {
			return nil, err
		}
		out[oid] = append(out[oid], t)
	}
	return out, rows.Err()
}

// TermsOf returns every term of a taxonomy ordered by term_id.
func (db *DB) TermsOf(ctx context.Context, taxonomy string) ([]*calendard.Term, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT t.term_id, t.name, t.slug, t.term_group,
		tt.term_taxonomy_id, tt.taxonomy, tt.description, tt.parent, tt.count
		FROM `+db.t("term_taxonomy")+` tt JOIN `+db.t("terms")+` t ON t.term_id = tt.term_id
		WHERE tt.taxonomy = ? ORDER BY t.term_id`, taxonomy)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*calendard.Term
	for rows.Next() {
		t := &calendard.Term{}
		if err := rows.Scan(&t.ID, &t.Name, &t.Slug, &t.Group, &t.TaxonomyID, &t.Taxonomy,
			&t.Description, &t.Parent, &t.Count); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// linked is what an event page embeds besides the events themselves.
type linked struct {
	posts map[int64]*calendard.Post // venues, organizers and attachments by ID
}

// loadLinked fetches, in two rounds of two queries, the venue/organizer posts the events point to and
// every featured image of events, venues and organizers.
func (db *DB) loadLinked(ctx context.Context, events []*calendard.Post) (*linked, error) {
	ids := map[int64]bool{}
	for _, e := range events {
		for _, k := range []string{"_EventVenueID", "_EventOrganizerID"} {
			for _, v := range e.Meta[k] {
				if id := atoiID(v); id > 0 {
					ids[id] = true
				}
			}
		}
	}
	posts, err := db.postsByIDs(ctx, keys(ids))
	if err != nil {
		return nil, err
	}
	thumbs := map[int64]bool{}
	for _, p := range append(events, values(posts)...) {
		if id := atoiID(p.Meta.Value("_thumbnail_id")); id > 0 {
			thumbs[id] = true
		}
	}
	for id := range posts {
		delete(thumbs, id)
	}
	atts, err := db.postsByIDs(ctx, keys(thumbs))
	if err != nil {
		return nil, err
	}
	for id, p := range atts {
		posts[id] = p
	}
	return &linked{posts: posts}, nil
}

// attachment returns the image attachment a post's _thumbnail_id names, if it exists.
func (l *linked) attachment(p *calendard.Post) *calendard.Attachment {
	id := atoiID(p.Meta.Value("_thumbnail_id"))
	if a := l.posts[id]; a != nil && a.Type == calendard.PostTypeAttach {
		return &calendard.Attachment{Post: a}
	}
	return nil
}

func keys(m map[int64]bool) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func values(m map[int64]*calendard.Post) []*calendard.Post {
	out := make([]*calendard.Post, 0, len(m))
	for _, k := range keysOf(m) {
		out = append(out, m[k])
	}
	return out
}

func keysOf(m map[int64]*calendard.Post) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// atoiID parses a stored post ID ("12"); anything else is 0.
func atoiID(s string) int64 {
	var n int64
	if s == "" || len(s) > 19 {
		return 0
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	return n
}
