package calendard

import (
	"context"
	"errors"
	"time"
)

// ErrSyncOff: the sync journal is unavailable (its tables could not be created, or the store does
// not follow the database's changes).
var ErrSyncOff = errors.New("sync journal unavailable")

// ErrSyncStarting: the sync journal is being opened at start (its first baseline of a large
// calendar, or the catch-up of what changed while no instance ran); retry shortly.
var ErrSyncStarting = errors.New("sync journal starting")

// SyncEntry is one journaled change of an object of a v1 list (wpdb's sync journal).
type SyncEntry struct {
	Seq      int64
	Resource string // "events", "venues", "organizers", "categories", "tags" (the v1 list names)
	ID       int64  // post ID or term ID
	// Deleted: the row is gone (or left the list's post type); a trash or draft is Deleted=false
	// with its Status.
	Deleted bool
	Status  string    // post_status after the change ("" for terms and deleted rows)
	At      time.Time // when journaled, UTC
}

// SyncJournal is what the v1 lists' sync tokens read (wpdb.Store).
type SyncJournal interface {
	// SyncHead: the journal's epoch, its newest seq and the oldest seq a token may follow from.
	SyncHead(ctx context.Context) (epoch string, head, oldest int64, err error)
	// SyncSafeHead: the newest seq every answer of this instance reflects; catchUp waits (a poll)
	// when the journal is ahead of it.
	SyncSafeHead(ctx context.Context, catchUp bool) (epoch string, safe int64, err error)
	// SyncSinceResource returns up to limit entries of one resource with after < Seq <= upTo,
	// oldest first.
	SyncSinceResource(ctx context.Context, resource string, after, upTo int64, limit int) ([]SyncEntry, error)
}
