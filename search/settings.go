package search

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/meilisearch/meilisearch-go"
)

// MaxTotalHits is the index's pagination.maxTotalHits: above any calendar's size, so that a search
// can always list every match (Meilisearch's default of 1,000 would cut results silently).
const MaxTotalHits = 100_000_000

// settingsFor is the settings of a kind's index.
func settingsFor(kind string) *meilisearch.Settings {
	s := &meilisearch.Settings{
		Pagination:          &meilisearch.Pagination{MaxTotalHits: MaxTotalHits},
		DisplayedAttributes: []string{"*"},
		SortableAttributes:  []string{"_geo"},
	}
	if kind == KindEvents {
		s.SearchableAttributes = eventSearchable
		s.FilterableAttributes = eventFilterable
		s.SortableAttributes = []string{"_geo", "start"}
	} else {
		s.SearchableAttributes = linkedSearchable[kind]
		s.FilterableAttributes = linkedFilterable
	}
	return s
}

// ensureIndex creates the index when it does not exist (created), applies the kind's settings, and
// reads them back to verify them.
func (ix *Index) ensureIndex(ctx context.Context, uid, kind string) (created bool, err error) {
	if _, err := ix.client.GetIndexWithContext(ctx, uid); err != nil {
		var me *meilisearch.Error
		if !errors.As(err, &me) || me.StatusCode != http.StatusNotFound {
			return false, err // unreachable, or failing: not a reason to create it
		}
		if err := ix.waitTask(ctx, func() (*meilisearch.TaskInfo, error) {
			return ix.client.CreateIndexWithContext(ctx, &meilisearch.IndexConfig{Uid: uid, PrimaryKey: "id"})
		}); err != nil {
			return false, fmt.Errorf("creating index %s: %w", uid, err)
		}
		created = true
	}
	want := settingsFor(kind)
	// Settings are written only when they differ: rewriting them makes Meilisearch re-index every
	// document, at every start.
	if ix.verifySettings(ctx, uid, want) == nil {
		return created, nil
	}
	if err := ix.waitTask(ctx, func() (*meilisearch.TaskInfo, error) {
		return ix.client.Index(uid).UpdateSettingsWithContext(ctx, want)
	}); err != nil {
		return created, fmt.Errorf("settings of index %s: %w", uid, err)
	}
	return created, ix.verifySettings(ctx, uid, want)
}

// verifySettings checks that Meilisearch holds the settings the searches rely on.
func (ix *Index) verifySettings(ctx context.Context, uid string, want *meilisearch.Settings) error {
	got, err := ix.client.Index(uid).GetSettingsWithContext(ctx)
	if err != nil {
		return err
	}
	sorted := func(a []string) []string {
		b := slices.Clone(a)
		slices.Sort(b)
		return b
	}
	switch {
	case got.Pagination == nil || got.Pagination.MaxTotalHits != want.Pagination.MaxTotalHits:
		return fmt.Errorf("index %s: pagination.maxTotalHits is not %d", uid, want.Pagination.MaxTotalHits)
	case !slices.Equal(got.SearchableAttributes, want.SearchableAttributes):
		return fmt.Errorf("index %s: searchableAttributes are %v, want %v", uid, got.SearchableAttributes, want.SearchableAttributes)
	case !slices.Equal(sorted(filterNames(got.FilterableAttributes)), sorted(want.FilterableAttributes)):
		return fmt.Errorf("index %s: filterableAttributes are %v, want %v", uid, got.FilterableAttributes, want.FilterableAttributes)
	case !slices.Equal(sorted(got.SortableAttributes), sorted(want.SortableAttributes)):
		return fmt.Errorf("index %s: sortableAttributes are %v, want %v", uid, got.SortableAttributes, want.SortableAttributes)
	}
	return nil
}

func filterNames(a []string) []string { return a }
