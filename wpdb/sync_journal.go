package wpdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/calendard/calendard"
)

// The sync journal: calendard's own tables in the site's database, so every instance of a fleet
// shares one journal and it survives restarts.
//
//   - <prefix>calendard_sync: one row per change of an object of a v1 list (seq ascending).
//   - <prefix>calendard_sync_objects: the fingerprint of every object as last journaled; a change
//     is a difference between it and the tables.
//   - <prefix>calendard_sync_state: one row (id 1) with the epoch, the newest seq (head) and the
//     oldest seq a token may follow from. Every journaling transaction locks it first, so seqs are
//     assigned in commit order: once a seq is visible, so is every lower one.

// ErrSyncOff: the journal is unavailable (the tables could not be created, or the store does not
// follow the database's changes).
var ErrSyncOff = calendard.ErrSyncOff

// SyncEntry is one journaled change (the type is shared with the handlers through package calendard).
type SyncEntry = calendard.SyncEntry

// Sync resources.
const (
	SyncEvents     = "events"
	SyncVenues     = "venues"
	SyncOrganizers = "organizers"
	SyncCategories = "categories"
	SyncTags       = "tags"
)

// syncPostTypes maps the post resources to their post types.
var syncPostTypes = [][2]string{
	{SyncEvents, calendard.PostTypeEvent}, {SyncVenues, calendard.PostTypeVenue}, {SyncOrganizers, calendard.PostTypeOrganizer},
}

// syncTaxonomies maps the term resources to their taxonomies.
var syncTaxonomies = [][2]string{{SyncCategories, calendard.TaxonomyCategory}, {SyncTags, calendard.TaxonomyTag}}

// DefaultSyncRetention is how long journal entries are kept when not configured: a month covers
// an aggregator that syncs weekly or monthly, and at ~100 bytes an entry a busy calendar's month
// of changes is a few megabytes.
const DefaultSyncRetention = 30 * 24 * time.Hour

// journal is the store's sync state.
type journal struct {
	mu        sync.Mutex // one journaling transaction of this instance at a time
	on        atomic.Bool
	offReason atomic.Pointer[error]
	// opened is closed when the opening at start has ended (SyncOpened).
	opened    chan struct{}
	wake      chan struct{}
	retention time.Duration
	lastPrune time.Time
	// safe is the newest seq the store's kept state reflects (SyncSafeHead): list answers carry it.
	safe atomic.Int64
	// settled is whether safe is known: false from an opening on a non-empty journal until a poll
	// moves it (moveSafe).
	settled atomic.Bool
	// published is the newest seq whose other instances' entries this instance has published
	// (advanceSafe): they are published once, even while safe waits for the store to settle.
	published atomic.Int64
	// epoch is the journal's epoch as last read.
	epoch atomic.Pointer[string]
	// own are the seq ranges this instance journaled above safe: the others' entries there are
	// changes this instance has not applied yet (catchUpForeign).
	ownMu sync.Mutex
	own   [][2]int64
	// fresh: the baseline was recorded at this start (reconcile).
	fresh atomic.Bool
	// clock stamps entries (tests may set it).
	clock func() time.Time
}

func (s *Store) syncJournal() *journal {
	s.syncOnce.Do(func() {
		opened := make(chan struct{})
		close(opened)
		s.sync = &journal{wake: make(chan struct{}, 1), retention: DefaultSyncRetention, clock: time.Now, opened: opened}
		err := fmt.Errorf("%w: the store does not follow the database's changes (CALENDAR_WATCH_INTERVAL=0)", ErrSyncOff)
		s.sync.offReason.Store(&err)
	})
	return s.sync
}

// SyncWake is signalled (non-blocking send, buffered 1) after entries are journaled.
func (s *Store) SyncWake() <-chan struct{} { return s.syncJournal().wake }

func (s *Store) syncErr() error {
	j := s.syncJournal()
	if j.on.Load() {
		return nil
	}
	return *j.offReason.Load()
}

// syncTableSQL is the DDL of the journal's tables.
func (db *DB) syncTableSQL() []string {
	j, o, st := db.t("calendard_sync"), db.t("calendard_sync_objects"), db.t("calendard_sync_state")
	if db.dialect == SQLite {
		return []string{
			"CREATE TABLE IF NOT EXISTS " + j + " (seq INTEGER PRIMARY KEY, resource TEXT NOT NULL, object_id INTEGER NOT NULL, " +
				"op TEXT NOT NULL, post_status TEXT NOT NULL DEFAULT '', journaled_at TEXT NOT NULL)",
			"CREATE INDEX IF NOT EXISTS " + j + "_resource_seq ON " + j + " (resource, seq)",
			"CREATE INDEX IF NOT EXISTS " + j + "_journaled_at ON " + j + " (journaled_at)",
			"CREATE TABLE IF NOT EXISTS " + o + " (resource TEXT NOT NULL, object_id INTEGER NOT NULL, status TEXT NOT NULL DEFAULT '', " +
				"row_fp INTEGER NOT NULL, full_fp INTEGER NOT NULL, PRIMARY KEY (resource, object_id))",
			"CREATE TABLE IF NOT EXISTS " + st + " (id INTEGER PRIMARY KEY, epoch TEXT NOT NULL, head INTEGER NOT NULL, oldest INTEGER NOT NULL)",
		}
	}
	return []string{
		"CREATE TABLE IF NOT EXISTS " + j + " (seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, resource VARCHAR(20) NOT NULL, " +
			"object_id BIGINT UNSIGNED NOT NULL, op VARCHAR(8) NOT NULL, post_status VARCHAR(20) NOT NULL DEFAULT '', " +
			"journaled_at DATETIME NOT NULL, PRIMARY KEY (seq), KEY resource_seq (resource, seq), KEY journaled_at (journaled_at)) " +
			"DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci",
		"CREATE TABLE IF NOT EXISTS " + o + " (resource VARCHAR(20) NOT NULL, object_id BIGINT UNSIGNED NOT NULL, " +
			"status VARCHAR(20) NOT NULL DEFAULT '', row_fp BIGINT NOT NULL, full_fp BIGINT NOT NULL, PRIMARY KEY (resource, object_id)) " +
			"DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci",
		"CREATE TABLE IF NOT EXISTS " + st + " (id INT NOT NULL, epoch VARCHAR(32) NOT NULL, head BIGINT NOT NULL, " +
			"oldest BIGINT NOT NULL, PRIMARY KEY (id)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci",
	}
}

// SyncTableNames are the journal's tables (for migrate's plan).
func (db *DB) SyncTableNames() []string {
	return []string{db.t("calendard_sync"), db.t("calendard_sync_objects"), db.t("calendard_sync_state")}
}

// EnsureSyncJournal creates the journal's tables when missing and, on a journal without its state
// row, records the baseline: the fingerprint of every object, without entries. It is what
// `calendard migrate` and the store's start run.
func (db *DB) EnsureSyncJournal(ctx context.Context) error {
	_, err := db.ensureSyncJournal(ctx)
	return err
}

// ensureSyncJournal is EnsureSyncJournal; created reports that it recorded the baseline.
func (db *DB) ensureSyncJournal(ctx context.Context) (created bool, err error) {
	for _, stmt := range db.syncTableSQL() {
		if _, err := db.sql.primary().ExecContext(ctx, stmt); err != nil {
			return false, fmt.Errorf("creating the sync journal: %w", err)
		}
	}
	var n int
	if err := db.sql.primary().QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db.t("calendard_sync_state")).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	// syncMoved, not syncDiff: with no fingerprint stored every event is in the baseline already,
	// so the events embedding a venue, organizer or term would add none (at a million events
	// that search alone took minutes).
	return true, db.journalTx(ctx, time.Now(), true, func(ctx context.Context, tx *sql.Tx) ([]syncChange, error) {
		return db.syncMoved(ctx, tx, syncScope{all: true, full: true, terms: true})
	}, nil)
}

// newEpoch is a random journal id: a token from another journal (recreated tables, another site)
// answers 410.
func newEpoch() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// syncChange is one object whose fingerprint moved.
type syncChange struct {
	resource      string
	id            int64
	deleted       bool
	status        string
	rowFP, fullFP int64
	// countOnly: a term whose count alone moved (the events embedding it are not journaled).
	countOnly bool
	// embedded: an event journaled because it embeds a changed object (its own rows unchanged).
	embedded bool
}

// journalTx runs one journaling transaction: it locks the state row (creating it with a new epoch
// when baseline is set), asks diff for the changes, stores their fingerprints and, unless baseline,
// appends them to the journal. after runs with the seqs it assigned once committed.
func (db *DB) journalTx(ctx context.Context, now time.Time, baseline bool, diff func(context.Context, *sql.Tx) ([]syncChange, error), after func(first, last int64)) error {
	opts := &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	if db.dialect == SQLite {
		opts = nil
	}
	tx, err := db.sql.primary().BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st := db.t("calendard_sync_state")
	var head int64
	err = tx.QueryRowContext(ctx, "SELECT head FROM "+st+" WHERE id = 1"+db.forUpdate()).Scan(&head)
	switch {
	case errors.Is(err, sql.ErrNoRows) && baseline:
		epoch, err := newEpoch()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, db.insertIgnore()+" INTO "+st+" (id, epoch, head, oldest) VALUES (1, ?, 0, 0)", epoch); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, "SELECT head FROM "+st+" WHERE id = 1"+db.forUpdate()).Scan(&head); err != nil {
			return err
		}
		if head != 0 {
			return nil // another instance recorded the baseline meanwhile
		}
	case err != nil:
		return err
	case baseline:
		return nil
	}
	changes, err := diff(ctx, tx)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		return tx.Commit()
	}
	if err := db.storeFingerprints(ctx, tx, changes); err != nil {
		return err
	}
	first := head + 1
	if !baseline {
		if head, err = db.appendEntries(ctx, tx, head, now, changes); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if after != nil && !baseline {
		after(first, head)
	}
	return nil
}

// appendEntries journals the changes after head and returns the new head.
func (db *DB) appendEntries(ctx context.Context, tx *sql.Tx, head int64, now time.Time, changes []syncChange) (int64, error) {
	at := now.UTC().Format("2006-01-02 15:04:05")
	for start := 0; start < len(changes); start += 500 {
		batch := changes[start:min(len(changes), start+500)]
		args := make([]any, 0, 6*len(batch))
		for _, c := range batch {
			head++
			op := "upsert"
			if c.deleted {
				op = "delete"
			}
			args = append(args, head, c.resource, c.id, op, c.status, at)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+db.t("calendard_sync")+" (seq, resource, object_id, op, post_status, journaled_at) VALUES "+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?),", len(batch)), ","), args...); err != nil {
			return 0, err
		}
	}
	_, err := tx.ExecContext(ctx, "UPDATE "+db.t("calendard_sync_state")+" SET head = ? WHERE id = 1", head)
	return head, err
}

// storeFingerprints replaces the stored fingerprints of the changed objects.
func (db *DB) storeFingerprints(ctx context.Context, tx *sql.Tx, changes []syncChange) error {
	o := db.t("calendard_sync_objects")
	for start := 0; start < len(changes); start += 500 {
		batch := changes[start:min(len(changes), start+500)]
		byRes := map[string][]int64{}
		for _, c := range batch {
			byRes[c.resource] = append(byRes[c.resource], c.id)
		}
		for res, ids := range byRes {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+o+" WHERE resource = ? AND object_id IN ("+placeholders(len(ids))+")",
				append([]any{res}, int64Args(ids)...)...); err != nil {
				return err
			}
		}
		var args []any
		n := 0
		for _, c := range batch {
			if c.deleted {
				continue
			}
			args = append(args, c.resource, c.id, c.status, c.rowFP, c.fullFP)
			n++
		}
		if n == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+o+" (resource, object_id, status, row_fp, full_fp) VALUES "+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?),", n), ","), args...); err != nil {
			return err
		}
	}
	return nil
}

// SyncSince returns up to limit entries with Seq > after, oldest first, read on the primary.
func (s *Store) SyncSince(ctx context.Context, after int64, limit int) ([]SyncEntry, error) {
	return s.SyncSinceResource(ctx, "", after, 0, limit)
}

// SyncSinceResource returns up to limit entries of one resource ("": every one) with after < Seq
// <= upTo (0: no bound), oldest first, read on the primary.
func (s *Store) SyncSinceResource(ctx context.Context, resource string, after, upTo int64, limit int) ([]SyncEntry, error) {
	if err := s.syncErr(); err != nil {
		return nil, err
	}
	q := "SELECT seq, resource, object_id, op, post_status, journaled_at FROM " + s.t("calendard_sync") + " WHERE seq > ?"
	args := []any{after}
	if resource != "" {
		q += " AND resource = ?"
		args = append(args, resource)
	}
	if upTo > 0 {
		q += " AND seq <= ?"
		args = append(args, upTo)
	}
	q += " ORDER BY seq LIMIT ?"
	args = append(args, limit)
	rows, err := s.sql.primary().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SyncEntry
	for rows.Next() {
		var e SyncEntry
		var op, at string
		if err := rows.Scan(&e.Seq, &e.Resource, &e.ID, &op, &e.Status, &at); err != nil {
			return nil, err
		}
		e.Deleted = op == "delete"
		e.At, _ = time.ParseInLocation("2006-01-02 15:04:05", strings.Replace(strings.TrimSuffix(at, "Z"), "T", " ", 1), time.UTC)
		out = append(out, e)
	}
	return out, rows.Err()
}

// SyncHead: the journal's epoch, its newest seq, and the oldest seq a token may still follow from
// (a token with seq < oldest answers 410). err wraps ErrSyncOff when the journal is unavailable.
func (s *Store) SyncHead(ctx context.Context) (epoch string, head, oldest int64, err error) {
	if err := s.syncErr(); err != nil {
		return "", 0, 0, err
	}
	err = s.sql.primary().QueryRowContext(ctx, "SELECT epoch, head, oldest FROM "+s.t("calendard_sync_state")+" WHERE id = 1").
		Scan(&epoch, &head, &oldest)
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("%w: the journal has no state", ErrSyncOff)
	}
	return epoch, head, oldest, err
}

// errNotSettled: the safe head is not known yet after a start (journal.settled).
var errNotSettled = fmt.Errorf("%w: the store is catching up with the journal", calendard.ErrSyncStarting)

// SyncSafeHead is the newest seq whose changes every answer of this instance reflects (the event
// index and caches have applied them): a list answer's token. It lags the journal's head by up to
// one watermark poll; catchUp, when it lags, runs a poll first (Feed.Sync), so that a sync request
// made after a write sees it.
func (s *Store) SyncSafeHead(ctx context.Context, catchUp bool) (epoch string, safe int64, err error) {
	if err := s.syncErr(); err != nil {
		return "", 0, err
	}
	j := s.syncJournal()
	if !catchUp {
		if !j.settled.Load() {
			return "", 0, errNotSettled
		}
		// A list answer's token costs no query: the epoch and safe head the polls keep.
		if e := j.epoch.Load(); e != nil {
			return *e, j.safe.Load(), nil
		}
	}
	epoch, head, _, err := s.SyncHead(ctx)
	if err != nil {
		return "", 0, err
	}
	j.epoch.Store(&epoch)
	if catchUp && (j.safe.Load() < head || !j.settled.Load()) {
		if err := s.feed.Sync(ctx); err != nil {
			return "", 0, err
		}
		if !j.settled.Load() {
			return "", 0, errNotSettled
		}
	}
	return epoch, min(head, j.safe.Load()), nil
}

// PruneSync deletes the entries journaled before cutoff and moves the oldest followable seq past
// them: tokens older than that answer 410.
func (s *Store) PruneSync(ctx context.Context, cutoff time.Time) error {
	if err := s.syncErr(); err != nil {
		return err
	}
	return s.pruneSync(ctx, cutoff)
}

func (db *DB) pruneSync(ctx context.Context, cutoff time.Time) error {
	return db.journalTx(ctx, time.Now(), false, func(ctx context.Context, tx *sql.Tx) ([]syncChange, error) {
		var upTo sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT MAX(seq) FROM "+db.t("calendard_sync")+" WHERE journaled_at < ?",
			cutoff.UTC().Format("2006-01-02 15:04:05")).Scan(&upTo); err != nil || !upTo.Valid {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+db.t("calendard_sync")+" WHERE seq <= ?", upTo.Int64); err != nil {
			return nil, err
		}
		_, err := tx.ExecContext(ctx, "UPDATE "+db.t("calendard_sync_state")+" SET oldest = ? WHERE id = 1 AND oldest < ?", upTo.Int64, upTo.Int64)
		return nil, err
	}, nil)
}
