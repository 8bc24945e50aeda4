package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Resource names a kind of record.
type Resource string

// The resources, in the order they are imported (terms and linked posts before the events that
// point at them).
const (
	Site       Resource = "site"
	MediaFiles Resource = "media"
	Categories Resource = "categories"
	Tags       Resource = "tags"
	Venues     Resource = "venues"
	Organizers Resource = "organizers"
	Events     Resource = "events"
)

// Resources is the import order.
var Resources = []Resource{MediaFiles, Categories, Tags, Venues, Organizers, Events}

// Target is where records are written. Every Save writes one record whole or not at all, and
// writes nothing when the stored record already is the source's (same hash); wrote says whether it
// wrote. Posts are saved with their source identity (source) so a re-run finds them again.
type Target interface {
	SaveSite(ctx context.Context, idx *Index) (wrote bool, err error)
	SaveMedia(ctx context.Context, m *Media, source, hash string) (id int64, wrote bool, err error)
	SaveTerm(ctx context.Context, t *Term, parent int64) (id int64, wrote bool, err error)
	SaveVenue(ctx context.Context, v *Venue, source, hash string) (id int64, wrote bool, err error)
	SaveOrganizer(ctx context.Context, o *Organizer, source, hash string) (id int64, wrote bool, err error)
	SaveEvent(ctx context.Context, e *Event, links Links, source, hash string) (id int64, wrote bool, err error)
	// ImportedPosts returns the posts whose source identity starts with prefix, by identity.
	ImportedPosts(ctx context.Context, prefix string) (map[string]int64, error)
	// DeletePost deletes a post for good (wp_delete_post with force).
	DeletePost(ctx context.Context, id int64) error
}

// Links are an event's links as target IDs.
type Links struct {
	Categories, Tags []int64
	Venue            int64
	Organizers       []int64
	Image            int64
}

// Options configure a run.
type Options struct {
	From           string
	User, Password string
	Concurrency    int // pages fetched at once (default 4)
	MaxPages       int // pages per list at most (default 2000: 100,000 records)
	Timeout        time.Duration
	Retries        int
	MaxBody        int64
	// Checkpoint is the file that records finished resources; "" for none.
	Checkpoint string
	// Prune deletes the posts earlier runs imported that the source no longer has (they are
	// reported either way).
	Prune bool
	// Since limits the run to what changed at the source since then (zero: everything); SinceLast
	// takes the start of the last complete run from the target (none: everything).
	Since     time.Time
	SinceLast bool
	// Progress hears about every record (nil: silent).
	Progress Progress
}

// Progress is told how far a run is.
type Progress interface {
	Start(res Resource, total int)
	Done(res Resource, n int)
}

// Failure is one record or page that was not imported.
type Failure struct {
	Resource Resource
	Item     string // "id 12" or "page 3"
	Reason   string
}

// Count is what happened to one resource.
type Count struct {
	Seen, Written, Unchanged, Failed int
}

// Summary is the outcome of a run.
type Summary struct {
	Source   string
	Counts   map[Resource]*Count
	Failures []Failure
	Resumed  []Resource // resources a checkpoint said were done
	Gone     []Gone     // imported earlier, deleted at the source since
	Since    time.Time  // what the run compared with (zero: a full run)
	Elapsed  time.Duration
}

// Writes is the number of records written.
func (s *Summary) Writes() int {
	n := 0
	for _, c := range s.Counts {
		n += c.Written
	}
	return n
}

// WriteTo prints the summary: counts per resource, then every failure with its reason.
func (s *Summary) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "import from %s in %s\n", s.Source, s.Elapsed.Round(time.Millisecond))
	if !s.Since.IsZero() {
		fmt.Fprintf(&b, "  changes since %s (posts dated before and imported earlier are counted unchanged)\n", s.Since.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(&b, "  %-11s %6s %8s %10s %7s\n", "resource", "seen", "written", "unchanged", "failed")
	for _, r := range Resources {
		c := s.Counts[r]
		if c == nil {
			c = &Count{}
		}
		fmt.Fprintf(&b, "  %-11s %6d %8d %10d %7d\n", r, c.Seen, c.Written, c.Unchanged, c.Failed)
	}
	for _, r := range s.Resumed {
		fmt.Fprintf(&b, "  %s: done in an earlier run (checkpoint)\n", r)
	}
	s.writeProblems(&b)
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// WriteRound prints the summary as one line of counts (what --follow logs each round), then the
// deletions and failures as WriteTo does.
func (s *Summary) WriteRound(w io.Writer, round int) error {
	var b strings.Builder
	since := "everything"
	if !s.Since.IsZero() {
		since = "since " + s.Since.UTC().Format(time.RFC3339)
	}
	var seen, unchanged, failed int
	var written []string
	for _, r := range Resources {
		c := s.Counts[r]
		if c == nil {
			continue
		}
		seen, unchanged, failed = seen+c.Seen, unchanged+c.Unchanged, failed+c.Failed
		if c.Written > 0 {
			written = append(written, fmt.Sprintf("%s %d", r, c.Written))
		}
	}
	deleted := 0
	for _, g := range s.Gone {
		if g.Deleted {
			deleted++
		}
	}
	fmt.Fprintf(&b, "round %d (%s) in %s: seen %d, written %d [%s], unchanged %d, failed %d, gone %d (deleted %d)\n",
		round, since, s.Elapsed.Round(time.Millisecond), seen, s.Writes(), strings.Join(written, ", "), unchanged, failed, len(s.Gone), deleted)
	s.writeProblems(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeProblems lists the deletions and the failures.
func (s *Summary) writeProblems(b *strings.Builder) {
	if len(s.Gone) > 0 {
		fmt.Fprintf(b, "%d deleted at the source:\n", len(s.Gone))
		for _, g := range s.Gone {
			action := "kept (--prune deletes it)"
			if g.Deleted {
				action = "deleted"
			}
			fmt.Fprintf(b, "  %s id %d (post %d here): %s\n", g.Resource, g.SourceID, g.ID, action)
		}
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(b, "%d not imported:\n", len(s.Failures))
		for _, f := range s.Failures {
			fmt.Fprintf(b, "  %s %s: %s\n", f.Resource, f.Item, f.Reason)
		}
	}
}

// Importer runs one import.
type Importer struct {
	opts   Options
	client *Client
	api    API
	target Target

	mu  sync.Mutex
	sum *Summary
	// ids maps a source ID per resource to the target's.
	ids map[Resource]map[int64]int64
	cp  *checkpoint
	// eventRaws are the source's events, read before the terms: the terms' term_taxonomy_ids
	// show only inside the events (ttIDs, by taxonomy and term ID).
	// seenIDs are the source IDs of the post records this run saw (prune keeps them).
	seenIDs     map[Resource]map[int64]bool
	eventRaws   []json.RawMessage
	eventExtras map[int64]*Extra
	// eventParents are the events' post_parent by source ID.
	eventParents map[int64]int64
	ttIDs        map[string]map[int64]int64
	// since is the --since window's start, SinceOverlap included (zero: a full run); imported are
	// the source IDs earlier runs imported; lastRun is the start of the last complete run.
	since, lastRun time.Time
	imported       map[Resource]map[int64]bool
	loc            *time.Location // the source's time zone (nil: unknown)
}

// Run imports everything the source shows into target.
func Run(ctx context.Context, target Target, o Options) (*Summary, error) {
	began := time.Now()
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.MaxPages <= 0 {
		o.MaxPages = 2000
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	c := NewClient(o.Timeout)
	c.User, c.Password, c.Retries, c.MaxBody = o.User, o.Password, o.Retries, o.MaxBody
	c.UserAgent = "calendard-import"
	im := &Importer{opts: o, client: c, target: target, ids: map[Resource]map[int64]int64{}, seenIDs: map[Resource]map[int64]bool{},
		imported: map[Resource]map[int64]bool{},
		sum:      &Summary{Counts: map[Resource]*Count{}}}
	for _, r := range Resources {
		im.sum.Counts[r] = &Count{}
		im.ids[r] = map[int64]int64{}
	}
	api, idx, err := Discover(ctx, c, o.From)
	if err != nil {
		return nil, err
	}
	im.api, im.loc = api, siteLocation(idx)
	im.sum.Source = api.URL("/", nil)
	if im.cp, err = loadCheckpoint(o.Checkpoint, im.sum.Source); err != nil {
		return nil, err
	}
	if _, err := target.SaveSite(ctx, idx); err != nil {
		return nil, fmt.Errorf("site settings: %w", err)
	}
	if err := im.resolveSince(ctx); err != nil {
		return nil, err
	}
	if !im.since.IsZero() {
		if err := im.loadImported(ctx); err != nil {
			return nil, err
		}
	}
	if _, done := im.cp.Done[Events]; !done {
		im.collectEvents(ctx)
		im.ttIDs = termTaxonomyIDs(im.eventRaws)
	}
	steps := []struct {
		res Resource
		run func(context.Context) error
	}{
		{MediaFiles, im.media},
		{Categories, func(ctx context.Context) error { return im.terms(ctx, Categories, "tribe_events_cat") }},
		{Tags, func(ctx context.Context) error { return im.terms(ctx, Tags, "post_tag") }},
		{Venues, im.venues}, {Organizers, im.organizers}, {Events, im.events},
	}
	for _, st := range steps {
		if ids, ok := im.cp.Done[st.res]; ok {
			im.ids[st.res] = ids
			im.sum.Resumed = append(im.sum.Resumed, st.res)
			continue
		}
		if err := st.run(ctx); err != nil {
			return im.sum, err
		}
		if err := ctx.Err(); err != nil {
			return im.sum, err
		}
		if err := im.cp.finish(st.res, im.ids[st.res]); err != nil {
			return im.sum, err
		}
	}
	if err := im.prune(ctx); err != nil {
		return im.sum, err
	}
	if err := im.cp.remove(); err != nil {
		return im.sum, err
	}
	if err := im.recordRun(ctx, began); err != nil {
		return im.sum, fmt.Errorf("recording the run: %w", err)
	}
	im.sum.Elapsed = time.Since(began)
	return im.sum, nil
}

func (im *Importer) fail(res Resource, item string, err error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.sum.Failures = append(im.sum.Failures, Failure{Resource: res, Item: item, Reason: err.Error()})
	if c := im.sum.Counts[res]; c != nil && !strings.HasPrefix(item, "page") {
		c.Failed++
	}
}

// record notes one saved record.
func (im *Importer) record(res Resource, srcID, id int64, wrote bool) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.ids[res][srcID] = id
	if wrote {
		im.sum.Counts[res].Written++
	} else {
		im.sum.Counts[res].Unchanged++
	}
}

func (im *Importer) seen(res Resource, n int) {
	im.sum.Counts[res].Seen += n
	if im.opts.Progress != nil {
		im.opts.Progress.Start(res, n)
	}
}

func (im *Importer) progress(res Resource) {
	if im.opts.Progress != nil {
		im.opts.Progress.Done(res, 1)
	}
}

// statuses is what a list asks for: with credentials every status the source has.
func (im *Importer) statusQuery(q url.Values) url.Values {
	if im.opts.User != "" {
		q.Set("status", "publish,future,draft,pending,private,trash")
	}
	return q
}

// terms imports a taxonomy: parents before children, so the hierarchy can be kept.
func (im *Importer) terms(ctx context.Context, res Resource, taxonomy string) error {
	raws := im.walk(ctx, res, "/tribe/events/v1/"+string(res), string(res), url.Values{"hide_empty": {"false"}})
	im.seen(res, len(raws))
	var terms []*Term
	byID := map[int64]*Term{}
	for _, raw := range raws {
		t, err := decodeTerm(raw, taxonomy)
		if err != nil {
			im.fail(res, itemName(raw), err)
			im.progress(res)
			continue
		}
		t.TaxonomyID = im.taxonomyIDFor(t)
		terms = append(terms, t)
		byID[t.ID] = t
	}
	depth := func(t *Term) int {
		d := 0
		for p := t.Parent; p != 0 && d < 100; d++ {
			pt := byID[p]
			if pt == nil {
				break
			}
			p = pt.Parent
		}
		return d
	}
	sort.SliceStable(terms, func(i, j int) bool {
		di, dj := depth(terms[i]), depth(terms[j])
		if di != dj {
			return di < dj
		}
		return terms[i].ID < terms[j].ID
	})
	for _, t := range terms {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		parent := int64(0)
		if t.Parent != 0 {
			var ok bool
			if parent, ok = im.ids[res][t.Parent]; !ok {
				im.fail(res, "id "+strconv.FormatInt(t.ID, 10), fmt.Errorf("parent %d was not imported", t.Parent))
				im.progress(res)
				continue
			}
		}
		id, wrote, err := im.target.SaveTerm(ctx, t, parent)
		if err != nil {
			im.fail(res, "id "+strconv.FormatInt(t.ID, 10), err)
		} else {
			im.record(res, t.ID, id, wrote)
		}
		im.progress(res)
	}
	return nil
}

// source is a post's source identity.
func (im *Importer) source(postType string, id int64) string {
	return im.sum.Source + "#" + postType + "/" + strconv.FormatInt(id, 10)
}

// hashOf fingerprints a decoded record: the same record hashes the same on every run.
func hashOf(v any) string {
	b, _ := json.Marshal(v)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

func (im *Importer) venues(ctx context.Context) error {
	raws := im.walk(ctx, Venues, "/tribe/events/v1/venues", "venues", im.statusQuery(url.Values{}))
	extras := im.extras(ctx, Venues, "tribe_venue")
	im.completeExtras(ctx, Venues, "tribe_venue", raws, extras)
	im.seen(Venues, len(raws))
	for _, raw := range raws {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		im.present(Venues, raw)
		if im.skip(Venues, raw, extras) {
			continue
		}
		v, err := decodeVenue(raw)
		if err == nil {
			applyLinkedExtra(&v.Title, &v.Description, extras[v.ID])
			if x := extras[v.ID]; x != nil && v.Lat == "" && v.Lng == "" {
				// v1 shows geo_lat/geo_lng only with both set and the map on.
				v.Lat, v.Lng = x.Meta["_VenueLat"], x.Meta["_VenueLng"]
			}
			v.ImageID, err = im.image(v.ImageID)
		}
		if err == nil {
			var id int64
			var wrote bool
			if id, wrote, err = im.target.SaveVenue(ctx, v, im.source("tribe_venue", v.ID), hashOf(v)); err == nil {
				im.record(Venues, v.ID, id, wrote)
			}
		}
		if err != nil {
			im.fail(Venues, itemName(raw), err)
		}
		im.progress(Venues)
	}
	return nil
}

func (im *Importer) organizers(ctx context.Context) error {
	raws := im.walk(ctx, Organizers, "/tribe/events/v1/organizers", "organizers", im.statusQuery(url.Values{}))
	extras := im.extras(ctx, Organizers, "tribe_organizer")
	im.completeExtras(ctx, Organizers, "tribe_organizer", raws, extras)
	im.seen(Organizers, len(raws))
	for _, raw := range raws {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		im.present(Organizers, raw)
		if im.skip(Organizers, raw, extras) {
			continue
		}
		o, err := decodeOrganizer(raw)
		if err == nil {
			applyLinkedExtra(&o.Title, &o.Description, extras[o.ID])
			o.ImageID, err = im.image(o.ImageID)
		}
		if err == nil {
			var id int64
			var wrote bool
			if id, wrote, err = im.target.SaveOrganizer(ctx, o, im.source("tribe_organizer", o.ID), hashOf(o)); err == nil {
				im.record(Organizers, o.ID, id, wrote)
			}
		}
		if err != nil {
			im.fail(Organizers, itemName(raw), err)
		}
		im.progress(Organizers)
	}
	return nil
}

// eventWindow covers every date an event can have: the plugin's list defaults to upcoming events.
var eventWindow = url.Values{"start_date": {"1000-01-01 00:00:00"}, "end_date": {"9999-12-31 23:59:59"}}

// eventQuery asks for every event: every status the user may see, every date.
func (im *Importer) eventQuery() url.Values {
	q := im.statusQuery(url.Values{})
	for k, v := range eventWindow {
		q[k] = v
	}
	return q
}

func (im *Importer) events(ctx context.Context) error {
	raws, extras := im.eventRaws, im.eventExtras
	im.seen(Events, len(raws))
	for _, raw := range raws {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		im.present(Events, raw)
		if im.skip(Events, raw, extras) {
			continue
		}
		e, err := decodeEvent(raw)
		if err == nil {
			applyEventExtra(e, extras[e.ID])
			e.Parent = im.eventParents[e.ID]
			var l Links
			if l, err = im.links(e); err == nil {
				var id int64
				var wrote bool
				if id, wrote, err = im.target.SaveEvent(ctx, e, l, im.source("tribe_events", e.ID), hashOf(e)); err == nil {
					im.record(Events, e.ID, id, wrote)
				}
			}
		}
		if err != nil {
			im.fail(Events, itemName(raw), err)
		}
		im.progress(Events)
	}
	return nil
}

// links maps an event's links to target IDs; a link to a record that was not imported is an error
// (the event would silently lose it).
func (im *Importer) links(e *Event) (Links, error) {
	var l Links
	var missing []string
	im.mu.Lock()
	defer im.mu.Unlock()
	mapIDs := func(res Resource, src []int64) []int64 {
		out := []int64{}
		for _, s := range src {
			if id, ok := im.ids[res][s]; ok {
				out = append(out, id)
			} else {
				missing = append(missing, fmt.Sprintf("%s %d", strings.TrimSuffix(string(res), "s"), s))
			}
		}
		return out
	}
	termIDs := func(ts []*Term) []int64 {
		ids := make([]int64, len(ts))
		for i, t := range ts {
			ids[i] = t.ID
		}
		return ids
	}
	l.Categories = mapIDs(Categories, termIDs(e.Categories))
	l.Tags = mapIDs(Tags, termIDs(e.Tags))
	if e.VenueID != 0 {
		if v := mapIDs(Venues, []int64{e.VenueID}); len(v) == 1 {
			l.Venue = v[0]
		}
	}
	l.Organizers = mapIDs(Organizers, e.OrganizerIDs)
	if e.ImageID != 0 {
		if v := mapIDs(MediaFiles, []int64{e.ImageID}); len(v) == 1 {
			l.Image = v[0]
		}
	}
	if len(missing) > 0 {
		return l, fmt.Errorf("links to what was not imported: %s", strings.Join(missing, ", "))
	}
	return l, nil
}

// itemName names a raw record in a failure: its id when it has one.
func itemName(raw json.RawMessage) string {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &v) == nil && len(v.ID) > 0 && len(v.ID) < 40 {
		return "id " + strings.Trim(string(v.ID), `"`)
	}
	s := string(raw)
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return "record " + s
}
