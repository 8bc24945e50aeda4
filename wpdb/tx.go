package wpdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"

	"github.com/calendard/calendard"
)

// Tx is one write transaction; it implements calendard.WriteTx.
type Tx struct {
	db  *DB
	tx  *sql.Tx
	now time.Time
	// hook, when set (tests), runs before every statement so a test can break the connection midway.
	hook func(ctx context.Context) error
	ct   *bool
	// touched and termsChanged are what the change feed hears after commit.
	touched      []int64
	termsChanged bool
	// optionsChanged: wp_options rows changed (site settings); every cache starts over.
	optionsChanged bool
	// reconciled: the reconcile's write (reconcileWrite): its change is journaled already, and
	// rebuild asks every instance to reload everything (a large change).
	reconciled, rebuild bool
}

// touch records that a post's rows changed.
func (t *Tx) touch(id int64) {
	if id > 0 && !slices.Contains(t.touched, id) {
		t.touched = append(t.touched, id)
	}
}

// TestHookBeforeStatement lets tests interrupt a write between statements (e.g. kill the connection)
// to prove no partial rows survive. It is nil in production.
var TestHookBeforeStatement func(ctx context.Context, connID int64) error

// TestHookBeforeCommit runs just before a write commits (tests stall the database there). It is
// nil in production.
var TestHookBeforeCommit func()

// Write runs fn in one transaction on a dedicated connection and commits when fn succeeds. Deadlocks
// and lock timeouts are retried (the whole function runs again), so fn must only touch the database
// through tx. Named locks taken by the transaction are released after it ends.
func (db *DB) Write(ctx context.Context, clock func() time.Time, fn func(tx calendard.WriteTx) error) error {
	if clock == nil {
		clock = time.Now
	}
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		var published func()
		err = db.writeOnce(ctx, clock(), fn, &published)
		if published != nil {
			published()
		}
		if !retryable(err) {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 15 * time.Millisecond)
	}
	if connectionLost(err) {
		return fmt.Errorf("%w: %w", calendard.ErrUnavailable, err)
	}
	return err
}

// Unavailable reports whether err means the database itself failed (unreachable, gone away,
// connection lost, locked past the busy timeout) rather than the request: the service answers such
// a read 503 service_unavailable, as it answers such a write (handlers' error mapping asks it).
func (db *DB) Unavailable(err error) bool { return connectionLost(err) }

// connectionLost reports errors that mean the server or the connection went away mid-request (the
// server rolls the transaction back).
func connectionLost(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1053, 1317, 1927, 2006, 2013: // shutdown, query interrupted, connection killed, gone away, lost
			return true
		}
	}
	if sqliteBusy(err) {
		return true // another writer held the database past the busy timeout
	}
	if errors.Is(err, errLockTimeout) {
		return true // other writers held a named lock past the wait
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// retryable reports lock conflicts worth running the transaction again for: MySQL deadlocks and
// lock wait timeouts.
func retryable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// writeOnce runs fn in one transaction. What a committed write then tells the feed (the index
// patch, the cache's announcement: work that may itself need a pooled connection) is left in
// *published, for the caller to run once this connection is back in the pool and its named locks
// are free: run while both are held, concurrent writers queued on the same lock would hold every
// pooled connection, and the publication would wait for one until their deadlines.
func (db *DB) writeOnce(ctx context.Context, now time.Time, fn func(tx calendard.WriteTx) error, published *func()) (err error) {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	defer db.boundBusyWait(ctx, conn)()
	// Named locks are per session: free them before the connection returns to the pool.
	defer db.releaseLocks(ctx, conn)
	opts := &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	if db.dialect == SQLite {
		opts = nil // BEGIN IMMEDIATE (set on the connection): one writer at a time
	}
	sqlTx, err := conn.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	t := &Tx{db: db, tx: sqlTx, now: now}
	// The watermark before and after the write's own statements lets this instance's feed tell
	// this write from a change made outside calendard (Feed.absorb), and every instance's poll
	// too (the changelog).
	var before watermark
	track := db.feed != nil
	if track {
		if before, err = db.readWatermark(ctx, sqlTx); err != nil {
			_ = sqlTx.Rollback()
			return err
		}
	}
	if TestHookBeforeStatement != nil {
		id, err := db.connectionID(ctx, sqlTx)
		if err != nil {
			_ = sqlTx.Rollback()
			return err
		}
		t.hook = func(ctx context.Context) error { return TestHookBeforeStatement(ctx, id) }
	}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	if err := fn(t); err != nil {
		counters := db.autoIncrements(ctx, sqlTx)
		_ = sqlTx.Rollback()
		db.keepAutoIncrements(ctx, conn, counters)
		return err
	}
	changed := len(t.touched) > 0 || t.termsChanged || t.optionsChanged
	var end watermark
	if track {
		if end, err = db.readWatermark(ctx, sqlTx); err != nil {
			track = false // the commit decides; the next poll then sees this write as a change
		}
	}
	if changed {
		// Last, so that other writers wait for the changelog's row only until this commit.
		if end.changes, err = t.logChange(ctx, before, end, track); err != nil {
			counters := db.autoIncrements(ctx, sqlTx)
			_ = sqlTx.Rollback()
			db.keepAutoIncrements(ctx, conn, counters)
			return err
		}
	}
	ownDone := func() {}
	if track {
		ownDone = db.feed.ownCommit()
	}
	if TestHookBeforeCommit != nil {
		TestHookBeforeCommit()
	}
	if err := sqlTx.Commit(); err != nil {
		ownDone()
		if _, ok := errors.AsType[*commitUnconfirmedError](err); ok {
			return fmt.Errorf("%w: %w", calendard.ErrCommitUnconfirmed, err)
		}
		return err
	}
	var pos string
	if db.feed != nil && changed {
		// With replicas: the commit's position, read on its own connection, so that every read
		// after this write returns (here, and on the instances it is announced to) sees it.
		pos = db.learnPosition(conn)
	}
	*published = func() {
		if db.feed != nil && changed {
			db.feed.Publish(Change{Posts: t.touched, Terms: t.termsChanged, All: t.optionsChanged || t.rebuild,
				Reconcile: t.reconciled, Position: pos})
		}
		if track {
			db.feed.absorb(before, end)
		}
		ownDone()
	}
	return nil
}

// Now is the request clock.
func (t *Tx) Now() time.Time { return t.now }

func (t *Tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if t.hook != nil {
		if err := t.hook(ctx); err != nil {
			return nil, err
		}
	}
	return t.tx.ExecContext(ctx, q, args...)
}

func (t *Tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if t.hook != nil {
		if err := t.hook(ctx); err != nil {
			return nil, err
		}
	}
	return t.tx.QueryContext(ctx, q, args...)
}

func (t *Tx) t(name string) string { return t.db.t(name) }

// LockPost reads a post with its meta, locking the row against concurrent writers.
func (t *Tx) LockPost(ctx context.Context, id int64) (*calendard.Post, error) {
	rows, err := t.query(ctx, "SELECT "+postColumns+" FROM "+t.t("posts")+" WHERE ID = ?"+t.db.forUpdate(), id)
	if err != nil {
		return nil, err
	}
	var p *calendard.Post
	if rows.Next() {
		p, err = scanPost(rows)
	}
	rows.Close()
	if err != nil || p == nil {
		return nil, err
	}
	p.Meta = calendard.Meta{}
	mrows, err := t.query(ctx, "SELECT meta_key, meta_value FROM "+t.t("postmeta")+" WHERE post_id = ? ORDER BY meta_id", id)
	if err != nil {
		return nil, err
	}
	defer mrows.Close()
	for mrows.Next() {
		var k, v nullString
		if err := mrows.Scan(&k, &v); err != nil {
			return nil, err
		}
		p.Meta[k.String] = append(p.Meta[k.String], v.String)
	}
	return p, mrows.Err()
}

// InsertPost inserts a wp_posts row and returns its ID.
func (t *Tx) InsertPost(ctx context.Context, p *calendard.Post) (int64, error) {
	if p.ID > 0 {
		// import_id: the caller checked the ID is free (under the row lock of LockPost).
		_, err := t.exec(ctx, "INSERT INTO "+t.t("posts")+` (ID, post_author, post_date, post_date_gmt, post_content,
		post_title, post_excerpt, post_status, comment_status, ping_status, post_password, post_name, to_ping, pinged,
		post_modified, post_modified_gmt, post_content_filtered, post_parent, guid, menu_order, post_type, post_mime_type,
		comment_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', ?, ?, '', ?, ?, ?, ?, ?, 0)`,
			p.ID, p.Author, p.Date, p.DateGMT, p.Content, p.Title, p.Excerpt, p.Status, p.CommentStatus, p.PingStatus, p.Password,
			p.Name, p.Modified, p.ModifiedGMT, p.Parent, p.GUID, p.MenuOrder, p.Type, p.MimeType)
		if err != nil {
			return 0, err
		}
		t.touch(p.ID)
		return p.ID, nil
	}
	res, err := t.exec(ctx, "INSERT INTO "+t.t("posts")+` (post_author, post_date, post_date_gmt, post_content,
		post_title, post_excerpt, post_status, comment_status, ping_status, post_password, post_name, to_ping, pinged,
		post_modified, post_modified_gmt, post_content_filtered, post_parent, guid, menu_order, post_type, post_mime_type,
		comment_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', ?, ?, '', ?, ?, ?, ?, ?, 0)`,
		p.Author, p.Date, p.DateGMT, p.Content, p.Title, p.Excerpt, p.Status, p.CommentStatus, p.PingStatus, p.Password,
		p.Name, p.Modified, p.ModifiedGMT, p.Parent, p.GUID, p.MenuOrder, p.Type, p.MimeType)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	t.touch(id)
	return id, err
}

// UpdatePost rewrites the columns calendard manages.
func (t *Tx) UpdatePost(ctx context.Context, p *calendard.Post) error {
	t.touch(p.ID)
	_, err := t.exec(ctx, "UPDATE "+t.t("posts")+` SET post_author = ?, post_date = ?, post_date_gmt = ?, post_content = ?,
		post_title = ?, post_excerpt = ?, post_status = ?, comment_status = ?, ping_status = ?, post_password = ?,
		post_name = ?, post_modified = ?, post_modified_gmt = ?, post_parent = ?, guid = ?, menu_order = ?, post_type = ?,
		post_mime_type = ? WHERE ID = ?`,
		p.Author, p.Date, p.DateGMT, p.Content, p.Title, p.Excerpt, p.Status, p.CommentStatus, p.PingStatus, p.Password,
		p.Name, p.Modified, p.ModifiedGMT, p.Parent, p.GUID, p.MenuOrder, p.Type, p.MimeType, p.ID)
	return err
}

// PostNameTaken is wp_unique_post_slug's check query (the collation decides equality).
func (t *Tx) PostNameTaken(ctx context.Context, name, postType string, excludeID int64) (bool, error) {
	rows, err := t.query(ctx, "SELECT 1 FROM "+t.t("posts")+" WHERE post_name = ? AND post_type = ? AND ID != ? LIMIT 1",
		name, postType, excludeID)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	return rows.Next(), rows.Err()
}

// PostsWithName lists posts of any type with that name and status.
func (t *Tx) PostsWithName(ctx context.Context, name, status string, excludeID int64) ([]int64, error) {
	rows, err := t.query(ctx, "SELECT ID FROM "+t.t("posts")+" WHERE post_name = ? AND post_status = ? AND ID != ? ORDER BY ID",
		name, status, excludeID)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// LatestRevision returns the newest real revision (not an autosave) of a post.
func (t *Tx) LatestRevision(ctx context.Context, postID int64) (*calendard.Post, error) {
	rows, err := t.query(ctx, "SELECT "+postColumns+" FROM "+t.t("posts")+` WHERE post_parent = ? AND post_type = 'revision'
		AND post_status = 'inherit' AND post_name LIKE ? ORDER BY post_date DESC, ID DESC LIMIT 1`,
		postID, fmt.Sprintf("%d-revision%%", postID))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	return scanPost(rows)
}

// LockSlugs takes a named lock per post type for the rest of the transaction.
func (t *Tx) LockSlugs(ctx context.Context, postType string) error {
	return t.namedLock(ctx, ".calendard.slug."+t.db.prefix+postType)
}

var errLockTimeout = errors.New("timed out waiting for a write lock")

// AddMeta inserts one postmeta row. A value that is not valid UTF-8 is not stored: wpdb refuses it
// (strip_invalid_text) and add_metadata's false is ignored by its callers, so WordPress drops it
// silently.
func (t *Tx) AddMeta(ctx context.Context, postID int64, key, value string) error {
	t.touch(postID)
	if !utf8.ValidString(value) {
		return nil
	}
	_, err := t.exec(ctx, "INSERT INTO "+t.t("postmeta")+" (post_id, meta_key, meta_value) VALUES (?, ?, ?)", postID, key, value)
	return err
}

// UpdateMetaRows sets every row of key and reports how many rows the key has.
func (t *Tx) UpdateMetaRows(ctx context.Context, postID int64, key, value string) (int64, error) {
	t.touch(postID)
	var n int64
	if err := t.tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t.t("postmeta")+" WHERE post_id = ? AND meta_key = ?", postID, key).Scan(&n); err != nil {
		return 0, err
	}
	if n == 0 || !utf8.ValidString(value) {
		// Invalid text: wpdb refuses the update and the rows keep their value (see AddMeta).
		return n, nil
	}
	_, err := t.exec(ctx, "UPDATE "+t.t("postmeta")+" SET meta_value = ? WHERE post_id = ? AND meta_key = ?", value, postID, key)
	return n, err
}

// DeleteMeta deletes every row of key, or only those holding value.
func (t *Tx) DeleteMeta(ctx context.Context, postID int64, key string, value *string) error {
	t.touch(postID)
	if value == nil {
		_, err := t.exec(ctx, "DELETE FROM "+t.t("postmeta")+" WHERE post_id = ? AND meta_key = ?", postID, key)
		return err
	}
	_, err := t.exec(ctx, "DELETE FROM "+t.t("postmeta")+" WHERE post_id = ? AND meta_key = ? AND meta_value = ?", postID, key, *value)
	return err
}

// PostIDsByMeta returns the posts with a meta row of key holding value, lowest ID first.
func (t *Tx) PostIDsByMeta(ctx context.Context, key, value string) ([]int64, error) {
	rows, err := t.query(ctx, "SELECT DISTINCT post_id FROM "+t.t("postmeta")+" WHERE meta_key = ? AND meta_value = ? ORDER BY post_id", key, value)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// MetaByKey returns every post's values of key, by post ID.
func (t *Tx) MetaByKey(ctx context.Context, key string) (map[int64][]string, error) {
	rows, err := t.query(ctx, "SELECT post_id, meta_value FROM "+t.t("postmeta")+" WHERE meta_key = ? ORDER BY meta_id", key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var v nullString
		if err := rows.Scan(&id, &v); err != nil {
			return nil, err
		}
		out[id] = append(out[id], v.String)
	}
	return out, rows.Err()
}

// MetaValues returns every value of key in meta_id order.
func (t *Tx) MetaValues(ctx context.Context, postID int64, key string) ([]string, error) {
	rows, err := t.query(ctx, "SELECT meta_value FROM "+t.t("postmeta")+" WHERE post_id = ? AND meta_key = ? ORDER BY meta_id", postID, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v nullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v.String)
	}
	return out, rows.Err()
}

const termColumns = "t.term_id, t.name, t.slug, t.term_group, tt.term_taxonomy_id, tt.taxonomy, tt.description, tt.parent, tt.count"

func scanTerms(rows *sql.Rows) ([]*calendard.Term, error) {
	defer rows.Close()
	var out []*calendard.Term
	for rows.Next() {
		t := &calendard.Term{}
		if err := rows.Scan(&t.ID, &t.Name, &t.Slug, &t.Group, &t.TaxonomyID, &t.Taxonomy, &t.Description, &t.Parent, &t.Count); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TermsOfObject returns the object's terms of one taxonomy.
func (t *Tx) TermsOfObject(ctx context.Context, objectID int64, taxonomy string) ([]*calendard.Term, error) {
	rows, err := t.query(ctx, "SELECT "+termColumns+" FROM "+t.t("term_relationships")+" tr JOIN "+t.t("term_taxonomy")+
		" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN "+t.t("terms")+" t ON t.term_id = tt.term_id"+
		" WHERE tr.object_id = ? AND tt.taxonomy = ? ORDER BY t.name, t.term_id", objectID, taxonomy)
	if err != nil {
		return nil, err
	}
	return scanTerms(rows)
}

// TermsOfTaxonomy returns every term of a taxonomy (read inside the transaction).
func (t *Tx) TermsOfTaxonomy(ctx context.Context, taxonomy string) ([]*calendard.Term, error) {
	rows, err := t.query(ctx, "SELECT "+termColumns+" FROM "+t.t("term_taxonomy")+" tt JOIN "+t.t("terms")+
		" t ON t.term_id = tt.term_id WHERE tt.taxonomy = ? ORDER BY t.term_id", taxonomy)
	if err != nil {
		return nil, err
	}
	return scanTerms(rows)
}

func (t *Tx) termsWhere(ctx context.Context, where string, args ...any) ([]*calendard.Term, error) {
	rows, err := t.query(ctx, "SELECT "+termColumns+" FROM "+t.t("terms")+" t JOIN "+t.t("term_taxonomy")+
		" tt ON tt.term_id = t.term_id WHERE "+where+" ORDER BY t.term_id", args...)
	if err != nil {
		return nil, err
	}
	return scanTerms(rows)
}

func first(ts []*calendard.Term, err error) (*calendard.Term, error) {
	if err != nil || len(ts) == 0 {
		return nil, err
	}
	return ts[0], nil
}

// TermByID returns the taxonomy's term with that term_id.
func (t *Tx) TermByID(ctx context.Context, id int64, taxonomy string) (*calendard.Term, error) {
	return first(t.termsWhere(ctx, "t.term_id = ? AND tt.taxonomy = ?", id, taxonomy))
}

// TermBySlug returns the first term with the slug (in the taxonomy, or any when taxonomy is "").
func (t *Tx) TermBySlug(ctx context.Context, slug, taxonomy string) (*calendard.Term, error) {
	if taxonomy == "" {
		return first(t.termsWhere(ctx, "t.slug = ?", slug))
	}
	return first(t.termsWhere(ctx, "t.slug = ? AND tt.taxonomy = ?", slug, taxonomy))
}

// TermsByName returns the taxonomy's terms with that name (optionally under parent).
func (t *Tx) TermsByName(ctx context.Context, name, taxonomy string, parent *int64) ([]*calendard.Term, error) {
	if parent != nil {
		return t.termsWhere(ctx, "t.name = ? AND tt.taxonomy = ? AND tt.parent = ?", name, taxonomy, *parent)
	}
	return t.termsWhere(ctx, "t.name = ? AND tt.taxonomy = ?", name, taxonomy)
}

// TermsByParent returns the taxonomy's children of parent.
func (t *Tx) TermsByParent(ctx context.Context, taxonomy string, parent int64) ([]*calendard.Term, error) {
	return t.termsWhere(ctx, "tt.taxonomy = ? AND tt.parent = ?", taxonomy, parent)
}

// TermSlugTaken is wp_unique_term_slug's check: any term (of any taxonomy) with the slug.
func (t *Tx) TermSlugTaken(ctx context.Context, slug string, excludeID int64) (bool, error) {
	rows, err := t.query(ctx, "SELECT 1 FROM "+t.t("terms")+" WHERE slug = ? AND term_id != ? LIMIT 1", slug, excludeID)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	return rows.Next(), rows.Err()
}

// DuplicateTermSlug is wp_insert_term's final check for an older term with the same slug, taxonomy
// and parent.
func (t *Tx) DuplicateTermSlug(ctx context.Context, term *calendard.Term) (bool, error) {
	rows, err := t.query(ctx, "SELECT 1 FROM "+t.t("terms")+" t JOIN "+t.t("term_taxonomy")+" tt ON tt.term_id = t.term_id"+
		" WHERE t.slug = ? AND tt.parent = ? AND tt.taxonomy = ? AND t.term_id < ? AND tt.term_taxonomy_id != ? LIMIT 1",
		term.Slug, term.Parent, term.Taxonomy, term.ID, term.TaxonomyID)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	return rows.Next(), rows.Err()
}

// AddTermRelationship links an object to a term.
func (t *Tx) AddTermRelationship(ctx context.Context, objectID, ttID int64) error {
	t.touch(objectID)
	_, err := t.exec(ctx, "INSERT INTO "+t.t("term_relationships")+" (object_id, term_taxonomy_id, term_order) VALUES (?, ?, 0)", objectID, ttID)
	return err
}

// RemoveTermRelationships unlinks terms from an object.
func (t *Tx) RemoveTermRelationships(ctx context.Context, objectID int64, ttIDs []int64) error {
	t.touch(objectID)
	_, err := t.exec(ctx, "DELETE FROM "+t.t("term_relationships")+" WHERE object_id = ? AND term_taxonomy_id IN ("+
		placeholders(len(ttIDs))+")", append([]any{objectID}, int64Args(ttIDs)...)...)
	return err
}

// InsertTerm adds a wp_terms row and its wp_term_taxonomy row.
func (t *Tx) InsertTerm(ctx context.Context, term *calendard.Term) (*calendard.Term, error) {
	t.termsChanged = true
	out := *term
	// A requested ID (a migration's) is taken only when free.
	for _, want := range []struct {
		id            *int64
		table, column string
	}{{&out.ID, "terms", "term_id"}, {&out.TaxonomyID, "term_taxonomy", "term_taxonomy_id"}} {
		if *want.id <= 0 {
			continue
		}
		taken, err := t.rowExists(ctx, want.table, want.column, *want.id)
		if err != nil {
			return nil, err
		}
		if taken {
			*want.id = 0
		}
	}
	var res sql.Result
	var err error
	if out.ID > 0 {
		_, err = t.exec(ctx, "INSERT INTO "+t.t("terms")+" (term_id, name, slug, term_group) VALUES (?, ?, ?, ?)", out.ID, term.Name, term.Slug, term.Group)
	} else if res, err = t.exec(ctx, "INSERT INTO "+t.t("terms")+" (name, slug, term_group) VALUES (?, ?, ?)", term.Name, term.Slug, term.Group); err == nil {
		out.ID, err = res.LastInsertId()
	}
	if err != nil {
		return nil, err
	}
	if out.TaxonomyID > 0 {
		_, err = t.exec(ctx, "INSERT INTO "+t.t("term_taxonomy")+" (term_taxonomy_id, term_id, taxonomy, description, parent, count) VALUES (?, ?, ?, ?, ?, ?)",
			out.TaxonomyID, out.ID, out.Taxonomy, out.Description, out.Parent, out.Count)
	} else if res, err = t.exec(ctx, "INSERT INTO "+t.t("term_taxonomy")+" (term_id, taxonomy, description, parent, count) VALUES (?, ?, ?, ?, ?)",
		out.ID, out.Taxonomy, out.Description, out.Parent, out.Count); err == nil {
		out.TaxonomyID, err = res.LastInsertId()
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// rowExists reports whether table has a row with column = id.
func (t *Tx) rowExists(ctx context.Context, table, column string, id int64) (bool, error) {
	rows, err := t.query(ctx, "SELECT 1 FROM "+t.t(table)+" WHERE "+column+" = ? LIMIT 1", id)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}

// UpdateTerm rewrites a term's name, slug, group, description and parent.
func (t *Tx) UpdateTerm(ctx context.Context, term *calendard.Term) error {
	t.termsChanged = true
	if _, err := t.exec(ctx, "UPDATE "+t.t("terms")+" SET name = ?, slug = ?, term_group = ? WHERE term_id = ?",
		term.Name, term.Slug, term.Group, term.ID); err != nil {
		return err
	}
	_, err := t.exec(ctx, "UPDATE "+t.t("term_taxonomy")+" SET description = ?, parent = ? WHERE term_taxonomy_id = ?",
		term.Description, term.Parent, term.TaxonomyID)
	return err
}

// DeleteTerm removes a term, its taxonomy row, relationships and term meta.
func (t *Tx) DeleteTerm(ctx context.Context, term *calendard.Term) error {
	t.termsChanged = true
	// The objects losing the term change too (their lists filter by it).
	rows, err := t.query(ctx, "SELECT object_id FROM "+t.t("term_relationships")+" WHERE term_taxonomy_id = ?", term.TaxonomyID)
	if err != nil {
		return err
	}
	objects, err := scanIDs(rows)
	if err != nil {
		return err
	}
	for _, id := range objects {
		t.touch(id)
	}
	for _, q := range []struct {
		sql string
		arg int64
	}{
		{"DELETE FROM " + t.t("term_relationships") + " WHERE term_taxonomy_id = ?", term.TaxonomyID},
		{"DELETE FROM " + t.t("term_taxonomy") + " WHERE term_taxonomy_id = ?", term.TaxonomyID},
		{"DELETE FROM " + t.t("termmeta") + " WHERE term_id = ?", term.ID},
		{"DELETE FROM " + t.t("terms") + " WHERE term_id = ?", term.ID},
	} {
		if _, err := t.exec(ctx, q.sql, q.arg); err != nil {
			return err
		}
	}
	return nil
}

// RecountTerms is _update_post_term_count: published objects of the taxonomy's post types.
func (t *Tx) RecountTerms(ctx context.Context, ttIDs []int64, postTypes []string) error {
	t.termsChanged = t.termsChanged || len(ttIDs) > 0
	for _, id := range ttIDs {
		if _, err := t.exec(ctx, "UPDATE "+t.t("term_taxonomy")+" SET count = (SELECT COUNT(*) FROM "+t.t("term_relationships")+
			" tr JOIN "+t.t("posts")+" p ON p.ID = tr.object_id WHERE tr.term_taxonomy_id = ? AND p.post_status = 'publish' AND p.post_type IN ("+
			placeholders(len(postTypes))+")) WHERE term_taxonomy_id = ?", append(append([]any{id}, stringArgs(postTypes)...), id)...); err != nil {
			return err
		}
	}
	return nil
}

// HasCustomTables reports whether the plugin's tables exist.
func (t *Tx) HasCustomTables(ctx context.Context) bool {
	if t.ct != nil {
		return *t.ct
	}
	ok, err := t.db.tablesExist(ctx, t.tx, t.t("tec_events"), t.t("tec_occurrences"))
	ok = ok && err == nil
	t.ct = &ok
	return ok
}

// TECEvent returns the tec_events row of a post.
func (t *Tx) TECEvent(ctx context.Context, postID int64) (*calendard.TECEventRow, error) {
	r := &calendard.TECEventRow{}
	var end, endUTC nullString
	var dur sql.NullInt64
	err := t.tx.QueryRowContext(ctx, "SELECT event_id, post_id, start_date, end_date, timezone, start_date_utc, end_date_utc, duration, hash FROM "+
		t.t("tec_events")+" WHERE post_id = ?", postID).Scan(&r.EventID, &r.PostID, &r.StartDate, &end, &r.Timezone, &r.StartDateUTC, &endUTC, &dur, &r.Hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	r.EndDate, r.EndDateUTC, r.Duration = end.String, endUTC.String, dur.Int64
	return r, err
}

// UpsertTECEvent is the plugin's upsert of a tec_events row keyed on post_id. updated_at moves only
// when a value changes (the column's ON UPDATE behaviour, with the service clock). Like InnoDB's, the
// upsert uses up an AUTO_INCREMENT value even when it updates (SQLite allocates the rowid before it
// finds the conflict, and keeps the sqlite_sequence bump).
func (t *Tx) UpsertTECEvent(ctx context.Context, r *calendard.TECEventRow) error {
	t.touch(r.PostID)
	now := t.now.UTC().Format(calendard.DBDateTime)
	if _, err := t.exec(ctx, t.db.upsertTECEventSQL(), r.PostID, r.StartDate, r.EndDate, r.Timezone, r.StartDateUTC,
		r.EndDateUTC, r.Duration, now, r.Hash); err != nil {
		return err
	}
	return t.tx.QueryRowContext(ctx, "SELECT event_id FROM "+t.t("tec_events")+" WHERE post_id = ?", r.PostID).Scan(&r.EventID)
}

// Occurrence returns the (single) occurrence row of a post.
func (t *Tx) Occurrence(ctx context.Context, postID int64) (*calendard.OccurrenceRow, error) {
	r := &calendard.OccurrenceRow{}
	var dur sql.NullInt64
	err := t.tx.QueryRowContext(ctx, "SELECT occurrence_id, event_id, post_id, start_date, start_date_utc, end_date, end_date_utc, duration, hash FROM "+
		t.t("tec_occurrences")+" WHERE post_id = ? ORDER BY occurrence_id LIMIT 1", postID).Scan(&r.OccurrenceID, &r.EventID, &r.PostID,
		&r.StartDate, &r.StartDateUTC, &r.EndDate, &r.EndDateUTC, &dur, &r.Hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	r.Duration = dur.Int64
	return r, err
}

// SaveOccurrence inserts an occurrence row, or replaces the row with the given ID the way the plugin
// does (delete, then insert under the same ID, so no AUTO_INCREMENT value is used).
func (t *Tx) SaveOccurrence(ctx context.Context, r *calendard.OccurrenceRow) error {
	t.touch(r.PostID)
	now := t.now.UTC().Format(calendard.DBDateTime)
	if r.OccurrenceID != 0 {
		if _, err := t.exec(ctx, "DELETE FROM "+t.t("tec_occurrences")+" WHERE occurrence_id = ?", r.OccurrenceID); err != nil {
			return err
		}
		_, err := t.exec(ctx, "INSERT INTO "+t.t("tec_occurrences")+` (occurrence_id, event_id, post_id, start_date, start_date_utc,
			end_date, end_date_utc, duration, hash, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.OccurrenceID, r.EventID, r.PostID, r.StartDate, r.StartDateUTC, r.EndDate, r.EndDateUTC, r.Duration, r.Hash, now)
		return err
	}
	res, err := t.exec(ctx, "INSERT INTO "+t.t("tec_occurrences")+` (event_id, post_id, start_date, start_date_utc, end_date,
		end_date_utc, duration, hash, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.EventID, r.PostID, r.StartDate, r.StartDateUTC, r.EndDate, r.EndDateUTC, r.Duration, r.Hash, now)
	if err != nil {
		return err
	}
	r.OccurrenceID, err = res.LastInsertId()
	return err
}
