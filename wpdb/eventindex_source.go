package wpdb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/eventindex"
)

// The event index (package eventindex) reads the database through indexSource: the SQL of its
// three loaders, and the watermark that names the state a build read.

// EventIndex is the in-memory event list index a Store answers lists from (Store.Index).
type EventIndex = eventindex.Index

// NewEventIndex returns an index over db; it answers nothing until it is built.
func NewEventIndex(db *DB, o eventindex.Options) *EventIndex {
	return eventindex.New(indexSource{db}, o)
}

// followFeed keeps x in step with the feed (eventindex.Index.Changed).
func followFeed(x *EventIndex, feed *Feed, site func(context.Context) (*calendard.Site, error)) {
	feed.Subscribe(func(c Change) { x.Changed(c.Posts, c.All, site) })
}

// indexSource is the eventindex.Source of a database.
type indexSource struct{ db *DB }

func (s indexSource) Events(ctx context.Context, mode eventindex.Mode, ids []int64, mark *eventindex.Mark) (map[int64]*eventindex.Event, error) {
	return s.db.loadIndexEvents(ctx, mode, ids, mark, true, nil)
}

func (s indexSource) FirstPass(ctx context.Context, mode eventindex.Mode, mark *eventindex.Mark) (map[int64]*eventindex.Event, func() (*eventindex.Keys, error), error) {
	return s.db.loadIndexFirstPass(ctx, mode, mark)
}

func (s indexSource) Texts(ctx context.Context) ([]eventindex.Text, error) {
	return s.db.loadIndexTexts(ctx)
}

func (s indexSource) Mark(ctx context.Context) (eventindex.Mark, error) {
	w, err := s.db.readWatermark(ctx, s.db.sql)
	if err != nil {
		return "", err
	}
	return s.db.indexMark(w), nil
}

// indexMark names the database state w of this database: the table prefix and every part of the
// watermark, each length-prefixed, so that equal marks are equal states.
func (db *DB) indexMark(w watermark) eventindex.Mark {
	var b []byte
	str := func(s string) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	str(db.prefix)
	for _, n := range []int64{w.posts, w.maxPost, w.maxMeta, w.rels, w.terms, w.occ} {
		b = binary.AppendVarint(b, n)
	}
	str(w.modified)
	str(w.termsig)
	b = append(b, w.options[:]...)
	str(w.changes)
	return eventindex.Mark(b)
}

// indexPostsQuery reads the event posts' own keys (and search texts, withText) of ids (nil: every
// event). A first pass on the embedded store reads them from the listposts index alone rather than
// through the type index and a table row for each, where post_parent lies past the post's content.
func (db *DB) indexPostsQuery(ctx context.Context, q queryer, ids []int64, withText bool) (string, []any, error) {
	cond, args := idCond("ID", ids)
	cols := "ID, post_status, post_date, post_parent, post_password, '', '', ''"
	if withText {
		cols = "ID, post_status, post_date, post_parent, post_password, post_title, post_excerpt, post_content"
	}
	if ids == nil && !withText && db.dialect == SQLite {
		name := db.t("posts_calendard_listposts")
		if ok, err := db.sqliteHasIndex(ctx, q, name); err != nil || ok {
			return "SELECT " + cols + " FROM " + db.t("posts") + " INDEXED BY " + name + " WHERE " + eventPostsCond, nil, err
		}
	}
	return "SELECT " + cols + " FROM " + db.t("posts") + " WHERE post_type = ?" + cond, append([]any{calendard.PostTypeEvent}, args...), nil
}

// eventPostsCond selects the event posts with a literal, as the listposts index does: SQLite uses a
// partial index only for a query whose condition has the index's own terms.
const eventPostsCond = "post_type = '" + calendard.PostTypeEvent + "'"

// sqliteHasIndex reports whether the embedded store has the named index.
func (db *DB) sqliteHasIndex(ctx context.Context, q queryer, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = ?", name).Scan(&n)
	return n > 0, err
}

// allListKeys are the meta keys the index reads in some mode (eventindex.MetaKeys); listKeysCond selects exactly those
// spellings, byte for byte: the condition of the embedded store's listkeys index (calendardIndexes),
// which a query must repeat word for word for SQLite to use it. A binary comparison keeps the
// collation's Go callback out of both the index and the read.
//
// otherSpellingCond holds every other spelling of those keys that the collation may find equal, and
// few rows else: the same letters in another case (lower() folds ASCII only), trailing spaces (PAD
// SPACE), or any byte outside printable ASCII (accents, ignorable characters, other scripts). In
// utf8mb4_unicode_520_ci two printable ASCII strings are equal only so. It is the condition of the
// listkeys_other index, which holds almost nothing, so finding those posts costs nothing.
var (
	allListKeys       = eventindex.MetaKeys
	listKeysCond      = "meta_key COLLATE BINARY IN (" + quotedList(allListKeys) + ")"
	otherSpellingCond = "(lower(rtrim(meta_key, ' ')) IN (" + strings.ToLower(quotedList(allListKeys)) + ") OR meta_key GLOB '*[^ -~]*') AND NOT " + listKeysCond
)

// quotedList writes keys as SQL string literals (they are constants without quotes).
func quotedList(keys []string) string {
	return "'" + strings.Join(keys, "', '") + "'"
}

// loadIndexEvents reads the list keys of every event (ids nil) or of the given posts; mark, when
// given, gets the database state the events are: the change feed's latest reading (priorReading),
// or the watermark read first in the transaction.
//
// The posts (and their search text, the costliest part to fold) and the keys stored beside them
// (meta, occurrences, terms) are read side by side for a whole build, each in its own read
// transaction on its own connection, so that a first start uses two cores. The
// second transaction starts once the first holds its snapshot (the watermark, or the first post
// read), so it sees that state or a later one; a change that lands in between is after the
// watermark and after the build began, and the build re-reads it as it re-reads any change that
// lands while it runs (Build's patched list, the feed's next poll). A patch (ids given) is small and
// reads everything in one transaction.
//
// Without withText (a first build's first pass, ids nil) the events have neither their search text
// (noText: loadIndexTexts reads it) nor their terms, venues and organizers (noIDs: loadIndexIDs).
// held, when given, is called once the posts' transaction holds its snapshot.
func (db *DB) loadIndexEvents(ctx context.Context, mode eventindex.Mode, ids []int64, mark *eventindex.Mark, withText bool, held func()) (map[int64]*eventindex.Event, error) {
	if ids != nil && len(ids) == 0 {
		return map[int64]*eventindex.Event{}, nil
	}
	prior, havePrior := db.priorReading(mark != nil && ids == nil)
	tx, err := db.beginIndexRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if havePrior {
		*mark = db.indexMark(prior)
	} else if mark != nil {
		w, err := db.readWatermark(ctx, tx)
		if err != nil {
			return nil, err
		}
		*mark = db.indexMark(w)
	}

	var keys *eventindex.Keys
	var keysErr error
	keysDone := make(chan struct{})
	started := false
	parallel := ids == nil
	startKeys := func() {
		started = true
		if held != nil {
			held()
		}
		go func() {
			defer close(keysDone)
			keysErr = db.inIndexRead(ctx, func(tx2 *sql.Tx) (err error) {
				if withText {
					keys, err = db.loadIndexKeys(ctx, tx2, mode, nil)
					return err
				}
				// The first pass: what a plain list needs. The terms, venues and organizers come
				// next (loadIndexIDs), the search text last.
				keys, err = db.loadIndexMetaKeys(ctx, tx2, mode, nil, eventindex.ListKeys)
				return err
			})
		}()
	}
	if parallel && mark != nil {
		startKeys()
	}

	query, args, err := db.indexPostsQuery(ctx, tx, ids, withText)
	var rows *sql.Rows
	if err == nil {
		rows, err = tx.QueryContext(ctx, query, args...)
	}
	if err != nil {
		if started {
			<-keysDone
		}
		return nil, err
	}
	var scanErr error
	posts := eventindex.NewPosts(withText)
	for rows.Next() {
		if parallel && !started {
			startKeys()
		}
		var id, parent int64
		var status, postDate, title, excerpt, content, password string
		if scanErr = rows.Scan(&id, &status, &postDate, &parent, &password, &title, &excerpt, &content); scanErr != nil {
			break
		}
		posts.Add(id, status, postDate, parent, password, title, excerpt, content)
	}
	out := posts.Events()
	rows.Close()
	if parallel && !started && held != nil && scanErr == nil && rows.Err() == nil {
		held() // no event, but the snapshot is held all the same
	}
	var other []int64
	if started && scanErr == nil && db.dialect == SQLite {
		// While the keys are read beside: the posts whose keys loadIndexKeys' index read misses.
		other, scanErr = db.postsWithOtherKeySpelling(ctx, tx)
	}
	switch {
	case started:
		<-keysDone
	case parallel:
		keys = &eventindex.Keys{} // no event at all: nothing to join
	default:
		if scanErr == nil && rows.Err() == nil {
			keys, keysErr = db.loadIndexKeys(ctx, tx, mode, ids)
		}
	}
	if scanErr != nil {
		return nil, scanErr
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if keysErr != nil {
		return nil, keysErr
	}
	if len(other) > 0 {
		fresh, err := db.loadIndexKeys(ctx, tx, mode, other)
		if err != nil {
			return nil, err
		}
		keys.Replace(other, fresh)
	}
	keys.ApplyTo(out)
	return out, nil
}

// priorReading is the change feed's latest watermark reading, for a full read (want) about to
// begin its transaction: a mark that reading, finished before the transaction takes its snapshot,
// names that state or an earlier one, never a later one. An earlier mark costs at most a patch or a
// rebuild the feed's next poll asks for anyway, and a file the next start does not use; reading the
// watermark again in the transaction costs a first build a second or more at a million events on
// MariaDB, before the read beside it can begin. Not with replicas: the feed reads the primary and
// the build a replica, which may be behind that reading.
func (db *DB) priorReading(want bool) (watermark, bool) {
	if !want || db.feed == nil || db.sql.rs != nil {
		return watermark{}, false
	}
	return db.feed.reading()
}

// testHookFirstPassHeld, when set (tests), runs with the database as a first pass holds its
// snapshot, before the second pass begins.
var testHookFirstPassHeld func(*DB)

// loadIndexFirstPass is a first build's first pass (loadIndexEvents without the text) and its
// second (loadIndexIDs). On MariaDB the second runs beside the first, begun once the first pass
// holds its snapshot: it waits on postmeta's pages while the first keeps calendard busy. The
// embedded store reads both in this process, so there the second pass would only take cores from
// the first, which plain lists wait for: it runs when asked.
func (db *DB) loadIndexFirstPass(ctx context.Context, mode eventindex.Mode, mark *eventindex.Mark) (map[int64]*eventindex.Event, func() (*eventindex.Keys, error), error) {
	hook := func() {
		if h := testHookFirstPassHeld; h != nil {
			h(db)
		}
	}
	if db.dialect == SQLite {
		events, err := db.loadIndexEvents(ctx, mode, nil, mark, false, hook)
		if err != nil {
			return nil, nil, err
		}
		return events, func() (*eventindex.Keys, error) { return db.loadIndexIDs(ctx, mode) }, nil
	}
	var keys *eventindex.Keys
	var err error
	done := make(chan struct{})
	started := false
	held := func() {
		started = true
		hook()
		go func() {
			defer close(done)
			keys, err = db.loadIndexIDs(ctx, mode)
		}()
	}
	events, firstErr := db.loadIndexEvents(ctx, mode, nil, mark, false, held)
	if firstErr != nil {
		if started {
			<-done // its error, if any, is the same ctx's or a consequence of the first's
		}
		return nil, nil, firstErr
	}
	return events, func() (*eventindex.Keys, error) {
		<-done
		return keys, err
	}, nil
}

// loadIndexIDs reads the categories, tags, venues and organizers of every event: a first build's
// second pass. The venues and organizers are read on one connection and the terms beside them on
// another; on the embedded store the posts whose keys another spelling could equal are read again
// whole, as loadIndexEvents does.
func (db *DB) loadIndexIDs(ctx context.Context, mode eventindex.Mode) (*eventindex.Keys, error) {
	var terms *eventindex.Keys
	var termsErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		terms = eventindex.NewTermKeys()
		termsErr = db.inIndexRead(ctx, func(tx *sql.Tx) error { return db.loadIndexTerms(ctx, tx, nil, terms) })
	}()
	k, err := db.loadIndexLinkedIDs(ctx, mode)
	<-done
	if err != nil {
		return nil, err
	}
	if termsErr != nil {
		return nil, termsErr
	}
	k.WithTerms(terms)
	return k, nil
}

// loadIndexLinkedIDs reads the venues and organizers of every event (loadIndexIDs).
func (db *DB) loadIndexLinkedIDs(ctx context.Context, mode eventindex.Mode) (k *eventindex.Keys, err error) {
	err = db.inIndexRead(ctx, func(tx *sql.Tx) error {
		if k, err = db.loadIndexMetaKeys(ctx, tx, mode, nil, eventindex.IDKeys); err != nil || db.dialect != SQLite {
			return err
		}
		other, err := db.postsWithOtherKeySpelling(ctx, tx)
		if err != nil || len(other) == 0 {
			return err
		}
		fresh, err := db.loadIndexKeys(ctx, tx, mode, other)
		if err != nil {
			return err
		}
		k.Replace(other, fresh)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

// loadIndexTexts reads and folds the search text of every event, the texts packed into blocks
// (eventindex.Texts).
func (db *DB) loadIndexTexts(ctx context.Context) ([]eventindex.Text, error) {
	tx, err := db.beginIndexRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, "SELECT ID, post_title, post_excerpt, post_content FROM "+db.t("posts")+" WHERE post_type = ?", calendard.PostTypeEvent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	texts := eventindex.NewTexts()
	for rows.Next() {
		var id int64
		var title, excerpt, content string
		if err := rows.Scan(&id, &title, &excerpt, &content); err != nil {
			return nil, err
		}
		texts.Add(id, title, excerpt, content)
	}
	return texts.Texts(), rows.Err()
}

// inIndexRead runs read in a read-only transaction of its own (beginIndexRead), on a connection of
// its own: the builds read several tables side by side.
func (db *DB) inIndexRead(ctx context.Context, read func(tx *sql.Tx) error) error {
	tx, err := db.beginIndexRead(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return read(tx)
}

// beginIndexRead starts a read-only transaction for the index. On SQLite that is a deferred BEGIN,
// a WAL snapshot: the store's DSN makes other transactions BEGIN IMMEDIATE, which would hold the
// write lock, and keep every writer waiting, for as long as a build reads.
func (db *DB) beginIndexRead(ctx context.Context) (*sql.Tx, error) {
	return db.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}

// idCond narrows a query to ids (nil: no condition).
func idCond(col string, ids []int64) (string, []any) {
	if ids == nil {
		return "", nil
	}
	return " AND " + col + " IN (" + placeholders(len(ids)) + ")", int64Args(ids)
}

// loadIndexKeys reads the meta, occurrence and term keys of every post (ids nil) or of ids.
func (db *DB) loadIndexKeys(ctx context.Context, q queryer, mode eventindex.Mode, ids []int64) (*eventindex.Keys, error) {
	k, err := db.loadIndexMetaKeys(ctx, q, mode, ids, eventindex.AllKeys)
	if err != nil {
		return nil, err
	}
	if err := db.loadIndexTerms(ctx, q, ids, k); err != nil {
		return nil, err
	}
	return k, nil
}

// loadIndexMetaKeys is loadIndexKeys without the terms (loadIndexTerms), and only the keys of set.
func (db *DB) loadIndexMetaKeys(ctx context.Context, q queryer, mode eventindex.Mode, ids []int64, set eventindex.KeySet) (*eventindex.Keys, error) {
	k := eventindex.NewKeys(mode, set)
	keys := k.MetaKeys()
	read := func(query string, args []any) error {
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var key, v nullString
			if err := rows.Scan(&id, &key, &v); err != nil {
				return err
			}
			k.AddMeta(id, key.String, v)
		}
		return rows.Err()
	}
	// MariaDB's order: meta_id, and keys equal under the collation (another case, accents) count.
	hint := ""
	if ids == nil && db.dialect != SQLite {
		// The whole calendar on MariaDB: left to itself the optimizer scans every postmeta row in
		// meta_id order rather than sort what WordPress' meta_key index finds, the faster way
		// since the list keys are a small part of postmeta. The hint names the index only where
		// it exists.
		var err error
		if hint, err = db.metaKeyIndexHint(ctx, q); err != nil {
			return nil, err
		}
	}
	exact := "SELECT post_id, meta_key, meta_value FROM " + db.t("postmeta") + hint + " WHERE meta_key IN (" + placeholders(len(keys)) + ")"
	if ids != nil || db.dialect != SQLite {
		cond, args := idCond("post_id", ids)
		if err := read(exact+cond+" ORDER BY meta_id", append(stringArgs(keys), args...)); err != nil {
			return nil, err
		}
	} else {
		// The whole calendar on the embedded store: the keys spelled exactly come from the listkeys
		// index alone (an index read instead of a table row for each through the meta_key index);
		// only the order within one key of one post matters (its organizers), and
		// the index keeps it. loadIndexEvents reads the rare posts with another spelling of a key
		// again (postsWithOtherKeySpelling).
		if err := read("SELECT post_id, meta_key, meta_value FROM "+db.t("postmeta")+" WHERE "+listKeysCond+
			" AND meta_key COLLATE BINARY IN ("+quotedList(keys)+") ORDER BY meta_key COLLATE BINARY, post_id, meta_id", nil); err != nil {
			return nil, err
		}
	}
	if set == eventindex.IDKeys {
		return k, nil // no dates
	}
	if mode.CustomTables {
		cols := "start_date, end_date"
		if mode.UTC {
			cols = "start_date_utc, end_date_utc"
		}
		cond, args := idCond("post_id", ids)
		rows, err := q.QueryContext(ctx, "SELECT post_id, "+cols+" FROM "+db.t("tec_occurrences")+" WHERE 1=1"+cond, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var s, e nullString
			if err := rows.Scan(&id, &s, &e); err != nil {
				rows.Close()
				return nil, err
			}
			k.AddOccurrence(id, s, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	k.Done()
	return k, nil
}

// metaKeyIndexHint is " FORCE INDEX (meta_key)" when postmeta has WordPress' index of that name
// starting with meta_key, else "" (a site whose schema lacks it would fail on the hint).
func (db *DB) metaKeyIndexHint(ctx context.Context, q queryer) (string, error) {
	var n int
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"+
		" AND INDEX_NAME = 'meta_key' AND SEQ_IN_INDEX = 1 AND COLUMN_NAME = 'meta_key'", db.t("postmeta")).Scan(&n); err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	return " FORCE INDEX (meta_key)", nil
}

// loadIndexTerms reads the event categories and tags of every post (ids nil) or of ids.
func (db *DB) loadIndexTerms(ctx context.Context, q queryer, ids []int64, k *eventindex.Keys) error {
	taxonomies := []string{calendard.TaxonomyCategory, calendard.TaxonomyTag}
	add := k.AddTerm
	if ids == nil && db.dialect == SQLite {
		// The whole calendar on the embedded store: the join would look up each relationship's
		// table row through the term_taxonomy_id index; the few terms in a map and one pass over
		// the relationships' primary key index alone cost far less.
		type termOf struct {
			tax  string
			term int64
		}
		terms := map[int64]termOf{}
		rows, err := q.QueryContext(ctx, "SELECT term_taxonomy_id, taxonomy, term_id FROM "+db.t("term_taxonomy")+" WHERE taxonomy IN (?, ?)", stringArgs(taxonomies)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var ttID int64
			var t termOf
			if err := rows.Scan(&ttID, &t.tax, &t.term); err != nil {
				rows.Close()
				return err
			}
			terms[ttID] = t
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = q.QueryContext(ctx, "SELECT object_id, term_taxonomy_id FROM "+db.t("term_relationships"))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, ttID int64
			if err := rows.Scan(&id, &ttID); err != nil {
				return err
			}
			if t, ok := terms[ttID]; ok {
				add(id, t.term, t.tax)
			}
		}
		return rows.Err()
	}
	cond, args := idCond("tr.object_id", ids)
	rows, err := q.QueryContext(ctx, "SELECT tr.object_id, tt.taxonomy, tt.term_id FROM "+db.t("term_relationships")+" tr JOIN "+
		db.t("term_taxonomy")+" tt ON tt.term_taxonomy_id = tr.term_taxonomy_id WHERE tt.taxonomy IN (?, ?)"+cond,
		append(stringArgs(taxonomies), args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, term int64
		var tax string
		if err := rows.Scan(&id, &tax, &term); err != nil {
			return err
		}
		add(id, term, tax)
	}
	return rows.Err()
}

// postsWithOtherKeySpelling returns the posts holding one of the list keys spelled otherwise than
// exactly (equal under the collation: another case, accents, trailing spaces), which the listkeys
// index does not hold. It reads the listkeys_other index (otherSpellingCond).
func (db *DB) postsWithOtherKeySpelling(ctx context.Context, q queryer) ([]int64, error) {
	rows, err := q.QueryContext(ctx, "SELECT DISTINCT post_id FROM "+db.t("postmeta")+" WHERE "+otherSpellingCond+
		" AND +meta_key IN ("+placeholders(len(allListKeys))+")", stringArgs(allListKeys)...) // +: not through the meta_key index
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}
