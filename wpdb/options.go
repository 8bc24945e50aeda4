package wpdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/phpserial"
)

// siteOptions are the wp_options rows the API depends on.
var siteOptions = []string{
	"home", "siteurl", "permalink_structure", "blog_charset", "timezone_string", "gmt_offset",
	"posts_per_page", "tribe_events_calendar_options", "tec_ct1_migration_state", "tec_custom_tables_v1_active",
	"using_application_passwords", "upload_url_path", "upload_path", "tag_base",
	"page_on_front", "page_for_posts", "wp_page_for_privacy_policy", "blogname", "blogdescription",
}

// Options returns the raw values of the named options that exist.
func (db *DB) Options(ctx context.Context, names ...string) (map[string]string, error) {
	rows, err := db.sql.QueryContext(ctx,
		"SELECT option_name, option_value FROM "+db.t("options")+" WHERE option_name IN ("+placeholders(len(names))+")",
		stringArgs(names)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]string, len(names))
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// SiteOverrides are configuration values that win over the database.
type SiteOverrides struct {
	HomeURL string // CALENDAR_SITE_URL
	// CustomTablesDisabled is what wp-config.php's TEC_CUSTOM_TABLES_V1_DISABLED constant (or the
	// environment variable of that name, or the tec_events_custom_tables_v1_enabled filter) does
	// to the plugin, none of which calendard can see in the database (CALENDAR_CUSTOM_TABLES=off).
	CustomTablesDisabled bool
}

// LoadSite reads the options that shape API answers in one query.
func (db *DB) LoadSite(ctx context.Context, ov SiteOverrides) (*calendard.Site, error) {
	names := append(append([]string{}, siteOptions...), db.prefix+"user_roles")
	opts, err := db.Options(ctx, names...)
	if err != nil {
		return nil, err
	}
	return siteFromOptions(opts, db.prefix, ov)
}

func siteFromOptions(opts map[string]string, prefix string, ov SiteOverrides) (*calendard.Site, error) {
	s := &calendard.Site{
		Charset:               "UTF-8",
		DefaultCurrencySymbol: "$",
		DefaultCurrencyCode:   "USD",
		MultiDayCutoff:        "00:00",
		EventSlug:             "event",
		EventsSlug:            "events",
		VenueSlug:             "venue",
		OrganizerSlug:         "organizer",
		TagBase:               "tag",
		PrettyPermalinks:      opts["permalink_structure"] != "",
		UsingAppPasswords:     calendard.TruthyMeta(opts["using_application_passwords"]),
		Roles:                 map[string]calendard.Role{},
	}
	home := strings.TrimRight(opts["home"], "/")
	siteURL := strings.TrimRight(opts["siteurl"], "/")
	if siteURL == "" {
		siteURL = home
	}
	s.StoredHomeURL = home
	if ov.HomeURL != "" {
		over := strings.TrimRight(ov.HomeURL, "/")
		if strings.HasPrefix(siteURL, home) {
			siteURL = over + strings.TrimPrefix(siteURL, home)
		} else {
			siteURL = over
		}
		home = over
	}
	s.HomeURL, s.SiteURL = home, siteURL
	s.UploadsURL, s.UploadsDir = uploadsURL(siteURL, opts["upload_path"], opts["upload_url_path"])
	if c := opts["blog_charset"]; c != "" {
		s.Charset = c
	}
	if b := strings.Trim(opts["tag_base"], "/"); b != "" {
		s.TagBase = b
	}

	s.Name, s.Description, s.TimezoneName = opts["blogname"], opts["blogdescription"], opts["timezone_string"]
	s.GMTOffset = opts["gmt_offset"]
	s.TimezoneString = calendard.SiteZoneString(opts["timezone_string"], opts["gmt_offset"])
	loc, err := calendard.LoadZone(s.TimezoneString)
	if err != nil {
		return nil, fmt.Errorf("site timezone %q: %w", s.TimezoneString, err)
	}
	s.Location = loc

	s.PageOnFront, _ = strconv.ParseInt(opts["page_on_front"], 10, 64)
	s.PageForPosts, _ = strconv.ParseInt(opts["page_for_posts"], 10, 64)
	s.PrivacyPage, _ = strconv.ParseInt(opts["wp_page_for_privacy_policy"], 10, 64)

	tec, _ := phpserial.Unmarshal(opts["tribe_events_calendar_options"])
	tecOpts, _ := tec.(*phpserial.Array)
	applyTECOptions(s, tecOpts, opts["posts_per_page"])
	s.CategoryBase = s.EventsSlug + "/category"

	_, hasActive := opts["tec_custom_tables_v1_active"]
	s.UseCustomTables = customTablesInUse(ov.CustomTablesDisabled, opts["tec_custom_tables_v1_active"], hasActive,
		opts["tec_ct1_migration_state"])

	if r, _ := phpserial.Unmarshal(opts[prefix+"user_roles"]); r != nil {
		if roles, ok := r.(*phpserial.Array); ok {
			for _, e := range roles.Entries() {
				def, ok := e.Value.(*phpserial.Array)
				if !ok {
					continue
				}
				role := calendard.Role{Capabilities: map[string]bool{}}
				if n, ok := def.Get("name"); ok {
					role.Name, _ = n.(string)
				}
				if caps, ok := def.Get("capabilities"); ok {
					if ca, ok := caps.(*phpserial.Array); ok {
						for _, c := range ca.Entries() {
							role.Capabilities[fmt.Sprint(c.Key)] = phpserial.ToBool(c.Value)
						}
					}
				}
				s.Roles[fmt.Sprint(e.Key)] = role
			}
		}
	}
	return s, nil
}

// customTablesInUse is the plugin's rule for reading and writing its custom tables (tec_events,
// tec_occurrences), TEC\Events\Custom_Tables\V1\Provider::register:
//
//   - Provider::is_active(): false when TEC_CUSTOM_TABLES_V1_DISABLED is defined truthy or set in the
//     environment (disabled here), else (bool) get_option('tec_custom_tables_v1_active', true),
//     which the tec_events_custom_tables_v1_enabled filter may change. Inactive: nothing of CT1 is
//     registered, so every query and save works on postmeta alone.
//   - Active, the Full_Activation_Provider (the WP_Query, Updates and Repository providers that read
//     and write the tables) registers only when Migration\State::is_migrated(): the phase of the
//     tec_ct1_migration_state option is "migration-not-required" or "migration-complete" (in_array,
//     loose: a phase of true matches too). Any other phase (none stored, preview-*, migration-prompt,
//     migration-in-progress, cancel-*, revert-*, migration-failed-*) leaves the site on postmeta.
//
// A site with no phase stored and no events is set to "migration-not-required" by the plugin's own
// Activation::init on its next request; until then both modes answer the same (there is nothing to
// list), and an event calendard creates meanwhile makes the plugin keep the site on postmeta (the
// site now has events to migrate), which is what calendard wrote. So no phase is postmeta here.
func customTablesInUse(disabled bool, activeRaw string, hasActive bool, stateRaw string) bool {
	if disabled {
		return false
	}
	if hasActive {
		// get_option unserializes the stored value; (bool) of it is PHP's truthiness.
		v, err := phpserial.MaybeUnserialize(activeRaw)
		if err != nil {
			v = false // a broken serialization unserializes to false
		}
		if !phpserial.ToBool(v) {
			return false
		}
	}
	st, err := phpserial.MaybeUnserialize(stateRaw)
	if err != nil {
		return false
	}
	a, ok := st.(*phpserial.Array)
	if !ok {
		return false // (array) of a scalar has no "phase" key
	}
	phase, _ := a.Get("phase")
	switch p := phase.(type) {
	case string:
		return p == "migration-not-required" || p == "migration-complete"
	case bool:
		return p // true == "non-empty string" in PHP's loose comparison
	}
	// null, and numbers (PHP 8 compares them with a non-numeric string as strings: never equal).
	return false
}

// applyTECOptions reads the TEC options array (tribe_events_calendar_options).
func applyTECOptions(s *calendard.Site, tec *phpserial.Array, wpPerPage string) {
	str := func(key string) (string, bool) {
		if tec == nil {
			return "", false
		}
		v, ok := tec.Get(key)
		if !ok {
			return "", false
		}
		switch x := v.(type) {
		case string:
			return x, true
		case int64:
			return strconv.FormatInt(x, 10), true
		case bool:
			if x {
				return "1", true
			}
			return "", true
		case nil:
			return "", true
		}
		return fmt.Sprint(v), true
	}

	// Default page size: the TEC key wins whenever it exists (even empty), else the WP option.
	raw, ok := str("posts_per_page")
	if !ok {
		raw = wpPerPage
	}
	s.PerPageRaw = raw
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	switch {
	case err == nil && n < 0:
		s.PerPageInvalid = true
		s.PerPage = 20
	case err != nil || n == 0:
		s.PerPage = 20
	default:
		s.PerPage = n
	}
	if s.PerPage > 50 {
		s.PerPage = 50
	}

	if v, ok := str("defaultCurrencySymbol"); ok && v != "" {
		s.DefaultCurrencySymbol = v
	}
	if v, ok := str("defaultCurrencyCode"); ok && v != "" {
		s.DefaultCurrencyCode = v
	}
	if v, ok := str("reverseCurrencyPosition"); ok {
		s.ReverseCurrencyPosition = calendard.TruthyMeta(v)
	}
	if v, ok := str("multiDayCutoff"); ok && v != "" {
		s.MultiDayCutoff = v
	}
	if v, ok := str("tribe_events_timezone_mode"); ok {
		s.TimezoneModeSite = v == "site"
	}
	if v, ok := str("rest-v1-disabled"); ok {
		s.RESTDisabled = calendard.TruthyMeta(v)
	}
	if v, ok := str("singleEventSlug"); ok && v != "" {
		s.EventSlug = v
	}
	if v, ok := str("eventsSlug"); ok && v != "" {
		s.EventsSlug = v
	}
	if tec != nil {
		if cf, ok := tec.Get("custom-fields"); ok {
			if list, ok := cf.(*phpserial.Array); ok {
				for _, e := range list.Entries() {
					f, ok := e.Value.(*phpserial.Array)
					if !ok {
						continue
					}
					name, _ := f.Get("name")
					label, _ := f.Get("label")
					ns, _ := name.(string)
					ls, _ := label.(string)
					if ns != "" {
						s.CustomFields = append(s.CustomFields, calendard.CustomField{Name: ns, Label: ls})
					}
				}
			}
		}
	}
}

// Store is the database plus the configuration that overrides its options, and what calendard
// keeps in memory between requests: the site settings, the terms and the event list index. All of
// it is tagged with the change feed's generation, so nothing outlives a change.
type Store struct {
	*DB
	overrides SiteOverrides
	site      atomic.Pointer[cachedSite]
	termsMu   sync.Mutex
	terms     map[string]cachedTerms
	index     *EventIndex
	records   *otter.Cache[int64, cachedEvent]
	memos     *otter.Cache[string, memoEntry]
	// live: Start runs, so the feed hears every change and caches may be kept.
	live atomic.Bool
	// firstSQLList is closed once a list has been answered by SQL while the index was not ready
	// (see firstBuildGrace).
	firstSQLList     chan struct{}
	firstSQLListOnce sync.Once
}

// firstBuildGrace is how long, at most, a first index build on MariaDB waits for the first list
// answered by SQL before it starts. The two compete for the same cores and the list alone is the
// quicker of the two: started together, the build would delay a start's first answer.
const firstBuildGrace = 500 * time.Millisecond

type cachedSite struct {
	gen  uint64
	site *calendard.Site
}

type cachedEvent struct {
	gen   uint64
	event *calendard.Event
}

type cachedTerms struct {
	gen   uint64
	terms []*calendard.Term
}

// NewStore wraps db; the site settings it serves apply the overrides.
func NewStore(db *DB, ov SiteOverrides) *Store {
	return &Store{DB: db, overrides: ov, terms: map[string]cachedTerms{}, firstSQLList: make(chan struct{})}
}

// Site returns the current site settings, read again after every change.
func (s *Store) Site(ctx context.Context) (*calendard.Site, error) {
	gen := s.feed.Generation()
	if c := s.site.Load(); c != nil && c.gen == gen && s.live.Load() {
		return c.site, nil
	}
	site, err := s.LoadSite(ctx, s.overrides)
	if err != nil {
		return nil, err
	}
	s.site.Store(&cachedSite{gen: gen, site: site})
	return site, nil
}

// TermsOf returns every term of a taxonomy, read again after every change.
func (s *Store) TermsOf(ctx context.Context, taxonomy string) ([]*calendard.Term, error) {
	gen := s.feed.Generation()
	s.termsMu.Lock()
	c, ok := s.terms[taxonomy]
	s.termsMu.Unlock()
	if ok && c.gen == gen && s.live.Load() {
		return c.terms, nil
	}
	terms, err := s.DB.TermsOf(ctx, taxonomy)
	if err != nil {
		return nil, err
	}
	s.termsMu.Lock()
	s.terms[taxonomy] = cachedTerms{gen: gen, terms: terms}
	s.termsMu.Unlock()
	return terms, nil
}

// waitIndex waits up to 10 s for the event index to be ready (wait: one of its Wait methods).
func waitIndex(ctx context.Context, wait func(context.Context) bool) {
	w, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	wait(w)
}

// FindEvents answers from the event index when it is built and can answer the filter, from SQL
// otherwise; both give the same page.
func (s *Store) FindEvents(ctx context.Context, site *calendard.Site, f calendard.EventFilter) ([]*calendard.Event, int, error) {
	if s.index != nil {
		if s.dialect == SQLite {
			// On SQLite the first build answers sooner than one list over the whole calendar
			// through SQL; on MariaDB the SQL list is the sooner (firstBuildGrace), so it answers
			// meanwhile. The build's later passes, the terms, venues and organizers and then the
			// search text, follow soon after the first: lists filtered by them and searches wait
			// for them too, rather than go through SQL on the embedded store, which takes longer.
			// (The readiness is tested here, so that a list that waits for nothing creates no
			// method values.)
			if !s.index.Ready() {
				waitIndex(ctx, s.index.WaitReady)
			}
			if s.index.Ready() && filtersByIDs(&f) && !s.index.IDsReady() {
				waitIndex(ctx, s.index.WaitIDsReady)
			}
			if s.index.Ready() && len(f.Search) > 0 && !s.index.TextReady() {
				waitIndex(ctx, s.index.WaitTextReady)
			}
		}
		if ids, total, ok := s.index.FindEvents(site, &f); ok {
			events, err := s.events(ctx, ids)
			return events, total, err
		}
		if !s.index.Ready() {
			defer s.firstSQLListOnce.Do(func() { close(s.firstSQLList) })
		}
	}
	return s.DB.FindEvents(ctx, site, f)
}

// EventByID loads one event with everything it embeds, from the record cache when it is current.
func (s *Store) EventByID(ctx context.Context, id int64) (*calendard.Event, error) {
	evs, err := s.events(ctx, []int64{id})
	if err != nil || len(evs) == 0 {
		return nil, err
	}
	return evs[0], nil
}

// events is eventsByIDs through the record cache: records loaded at the current generation are
// reused (they are never modified once loaded), the rest are loaded in one batch.
func (s *Store) events(ctx context.Context, ids []int64) ([]*calendard.Event, error) {
	if s.records == nil || !s.live.Load() {
		return s.eventsByIDs(ctx, ids)
	}
	gen := s.feed.Generation() // read before loading: a change meanwhile makes what we store stale
	found := make(map[int64]*calendard.Event, len(ids))
	var missing []int64
	for _, id := range ids {
		if c, ok := s.records.GetIfPresent(id); ok && c.gen == gen {
			found[id] = c.event
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		loaded, err := s.eventsByIDs(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, e := range loaded {
			found[e.ID] = e
			s.records.Set(e.ID, cachedEvent{gen: gen, event: e})
		}
	}
	out := make([]*calendard.Event, 0, len(ids))
	for _, id := range ids {
		if e := found[id]; e != nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// StartOptions tune what Start runs.
type StartOptions struct {
	// WatchInterval is how often the change feed polls the database's watermark (0: never; only
	// calendard's own writes are seen).
	WatchInterval time.Duration
	// Reconcile is how often everything is reloaded whatever the watermark says (0: never).
	Reconcile time.Duration
	// NoIndex keeps event lists on SQL.
	NoIndex bool
	// OnError hears background failures (index builds, polls).
	OnError func(error)
	// Records is how many loaded event records to keep for reuse (0: none).
	Records int
	// IndexFile is where the event index keeps its last full build, to start from at the next
	// start when the database has not changed since ("": nowhere).
	IndexFile string
}

// Start builds the event index in the background and keeps everything in step with the database
// until ctx ends. Lists answer from SQL until the first build finishes.
func (s *Store) Start(ctx context.Context, o StartOptions) {
	s.live.Store(o.WatchInterval > 0)
	if o.Records > 0 {
		s.records = otter.Must(&otter.Options[int64, cachedEvent]{MaximumSize: o.Records})
		s.memos = otter.Must(&otter.Options[string, memoEntry]{MaximumSize: 4 * o.Records})
		s.feed.Subscribe(func(Change) {
			s.records.InvalidateAll()
			s.memos.InvalidateAll()
		})
	}
	if o.WatchInterval > 0 {
		// The first poll records the watermark the index build starts from; what changes after it
		// shows in the next poll.
		_, _ = s.feed.Poll(ctx)
		go s.feed.Watch(ctx, o.WatchInterval, o.Reconcile, o.OnError)
	}
	if !o.NoIndex {
		s.index = NewEventIndex(s.DB, o.OnError)
		if o.IndexFile != "" {
			s.index.UseFile(o.IndexFile)
		}
		s.index.Follow(s.feed, s.Site)
		go func() {
			if site, err := s.Site(ctx); err == nil && s.index.LoadFile(ctx, site) {
				return
			}
			if s.dialect != SQLite {
				select {
				case <-s.firstSQLList:
				case <-time.After(firstBuildGrace):
				case <-ctx.Done():
				}
			}
			s.index.buildUntilReady(ctx, s.Site)
		}()
	}
}

// Generation is the change feed's generation while the store keeps state (Start ran with a
// watch interval), so caches outside wpdb can tag what they keep with it.
func (s *Store) Generation() uint64 {
	if !s.live.Load() {
		return 0
	}
	return s.feed.Generation()
}

// Quiescent reports whether everything the store keeps reflects every change up to the generation
// read before the call: no change is being published and no index rebuild is pending. A cache
// outside wpdb keeps what it computed under a generation only when the store was quiescent then.
func (s *Store) Quiescent() bool {
	return s.feed.Settled() && (s.index == nil || !s.index.Stale())
}

// Index returns the event index (nil unless Start built one).
func (s *Store) Index() *EventIndex { return s.index }

// uploadsURL is _wp_upload_dir's baseurl and basedir for a single site (no UPLOADS constant, which
// only wp-config.php could set): upload_url_path when truthy (as stored: "0" is PHP-false); else
// WP_CONTENT_URL/uploads (WP_CONTENT_URL is siteurl/wp-content) for an empty or default upload_path
// and for an absolute one (path_join then gives the path itself, so "$upload_path === $dir"), and
// trailingslashit(siteurl)/upload_path for a relative one. dir is basedir when it is known without
// the server's ABSPATH: the absolute upload_path; "" otherwise.
func uploadsURL(siteURL, uploadPath, uploadURLPath string) (url, dir string) {
	p := strings.Trim(uploadPath, " \t\n\r\x00\x0B")
	if p != "" && p != "wp-content/uploads" && pathIsAbsolute(p) {
		dir = p
	}
	if uploadURLPath != "" && uploadURLPath != "0" {
		return uploadURLPath, dir
	}
	if p == "" || p == "wp-content/uploads" || dir != "" {
		return siteURL + "/wp-content/uploads", dir
	}
	return siteURL + "/" + p, dir
}

// pathIsAbsolute is path_is_absolute without its file-system checks (a stream wrapper or
// realpath() of an existing path): not starting with ".", then a Windows drive ("C:\\"), or a
// leading slash or backslash.
func pathIsAbsolute(p string) bool {
	if p == "" || p[0] == '.' {
		return false
	}
	if len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && p[2] == '\\' {
		return true
	}
	return p[0] == '/' || p[0] == '\\'
}
