// Package gen writes a benchmark calendar of any size straight into a WordPress database, shaped
// as WordPress 6.9 and The Events Calendar 6.17 store it (the conventions of the recorded site-a
// fixture): wp_posts rows for events, venues and organizers with revisions and trashed, draft,
// pending, private and future items; the plugin's postmeta (local and UTC dates, duration, zone
// and its abbreviation, cost and currency, venue and 0-3 organizer rows, map flags, URL, origin,
// featured, hide-from-upcoming, all-day, _tribe_modified_fields); sticky events as menu_order -1;
// the tribe_events_cat tree and post_tag terms with their relationships and published-post counts;
// the plugin's tec_events and tec_occurrences rows (occurrence hashes as the plugin computes them);
// and the known date range in tribe_events_calendar_options.
//
// Rows go in multi-row INSERTs inside transactions, not through the REST write path, so 100,000
// events take seconds. The output is a function of Options (seed and anchor) and of the base
// database (its first free IDs, users, media and site zone): the same base and Options give the
// same rows on MySQL and on SQLite.
package gen

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/calendard/calendard/internal/phpserial"
	"github.com/calendard/calendard/wpdb"
)

// Store is the kind of database written.
type Store string

const (
	MySQL  Store = "mysql"
	SQLite Store = "sqlite"
)

// Options shape the calendar.
type Options struct {
	Events int    // number of event posts (every status); venues and organizers scale with it
	Seed   uint64 // the same seed, anchor and base give the same calendar
	// Now anchors the dates: events spread over two years either side of it, posts were created
	// over the three years before it. Zero: today at 00:00 UTC.
	Now    time.Time
	Prefix string // table prefix (default wp_)
	// Replace deletes the database's events, venues, organizers (with their meta, revisions and
	// relationships), its event categories and tags and the plugin's tables' rows first. Without
	// it, Generate refuses a database that already has any of those posts.
	Replace bool
}

// Result says what Generate wrote.
type Result struct {
	Events, Venues, Organizers int
	Published                  int // published events
	Upcoming                   int // published events that end at or after the anchor
	SearchHits                 int // published events whose title holds the search pick
	Rows                       map[string]int64
	// Picks are the values of the mix placeholders: event_id, event_slug, venue_id,
	// organizer_id, category_slug, tag_slug, search, month_start/end, week_start/end,
	// past_start/end.
	Picks   map[string]string
	Now     time.Time
	Elapsed time.Duration
	// Phases are the durations of the generation's steps (clear, build, write parts, indexes).
	Phases map[string]time.Duration
	// EventList is every generated event, in ID order (for checks).
	EventList []*Event
}

// ErrNotEmpty refuses to generate over an existing calendar without Replace.
var ErrNotEmpty = errors.New("the database already holds events, venues or organizers (generate with Replace to delete them)")

// Open opens a database for generation: "mysql://DSN" or "sqlite://PATH" as CALENDAR_DB names
// it. The tables must exist (calendard migrate or copy creates them).
func Open(spec string) (*sql.DB, Store, error) {
	if dsn, ok := strings.CutPrefix(spec, "mysql://"); ok {
		cfg, err := wpdb.MySQLConfig(dsn)
		if err != nil {
			return nil, "", err
		}
		conn, err := wpdb.MySQLConnector(cfg)
		if err != nil {
			return nil, "", err
		}
		return sql.OpenDB(conn), MySQL, nil
	}
	path, ok := wpdb.SQLitePath(spec)
	if !ok {
		return nil, "", fmt.Errorf("unknown database %q: want mysql://DSN or sqlite://PATH", spec)
	}
	// Opening through wpdb registers the collation and functions the schema uses.
	w, err := wpdb.OpenSQLite(path, "wp_")
	if err != nil {
		return nil, "", err
	}
	w.Close()
	db, err := sql.Open("sqlite", wpdb.SQLiteDSN(path))
	if err != nil {
		return nil, "", err
	}
	db.SetMaxOpenConns(1)
	return db, SQLite, nil
}

// Generate writes the calendar.
func Generate(ctx context.Context, db *sql.DB, store Store, o Options) (*Result, error) {
	began := time.Now()
	if o.Events <= 0 {
		return nil, errors.New("gen: Events must be positive")
	}
	if o.Prefix == "" {
		o.Prefix = "wp_"
	}
	if !wpdb.ValidPrefix(o.Prefix) {
		return nil, fmt.Errorf("gen: invalid table prefix %q", o.Prefix)
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC().Truncate(24 * time.Hour)
	}
	o.Now = o.Now.UTC().Truncate(time.Second)
	w := &writer{db: db, store: store, p: o.Prefix, phases: map[string]time.Duration{}, noLoadData: os.Getenv("GEN_NO_LOAD_DATA") == "1",
		keepIndexes: os.Getenv("GEN_SQLITE_KEEP_INDEXES") == "1"}
	mark := time.Now()
	phase := func(name string) {
		w.mu.Lock()
		w.phases[name] = time.Since(mark)
		w.mu.Unlock()
		mark = time.Now()
	}

	existing, err := w.calendarPosts(ctx)
	if err != nil {
		return nil, err
	}
	if len(existing) > 0 {
		if !o.Replace {
			return nil, ErrNotEmpty
		}
	}
	if o.Replace {
		if err := w.clear(ctx, existing); err != nil {
			return nil, fmt.Errorf("gen: clearing the calendar: %w", err)
		}
	}
	phase("clear")
	b, err := w.readBase(ctx)
	if err != nil {
		return nil, fmt.Errorf("gen: reading the site: %w", err)
	}
	cal, rows, err := w.write(ctx, o, b)
	if err != nil {
		return nil, fmt.Errorf("gen: writing: %w", err)
	}
	phase("build and write")
	if err := w.knownRange(ctx, cal); err != nil {
		return nil, fmt.Errorf("gen: tribe_events_calendar_options: %w", err)
	}
	if store == MySQL {
		// Fresh index statistics, as InnoDB's automatic recalculation would have them a few
		// seconds later, so plans do not depend on when the first request comes.
		tables := []string{"posts", "postmeta", "terms", "term_taxonomy", "term_relationships", "tec_events", "tec_occurrences"}
		for i, t := range tables {
			tables[i] = w.t(t)
		}
		rows, err := db.QueryContext(ctx, "ANALYZE TABLE "+strings.Join(tables, ", "))
		if err != nil {
			return nil, fmt.Errorf("gen: analyze: %w", err)
		}
		rows.Close()
		phase("analyze")
	}
	res := &Result{Events: len(cal.events), Venues: len(cal.venues), Organizers: len(cal.organizers),
		Upcoming: cal.upcomingPubl, SearchHits: cal.searchHits, Rows: rows, Picks: cal.picks, Now: o.Now,
		EventList: cal.events, Phases: w.phases}
	for _, ev := range cal.events {
		if ev.Status == "publish" {
			res.Published++
		}
	}
	res.Elapsed = time.Since(began)
	return res, nil
}

type writer struct {
	db     *sql.DB
	store  Store
	p      string
	mu     sync.Mutex
	phases map[string]time.Duration
	// noLoadData writes MySQL tables with INSERTs too (GEN_NO_LOAD_DATA=1, for comparison).
	noLoadData bool
	// keepIndexes loads SQLite with its secondary indexes in place (GEN_SQLITE_KEEP_INDEXES=1, for
	// comparison).
	keepIndexes bool
}

func (w *writer) timed(name string, began time.Time) {
	w.mu.Lock()
	w.phases[name] = time.Since(began)
	w.mu.Unlock()
}

func (w *writer) t(name string) string { return w.p + name }

const calendarTypes = "'tribe_events', 'tribe_venue', 'tribe_organizer'"

// calendarPosts lists the events, venues and organizers and their revisions.
func (w *writer) calendarPosts(ctx context.Context) ([]int64, error) {
	q := "SELECT ID FROM " + w.t("posts") + " WHERE post_type IN (" + calendarTypes + ") UNION SELECT r.ID FROM " +
		w.t("posts") + " r JOIN " + w.t("posts") + " p ON p.ID = r.post_parent WHERE r.post_type = 'revision' AND p.post_type IN (" +
		calendarTypes + ")"
	rows, err := w.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// clear deletes the calendar's posts, meta, relationships, event categories and tags, and the
// plugin's rows.
func (w *writer) clear(ctx context.Context, ids []int64) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for len(ids) > 0 {
		n := min(len(ids), 1000)
		list := make([]string, n)
		for i, id := range ids[:n] {
			list[i] = strconv.FormatInt(id, 10)
		}
		in := "(" + strings.Join(list, ",") + ")"
		for _, q := range []string{
			"DELETE FROM " + w.t("postmeta") + " WHERE post_id IN " + in,
			"DELETE FROM " + w.t("term_relationships") + " WHERE object_id IN " + in,
			"DELETE FROM " + w.t("posts") + " WHERE ID IN " + in,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		ids = ids[n:]
	}
	tax := "SELECT %s FROM " + w.t("term_taxonomy") + " WHERE taxonomy IN ('tribe_events_cat', 'post_tag')"
	for _, q := range []string{
		"DELETE FROM " + w.t("term_relationships") + " WHERE term_taxonomy_id IN (" + fmt.Sprintf(tax, "term_taxonomy_id") + ")",
		"DELETE FROM " + w.t("termmeta") + " WHERE term_id IN (" + fmt.Sprintf(tax, "term_id") + ")",
		"DELETE FROM " + w.t("terms") + " WHERE term_id IN (" + fmt.Sprintf(tax, "term_id") + ")",
		"DELETE FROM " + w.t("term_taxonomy") + " WHERE taxonomy IN ('tribe_events_cat', 'post_tag')",
		"DELETE FROM " + w.t("tec_occurrences"),
		"DELETE FROM " + w.t("tec_events"),
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// readBase reads the site's URL and zone, its users and images, and the first free IDs.
func (w *writer) readBase(ctx context.Context) (*base, error) {
	b := &base{}
	opt := func(name string) (string, error) {
		var v sql.NullString
		err := w.db.QueryRowContext(ctx, "SELECT option_value FROM "+w.t("options")+" WHERE option_name = ?", name).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		return v.String, err
	}
	home, err := opt("home")
	if err != nil {
		return nil, err
	}
	b.home = strings.TrimRight(home, "/")
	if b.home == "" {
		b.home = "http://127.0.0.1:8080"
	}
	zone, err := opt("timezone_string")
	if err != nil {
		return nil, err
	}
	b.siteZone = time.UTC
	if zone != "" {
		if b.siteZone, err = time.LoadLocation(zone); err != nil {
			return nil, fmt.Errorf("timezone_string %q: %w", zone, err)
		}
	} else if off, _ := opt("gmt_offset"); off != "" && off != "0" {
		h, err := strconv.ParseFloat(off, 64)
		if err == nil {
			b.siteZone = time.FixedZone("UTC"+off, int(h*3600))
		}
	}
	if b.authors, err = w.ids(ctx, "SELECT ID FROM "+w.t("users")+" ORDER BY ID LIMIT 5"); err != nil {
		return nil, err
	}
	if len(b.authors) == 0 {
		b.authors = []int64{1}
	}
	if b.images, err = w.ids(ctx, "SELECT ID FROM "+w.t("posts")+" WHERE post_type = 'attachment' AND post_mime_type LIKE 'image/%' ORDER BY ID"); err != nil {
		return nil, err
	}
	for _, n := range []struct {
		dst        *int64
		col, table string
	}{{&b.nextPost, "ID", "posts"}, {&b.nextMeta, "meta_id", "postmeta"}, {&b.nextTerm, "term_id", "terms"},
		{&b.nextTT, "term_taxonomy_id", "term_taxonomy"}, {&b.nextTECEvent, "event_id", "tec_events"},
		{&b.nextOccurrence, "occurrence_id", "tec_occurrences"}} {
		if err := w.db.QueryRowContext(ctx, "SELECT COALESCE(MAX("+n.col+"), 0) + 1 FROM "+w.t(n.table)).Scan(n.dst); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (w *writer) ids(ctx context.Context, q string) ([]int64, error) {
	rows, err := w.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// execer is a transaction or connection.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// bulk is a multi-row INSERT builder: rows accumulate until a batch is full (rows or bytes).
type bulk struct {
	ctx       context.Context
	ex        execer
	head, row string
	maxRows   int
	args      []any
	n, size   int
	written   int64
	// sqlite: a batch is full at maxRows alone (bound values do not count in SQLite's statement
	// size), so every batch but the last has the same statement, prepared once in full (parsing
	// a thousand-row INSERT was a tenth of the load).
	sqlite bool
	full   *sql.Stmt
}

// sqliteMaxVars is SQLite's limit on parameters per statement.
const sqliteMaxVars = 32766

func (w *writer) bulk(ctx context.Context, ex execer, table string, cols ...string) *bulk {
	maxRows := 2000
	if w.store == SQLite {
		maxRows = min(1000, sqliteMaxVars/len(cols))
	}
	return &bulk{ctx: ctx, ex: ex, maxRows: maxRows, sqlite: w.store == SQLite,
		head: "INSERT INTO " + w.t(table) + " (" + strings.Join(cols, ", ") + ") VALUES ",
		row:  "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"}
}

func (b *bulk) add(vals ...any) error {
	if !b.sqlite {
		for _, v := range vals {
			if s, ok := v.(string); ok {
				b.size += len(s)
			} else {
				b.size += 8
			}
		}
	}
	b.args = append(b.args, vals...)
	b.n++
	if b.n >= b.maxRows || b.size >= 1<<20 {
		return b.flush()
	}
	return nil
}

// query is the INSERT of n rows.
func (b *bulk) query(n int) string {
	var q strings.Builder
	q.Grow(len(b.head) + n*(len(b.row)+1))
	q.WriteString(b.head)
	for i := 0; i < n; i++ {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString(b.row)
	}
	return q.String()
}

func (b *bulk) flush() error {
	if b.n == 0 {
		return nil
	}
	var err error
	if b.sqlite && b.n == b.maxRows {
		if b.full == nil {
			if b.full, err = b.ex.PrepareContext(b.ctx, b.query(b.n)); err != nil {
				return err
			}
		}
		_, err = b.full.ExecContext(b.ctx, b.args...)
	} else {
		_, err = b.ex.ExecContext(b.ctx, b.query(b.n), b.args...)
	}
	if err != nil {
		return err
	}
	b.written += int64(b.n)
	clear(b.args) // the rows' strings are garbage now
	b.args, b.n, b.size = b.args[:0], 0, 0
	return nil
}

// close releases the prepared statement.
func (b *bulk) close() {
	if b.full != nil {
		b.full.Close()
	}
}

// stream is one of the tables whose rows come in batches while the calendar is built.
type stream struct {
	table string
	cols  []string
	rows  func(b *batch, add func(vals ...any) error) error
}

var streams = []stream{
	{"posts", []string{"ID", "post_author", "post_date", "post_date_gmt", "post_content", "post_title",
		"post_excerpt", "post_status", "comment_status", "ping_status", "post_password", "post_name", "to_ping", "pinged",
		"post_modified", "post_modified_gmt", "post_content_filtered", "post_parent", "guid", "menu_order", "post_type",
		"post_mime_type", "comment_count"}, func(b *batch, add func(...any) error) error {
		for i := range b.posts {
			p := &b.posts[i]
			if err := add(p.id, p.author, p.date, p.dateGMT, p.content, p.title, p.excerpt, p.status, "closed", "closed", "",
				p.name, "", "", p.modified, p.modifiedGMT, "", p.parent, p.guid, int64(p.menuOrder), p.typ, "", int64(0)); err != nil {
				return err
			}
		}
		return nil
	}},
	{"postmeta", []string{"meta_id", "post_id", "meta_key", "meta_value"}, func(b *batch, add func(...any) error) error {
		for i := range b.meta {
			m := &b.meta[i]
			if err := add(m.id, m.postID, m.key, m.value); err != nil {
				return err
			}
		}
		return nil
	}},
	{"term_relationships", []string{"object_id", "term_taxonomy_id", "term_order"}, func(b *batch, add func(...any) error) error {
		for _, r := range b.rels {
			if err := add(r.object, r.tt, int64(0)); err != nil {
				return err
			}
		}
		return nil
	}},
	{"tec_events", []string{"event_id", "post_id", "start_date", "end_date", "timezone", "start_date_utc", "end_date_utc",
		"duration", "updated_at", "hash"}, func(b *batch, add func(...any) error) error {
		for _, e := range b.tecEvents {
			if err := add(e.eventID, e.postID, e.start, e.end, e.zone, e.startUTC, e.endUTC, e.duration, e.updated, ""); err != nil {
				return err
			}
		}
		return nil
	}},
	{"tec_occurrences", []string{"occurrence_id", "event_id", "post_id", "start_date", "start_date_utc", "end_date",
		"end_date_utc", "duration", "hash", "updated_at"}, func(b *batch, add func(...any) error) error {
		for _, o := range b.occurrences {
			if err := add(o.id, o.eventID, o.postID, o.start, o.startUTC, o.end, o.endUTC, o.duration, o.hash, o.updated); err != nil {
				return err
			}
		}
		return nil
	}},
}

// write builds the calendar and stores it as it is built, a batch at a time, so that the
// generator's memory does not grow with the calendar (a million events built whole took over
// 6 GB): on MySQL each streamed table is loaded on its own connection in its own transaction,
// side by side; on SQLite one transaction writes everything. The terms, whose counts are known
// only at the end, follow. SQLite's secondary indexes are created after the rows (sqlite.go).
func (w *writer) write(ctx context.Context, o Options, b *base) (*calendar, map[string]int64, error) {
	rows := map[string]int64{}
	if w.store == SQLite {
		cal, err := w.writeSQLite(ctx, o, b, rows)
		return cal, rows, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex
	var wg sync.WaitGroup
	chans := make([]chan *batch, len(streams))
	errs := make([]error, len(streams))
	began := time.Now()
	for i, st := range streams {
		chans[i] = make(chan *batch, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := tableRows{st.table, st.cols, func(add func(...any) error) error {
				for {
					select {
					case <-ctx.Done():
						return context.Cause(ctx)
					case b, ok := <-chans[i]:
						if !ok {
							return nil
						}
						if err := st.rows(b, add); err != nil {
							return err
						}
					}
				}
			}}
			n, err := w.inTx(ctx, func(ctx context.Context, ex execer) (map[string]int64, error) {
				return w.writeTables(ctx, ex, tr)
			})
			w.timed("write "+st.table, began)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", st.table, err)
				cancel(errs[i])
				return
			}
			mu.Lock()
			maps.Copy(rows, n)
			mu.Unlock()
		}()
	}
	cal, err := build(o, b, func(b *batch) error {
		for _, ch := range chans {
			select {
			case ch <- b:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		return nil
	})
	for _, ch := range chans {
		close(ch)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, err
	}
	n, err := w.inTx(ctx, func(ctx context.Context, ex execer) (map[string]int64, error) {
		return w.writeTables(ctx, ex, termRows(cal)...)
	})
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(rows, n)
	return cal, rows, nil
}

// inTx runs fn in a MySQL transaction on its own connection, with the bulk-load session settings.
func (w *writer) inTx(ctx context.Context, fn func(context.Context, execer) (map[string]int64, error)) (map[string]int64, error) {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION unique_checks = 0, foreign_key_checks = 0"); err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	n, err := fn(ctx, tx)
	if err != nil {
		return nil, err
	}
	return n, tx.Commit()
}

// writeSQLite writes the calendar in one transaction while it is built: the builder runs on its
// own goroutine, a couple of batches ahead, so that building and writing share the two cores.
// The load runs with the bulk settings of sqliteBulk, and with the written tables' secondary
// indexes dropped and created again afterwards from their own DDL (dropIndexes), in the same
// transaction.
func (w *writer) writeSQLite(ctx context.Context, o Options, b *base, rows map[string]int64) (*calendar, error) {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	restore, err := sqliteBulk(ctx, conn)
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, errors.Join(err, restore())
	}
	defer tx.Rollback()
	cal, err := w.writeSQLiteTx(ctx, tx, o, b, rows)
	if err == nil {
		began := time.Now()
		err = tx.Commit()
		w.timed("commit", began)
	} else {
		_ = tx.Rollback() // before the restore: the journal mode does not change inside a transaction
	}
	return cal, errors.Join(err, restore())
}

func (w *writer) writeSQLiteTx(ctx context.Context, tx *sql.Tx, o Options, b *base, rows map[string]int64) (*calendar, error) {
	var indexes []sqliteIndex
	if !w.keepIndexes {
		var err error
		if indexes, err = w.dropIndexes(ctx, tx); err != nil {
			return nil, err
		}
	}
	began := time.Now()
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan *batch, 2)
	var cal *calendar
	var buildErr error
	go func() {
		defer close(batches)
		cal, buildErr = build(o, b, func(b *batch) error {
			select {
			case batches <- b:
				return nil
			case <-bctx.Done():
				return bctx.Err()
			}
		})
	}()
	bulks := make([]*bulk, len(streams))
	for i, st := range streams {
		bulks[i] = w.bulk(ctx, tx, st.table, st.cols...)
		defer bulks[i].close()
	}
	var writeErr error
	for bt := range batches {
		if writeErr != nil {
			continue // drain: the builder stops at the cancel
		}
		for i, st := range streams {
			if err := st.rows(bt, bulks[i].add); err != nil {
				writeErr = fmt.Errorf("%s: %w", st.table, err)
				cancel()
				break
			}
		}
	}
	for i, st := range streams {
		if writeErr == nil {
			if err := bulks[i].flush(); err != nil {
				writeErr = fmt.Errorf("%s: %w", st.table, err)
			}
		}
		rows[st.table] = bulks[i].written
	}
	if writeErr != nil {
		return nil, writeErr
	}
	if buildErr != nil {
		return nil, buildErr
	}
	w.timed("rows", began) // Generate times the whole as "build and write"
	began = time.Now()
	n, err := w.writeTables(ctx, tx, termRows(cal)...)
	if err != nil {
		return nil, err
	}
	maps.Copy(rows, n)
	w.timed("terms", began)
	began = time.Now()
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, ix.ddl); err != nil {
			return nil, fmt.Errorf("creating index %s: %w", ix.name, err)
		}
	}
	w.timed("indexes", began)
	return cal, nil
}

// tableRows is one table's generated rows: each feeds them, in order, to add.
type tableRows struct {
	table string
	cols  []string
	each  func(add func(vals ...any) error) error
}

// termRows are the terms, written once every event has counted in them.
func termRows(cal *calendar) []tableRows {
	return []tableRows{
		{"terms", []string{"term_id", "name", "slug", "term_group"}, func(add func(...any) error) error {
			for _, t := range cal.terms {
				if err := add(t.termID, t.name, t.slug, int64(0)); err != nil {
					return err
				}
			}
			return nil
		}},
		{"term_taxonomy", []string{"term_taxonomy_id", "term_id", "taxonomy", "description", "parent", "count"}, func(add func(...any) error) error {
			for _, t := range cal.terms {
				if err := add(t.ttID, t.termID, t.taxonomy, t.description, t.parent, int64(t.count)); err != nil {
					return err
				}
			}
			return nil
		}},
	}
}

// load writes one table's rows: multi-row INSERTs on SQLite, LOAD DATA LOCAL INFILE streamed
// from memory on MySQL (far less of the server's CPU time than the same rows as INSERTs).
func (w *writer) load(ctx context.Context, ex execer, tr tableRows) (int64, error) {
	if w.store == SQLite || w.noLoadData {
		b := w.bulk(ctx, ex, tr.table, tr.cols...)
		defer b.close()
		if err := tr.each(b.add); err != nil {
			return 0, err
		}
		err := b.flush()
		return b.written, err
	}
	pr, pw := io.Pipe()
	name := fmt.Sprintf("calendard-gen-%s-%d", tr.table, loadSeq.Add(1))
	mysql.RegisterReaderHandler(name, func() io.Reader { return pr })
	defer mysql.DeregisterReaderHandler(name)
	var n int64
	var produceErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		bw := bufio.NewWriterSize(pw, 1<<20)
		var buf []byte
		err := tr.each(func(vals ...any) error {
			buf = buf[:0]
			for i, v := range vals {
				if i > 0 {
					buf = append(buf, '\t')
				}
				switch x := v.(type) {
				case int64:
					buf = strconv.AppendInt(buf, x, 10)
				case string:
					buf = appendTSV(buf, x)
				default:
					return fmt.Errorf("gen: unexpected %T", v)
				}
			}
			buf = append(buf, '\n')
			n++
			_, err := bw.Write(buf)
			return err
		})
		if err == nil {
			err = bw.Flush()
		}
		produceErr = err
		pw.CloseWithError(err)
	}()
	res, err := ex.ExecContext(ctx, "LOAD DATA LOCAL INFILE 'Reader::"+name+"' INTO TABLE "+w.t(tr.table)+
		" CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' ("+strings.Join(tr.cols, ", ")+")")
	pr.CloseWithError(errors.New("gen: LOAD DATA ended"))
	<-done
	if produceErr != nil {
		return n, produceErr
	}
	if err != nil {
		return n, err
	}
	// LOAD DATA LOCAL turns bad values into warnings and skips duplicates (it implies IGNORE):
	// any of those fails the generation.
	var warnings int64
	if err := ex.QueryRowContext(ctx, "SELECT @@warning_count").Scan(&warnings); err != nil {
		return n, err
	}
	if loaded, err := res.RowsAffected(); err != nil || loaded != n || warnings > 0 {
		var level, msg string
		var code int
		_ = ex.QueryRowContext(ctx, "SHOW WARNINGS LIMIT 1").Scan(&level, &code, &msg)
		return n, fmt.Errorf("LOAD DATA stored %d of %d rows with %d warnings (%s)", loaded, n, warnings, msg)
	}
	return n, nil
}

var loadSeq atomic.Int64

// appendTSV escapes a value for LOAD DATA's default FIELDS ESCAPED BY '\\'.
func appendTSV(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case 0:
			buf = append(buf, '\\', '0')
		default:
			buf = append(buf, c)
		}
	}
	return buf
}

// writeTables writes some tables in order and returns their row counts.
func (w *writer) writeTables(ctx context.Context, ex execer, trs ...tableRows) (map[string]int64, error) {
	out := map[string]int64{}
	for _, tr := range trs {
		n, err := w.load(ctx, ex, tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tr.table, err)
		}
		out[tr.table] = n
	}
	return out, nil
}

// knownRange stores the plugin's earliest/latest event dates and their marker posts in
// tribe_events_calendar_options, as Tribe__Events__Dates__Known_Range does.
func (w *writer) knownRange(ctx context.Context, cal *calendar) error {
	var raw string
	err := w.db.QueryRowContext(ctx, "SELECT option_value FROM "+w.t("options")+" WHERE option_name = 'tribe_events_calendar_options'").Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) || cal.earliest == "" {
		return nil
	}
	if err != nil {
		return err
	}
	v, err := phpserial.Unmarshal(raw)
	if err != nil {
		return err
	}
	a, ok := v.(*phpserial.Array)
	if !ok {
		return fmt.Errorf("not an array: %.40s", raw)
	}
	markers := func(ids []int64) *phpserial.Array {
		m := phpserial.NewArray()
		for _, id := range ids {
			_ = m.Append(id)
		}
		return m
	}
	a.Set("earliest_date", cal.earliest)
	a.Set("earliest_date_markers", markers(cal.earliestIDs))
	a.Set("latest_date", cal.latest)
	a.Set("latest_date_markers", markers(cal.latestIDs))
	out, err := phpserial.Marshal(a)
	if err != nil {
		return err
	}
	_, err = w.db.ExecContext(ctx, "UPDATE "+w.t("options")+" SET option_value = ? WHERE option_name = 'tribe_events_calendar_options'", out)
	return err
}
