package calendard

import (
	"context"
)

// CorePost is what WordPress core's REST posts controller (wp/v2) reads to answer for one post:
// the row with its meta, its terms and its revisions.
type CorePost struct {
	*Post
	// Terms are the post's terms per taxonomy, ordered by name as get_the_terms returns them.
	Terms map[string][]*Term
	// Revisions counts the post's revisions; LatestRevision is the newest one's ID
	// (wp_get_latest_revision_id_and_total_count).
	Revisions      int
	LatestRevision int64
}

// CorePostReader loads posts for the wp/v2 routes.
type CorePostReader interface {
	// CorePost returns the post with meta, terms and revision figures, or nil when there is none.
	CorePost(ctx context.Context, id int64) (*CorePost, error)
}

// PostDeleteTx is the storage a permanent delete needs (part of WriteTx).
type PostDeleteTx interface {
	// RevisionIDs returns the IDs of the post's revisions (any post_name), in ID order.
	RevisionIDs(ctx context.Context, postID int64) ([]int64, error)
	// DeletePostRow removes the wp_posts row, every postmeta row and every term relationship of
	// the post, and points attachments of the post at newParent.
	DeletePostRow(ctx context.Context, postID, newParent int64) error
	// DeleteTECRows removes the post's rows from the plugin's custom tables.
	DeleteTECRows(ctx context.Context, postID int64) error
}

// ErrCannotDelete is wp/v2's answer when wp_delete_post fails.
var ErrCannotDelete = &Error{Code: "rest_cannot_delete", Message: "The post cannot be deleted.", Status: 500}

// DeletePost is wp_delete_post($id, true) for the calendar's post types: the plugin's custom-table
// rows (its before_delete_post hook), the term relationships with the counts recomputed, the
// revisions, the meta and the row itself. Comments are not touched (calendard keeps none).
func DeletePost(ctx context.Context, tx WriteTx, id int64) error {
	p, err := tx.LockPost(ctx, id)
	if err != nil {
		return err
	}
	if p == nil {
		return ErrCannotDelete
	}
	if p.Type == PostTypeEvent && tx.HasCustomTables(ctx) {
		if err := tx.DeleteTECRows(ctx, id); err != nil {
			return err
		}
	}
	// wp_delete_object_term_relationships: remove, then recount what the post was counted in.
	for _, tax := range taxonomiesOf(p.Type) {
		terms, err := tx.TermsOfObject(ctx, id, tax)
		if err != nil {
			return err
		}
		if len(terms) == 0 {
			continue
		}
		ids := make([]int64, len(terms))
		for i, t := range terms {
			ids[i] = t.TaxonomyID
		}
		if err := tx.RemoveTermRelationships(ctx, id, ids); err != nil {
			return err
		}
		if err := tx.RecountTerms(ctx, ids, TaxonomyObjectTypes[tax]); err != nil {
			return err
		}
	}
	revisions, err := tx.RevisionIDs(ctx, id)
	if err != nil {
		return err
	}
	for _, rev := range revisions {
		if err := tx.DeletePostRow(ctx, rev, 0); err != nil {
			return err
		}
	}
	return tx.DeletePostRow(ctx, id, p.Parent)
}
