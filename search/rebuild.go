package search

import (
	"context"
	"fmt"

	"github.com/meilisearch/meilisearch-go"
)

// Rebuild builds fresh indexes from the database under temporary names and swaps them with the live
// ones in one Meilisearch swap (atomic: searches see the old indexes until the new ones are whole),
// then deletes the old ones and applies what changed meanwhile. progress hears (documents written,
// posts to index) after each batch.
func (ix *Index) Rebuild(ctx context.Context, progress func(done, total int)) error {
	next := ix.cfg.Prefix + "_next"
	var swaps []*meilisearch.SwapIndexesParams
	for _, k := range kinds {
		// Left over from an interrupted rebuild (a failed task when there is none).
		_ = ix.waitTask(ctx, func() (*meilisearch.TaskInfo, error) {
			return ix.client.DeleteIndexWithContext(ctx, next+"_"+k)
		})
		if _, err := ix.ensureIndex(ctx, next+"_"+k, k); err != nil {
			return err
		}
		// The live index must exist to be swapped with.
		if _, err := ix.ensureIndex(ctx, ix.UID(k), k); err != nil {
			return err
		}
		swaps = append(swaps, &meilisearch.SwapIndexesParams{Indexes: []string{ix.UID(k), next + "_" + k}})
	}
	posts, err := ix.db.IndexablePosts(ctx, "")
	if err != nil {
		return err
	}
	// Posts saved from here on are re-applied to the live index after the swap.
	since := ""
	for _, p := range posts {
		since = max(since, p.ModifiedGMT)
	}
	// Meilisearch indexes a batch while the next one is read from the database (enqueued, not
	// awaited, up to maxQueued); the swap waits for every write.
	const batch = 5000
	q := &taskQueue{}
	for i := 0; i < len(posts); i += batch {
		var ids []int64
		for _, p := range posts[i:min(i+batch, len(posts))] {
			ids = append(ids, p.ID)
		}
		if err := ix.applyBatches(ctx, next, ids, batch, true, q); err != nil {
			return err
		}
		if progress != nil {
			progress(min(i+batch, len(posts)), len(posts))
		}
	}
	if err := q.wait(ctx, ix); err != nil {
		return err
	}
	if progress != nil && len(posts) == 0 {
		progress(0, 0)
	}
	if err := ix.waitTask(ctx, func() (*meilisearch.TaskInfo, error) {
		return ix.client.SwapIndexesWithContext(ctx, swaps)
	}); err != nil {
		return fmt.Errorf("swapping in the new indexes: %w", err)
	}
	for _, k := range kinds {
		if err := ix.waitTask(ctx, func() (*meilisearch.TaskInfo, error) {
			return ix.client.DeleteIndexWithContext(ctx, next+"_"+k)
		}); err != nil {
			return err
		}
	}
	return ix.resync(ctx, ix.cfg.Prefix, since, false, true)
}
