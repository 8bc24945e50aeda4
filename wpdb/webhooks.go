package wpdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// webhookTable holds each webhook endpoint's place in the sync journal and the lease of the
// instance delivering for it. It is calendard's own table, created on first use; an endpoint is
// its URL's hash (never its secret), seq -1 an endpoint not placed in the journal yet, lease_until
// Unix milliseconds.
var webhookTable = table{name: "calendard_webhooks", cols: []column{
	col("endpoint", "varchar(64)", ""), col("epoch", "varchar(64)", "''"), col("seq", "bigint(20)", "-1"),
	col("lease_owner", "varchar(64)", "''"), col("lease_until", "bigint(20)", "0")},
	primary: []string{"endpoint"}}

// WebhookCursors is the durable state of the webhook dispatcher (webhook.Cursors), on the primary.
type WebhookCursors struct {
	db      *DB
	mu      sync.Mutex
	created bool
}

// WebhookCursors returns the accessor of the cursor table, which its first use creates when it is
// missing (the database may not be reachable when the service starts).
func (db *DB) WebhookCursors() *WebhookCursors { return &WebhookCursors{db: db} }

func (c *WebhookCursors) ensure(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.created {
		return nil
	}
	for _, stmt := range c.db.createTableSQL(webhookTable) {
		if _, err := c.db.sql.primary().ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("creating %s: %w", c.db.t(webhookTable.name), err)
		}
	}
	c.created = true
	return nil
}

// Claim takes the endpoint's lease for owner until until when it is free, expired or owner's
// already, and returns the stored cursor.
func (c *WebhookCursors) Claim(ctx context.Context, key, owner string, now, until time.Time) (epoch string, seq int64, found, held bool, err error) {
	if err = c.ensure(ctx); err != nil {
		return
	}
	db, t := c.db.sql.primary(), c.db.t(webhookTable.name)
	if _, err = db.ExecContext(ctx, c.db.insertIgnore()+" INTO "+t+" (endpoint, epoch, seq, lease_owner, lease_until) VALUES (?, '', -1, '', 0)", key); err != nil {
		return
	}
	if _, err = db.ExecContext(ctx, "UPDATE "+t+" SET lease_owner = ?, lease_until = ? WHERE endpoint = ? AND (lease_owner = ? OR lease_until < ?)",
		owner, until.UnixMilli(), key, owner, now.UnixMilli()); err != nil {
		return
	}
	var holder string
	err = db.QueryRowContext(ctx, "SELECT epoch, seq, lease_owner FROM "+t+" WHERE endpoint = ?", key).Scan(&epoch, &seq, &holder)
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("%s lost the row of an endpoint", t)
	}
	if err != nil {
		return
	}
	return epoch, seq, seq >= 0, holder == owner, nil
}

// Advance stores the endpoint's cursor if owner still holds its lease.
func (c *WebhookCursors) Advance(ctx context.Context, key, owner, epoch string, seq int64) (bool, error) {
	db, t := c.db.sql.primary(), c.db.t(webhookTable.name)
	res, err := db.ExecContext(ctx, "UPDATE "+t+" SET epoch = ?, seq = ? WHERE endpoint = ? AND lease_owner = ?", epoch, seq, key, owner)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err == nil && n > 0 {
		return true, nil
	}
	// MySQL counts rows changed, not matched: an unchanged row says nothing of the lease.
	var holder string
	err = db.QueryRowContext(ctx, "SELECT lease_owner FROM "+t+" WHERE endpoint = ?", key).Scan(&holder)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return holder == owner, err
}

// Release gives the lease up, so that another instance may deliver at once.
func (c *WebhookCursors) Release(ctx context.Context, key, owner string) error {
	_, err := c.db.sql.primary().ExecContext(ctx, "UPDATE "+c.db.t(webhookTable.name)+" SET lease_owner = '', lease_until = 0 WHERE endpoint = ? AND lease_owner = ?", key, owner)
	return err
}
