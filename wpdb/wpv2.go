package wpdb

import (
	"context"
	"database/sql"
	"errors"

	"github.com/calendard/calendard"
)

// CorePost loads a post for WordPress core's REST routes: the row, its meta, its event categories
// and tags, and its revision count and newest revision.
func (db *DB) CorePost(ctx context.Context, id int64) (*calendard.CorePost, error) {
	posts, err := db.postsByIDs(ctx, []int64{id})
	if err != nil {
		return nil, err
	}
	p := posts[id]
	if p == nil {
		return nil, nil
	}
	cp := &calendard.CorePost{Post: p, Terms: map[string][]*calendard.Term{}}
	for _, tax := range []string{calendard.TaxonomyCategory, calendard.TaxonomyTag} {
		if cp.Terms[tax], err = db.termsOfObject(ctx, id, tax); err != nil {
			return nil, err
		}
	}
	cp.Revisions, cp.LatestRevision, err = db.revisionFigures(ctx, id)
	return cp, err
}

// termsOfObject is get_the_terms: the object's terms of one taxonomy ordered by name.
func (db *DB) termsOfObject(ctx context.Context, objectID int64, taxonomy string) ([]*calendard.Term, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT "+termColumns+" FROM "+db.t("term_relationships")+" tr JOIN "+db.t("term_taxonomy")+
		" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN "+db.t("terms")+" t ON t.term_id = tt.term_id"+
		" WHERE tr.object_id = ? AND tt.taxonomy = ? ORDER BY t.name, t.term_id", objectID, taxonomy)
	if err != nil {
		return nil, err
	}
	return scanTerms(rows)
}

// revisionFigures is wp_get_latest_revision_id_and_total_count: the post's revisions (any name),
// newest by post_date then ID.
func (db *DB) revisionFigures(ctx context.Context, postID int64) (count int, latest int64, err error) {
	if err = db.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db.t("posts")+
		" WHERE post_parent = ? AND post_type = 'revision' AND post_status = 'inherit'", postID).Scan(&count); err != nil || count == 0 {
		return count, 0, err
	}
	err = db.sql.QueryRowContext(ctx, "SELECT ID FROM "+db.t("posts")+
		" WHERE post_parent = ? AND post_type = 'revision' AND post_status = 'inherit' ORDER BY post_date DESC, ID DESC LIMIT 1", postID).Scan(&latest)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return count, latest, err
}

// RevisionIDs returns the post's revisions, as wp_delete_post finds them.
func (t *Tx) RevisionIDs(ctx context.Context, postID int64) ([]int64, error) {
	rows, err := t.query(ctx, "SELECT ID FROM "+t.t("posts")+" WHERE post_parent = ? AND post_type = 'revision' ORDER BY ID", postID)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// DeletePostRow removes a post's row, meta and term relationships, and hands its attachments to
// newParent (wp_delete_post's last steps).
func (t *Tx) DeletePostRow(ctx context.Context, postID, newParent int64) error {
	t.touch(postID)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE " + t.t("posts") + " SET post_parent = ? WHERE post_parent = ? AND post_type = 'attachment'", []any{newParent, postID}},
		{"DELETE FROM " + t.t("term_relationships") + " WHERE object_id = ?", []any{postID}},
		{"DELETE FROM " + t.t("postmeta") + " WHERE post_id = ?", []any{postID}},
		{"DELETE FROM " + t.t("posts") + " WHERE ID = ?", []any{postID}},
	} {
		if _, err := t.exec(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}

// DeleteTECRows removes the post's tec_occurrences and tec_events rows.
func (t *Tx) DeleteTECRows(ctx context.Context, postID int64) error {
	t.touch(postID)
	if _, err := t.exec(ctx, "DELETE FROM "+t.t("tec_occurrences")+" WHERE post_id = ?", postID); err != nil {
		return err
	}
	_, err := t.exec(ctx, "DELETE FROM "+t.t("tec_events")+" WHERE post_id = ?", postID)
	return err
}
