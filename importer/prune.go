package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Gone is a post imported from the source in an earlier run that the source no longer has.
type Gone struct {
	Resource Resource
	SourceID int64
	ID       int64 // the target's post
	Deleted  bool  // removed (--prune)
}

// postTypes are the post resources by post type, as the source identities name them.
var postTypes = map[string]Resource{"attachment": MediaFiles, "tribe_venue": Venues, "tribe_organizer": Organizers, "tribe_events": Events}

// present notes a source record seen in this run (whether or not it could be imported: a record
// the source still has is never pruned).
func (im *Importer) present(res Resource, raw json.RawMessage) {
	var v struct {
		ID json.Number `json:"id"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	id, err := strconv.ParseInt(string(v.ID), 10, 64)
	if err != nil {
		return
	}
	im.presentID(res, id)
}

func (im *Importer) presentID(res Resource, id int64) {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.seenIDs[res] == nil {
		im.seenIDs[res] = map[int64]bool{}
	}
	im.seenIDs[res][id] = true
}

// complete says whether this run saw every record of res: no page, probe or list failed.
func (im *Importer) complete(res Resource) bool {
	for _, f := range im.sum.Failures {
		if f.Resource == res && !strings.HasPrefix(f.Item, "id ") && !strings.HasPrefix(f.Item, "record ") {
			return false
		}
	}
	return true
}

// prune finds the posts earlier runs imported from this source that it no longer shows, and with
// Options.Prune deletes them. Only resources this run saw whole are judged, and only with
// credentials (an anonymous run does not see drafts); resumed resources were not walked.
func (im *Importer) prune(ctx context.Context) error {
	if im.opts.User == "" {
		return nil
	}
	imported, err := im.target.ImportedPosts(ctx, im.sum.Source+"#")
	if err != nil {
		return fmt.Errorf("finding the imported posts: %w", err)
	}
	resumed := map[Resource]bool{}
	for _, r := range im.sum.Resumed {
		resumed[r] = true
	}
	for source, id := range imported {
		typ, sid, ok := strings.Cut(strings.TrimPrefix(source, im.sum.Source+"#"), "/")
		res, known := postTypes[typ]
		n, err := strconv.ParseInt(sid, 10, 64)
		if !ok || !known || err != nil || resumed[res] || !im.complete(res) || im.seenIDs[res][n] {
			continue
		}
		g := Gone{Resource: res, SourceID: n, ID: id}
		if im.opts.Prune {
			if err := im.target.DeletePost(ctx, id); err != nil {
				im.fail(res, "id "+sid, fmt.Errorf("deleted at the source; deleting post %d: %w", id, err))
				continue
			}
			g.Deleted = true
		}
		im.sum.Gone = append(im.sum.Gone, g)
	}
	return nil
}
