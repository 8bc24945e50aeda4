package wpdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/calendard/calendard"
)

// The periodic reconcile (Feed.Reconcile) with the sync journal on: the journal's fingerprints
// cover every event, venue, organizer, category and tag (rows, meta, term relationships), so
// their diff is exactly the set of objects that changed without the watermark seeing it. That set
// is published as it is, as a calendard write's would be: the event index patches those events,
// and when nothing changed nothing is published (the response cache keeps its generation, the
// index its snapshot).

// errFreshBaseline: the journal's baseline was recorded at this start, after the event index
// read the tables; a change made between the two is in neither diff, so the first reconcile
// reloads everything once.
var errFreshBaseline = errors.New("the sync journal's baseline is newer than what the store loaded")

// reconcilePatchShare: a reconcile that finds more than this share of the calendar's events
// changed (and more than syncForeignMax) publishes Change{All}: one rebuild of the event index
// then costs less than patching each of them.
const reconcilePatchShare = 20

// reconcile is the feed's reconciler (Feed.reconciler) once the journal is started.
func (s *Store) reconcile(ctx context.Context, tick func()) error {
	j := s.syncJournal()
	select {
	case <-j.opened:
	default:
		return errReconcileLater
	}
	tick()
	if err := s.syncErr(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, syncReconcileTimeout)
	defer cancel()
	defer s.maybePrune(ctx)
	fresh := j.fresh.Swap(false)
	sc, err := s.candidateScope(ctx, syncScope{all: true, full: true, terms: true})
	if err != nil {
		return err
	}
	if sc.empty() {
		if fresh {
			return errFreshBaseline
		}
		return nil
	}
	// No poll between the journaling and the publication: a poll would move the safe head (list
	// answers' tokens) past entries the store does not reflect yet.
	s.feed.pollMu.Lock()
	defer s.feed.pollMu.Unlock()
	journaled, err := s.journalLocked(ctx, sc)
	if err != nil {
		return err
	}
	var posts []int64
	terms := false
	for _, c := range journaled {
		switch {
		case c.resource == SyncCategories || c.resource == SyncTags:
			terms = true
		case !c.embedded:
			posts = append(posts, c.id)
		}
	}
	if fresh {
		return errFreshBaseline
	}
	if len(posts) == 0 && !terms {
		return nil // a calendard write journaled them meanwhile, and published them
	}
	limit := syncForeignMax
	if s.index != nil {
		limit = max(limit, s.index.Stats().Events/reconcilePatchShare)
	}
	// Published through a write of its own: its changelog entry moves the watermark, so that the
	// other instances' polls publish the same posts, and so that an index file written before it
	// is not loaded at the next start as if it held them.
	err = s.DB.Write(ctx, j.clock, func(wtx calendard.WriteTx) error {
		t := wtx.(*Tx)
		for _, id := range posts {
			t.touch(id)
		}
		t.termsChanged = terms
		t.reconciled, t.rebuild = true, len(posts) > limit
		return nil
	})
	if err != nil {
		return fmt.Errorf("publishing %d changed posts: %w", len(posts), err)
	}
	return nil
}
