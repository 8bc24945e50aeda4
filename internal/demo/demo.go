// Package demo fills a calendar with a realistic demo: venues with coordinates in cities around the
// world, organizers, a category tree, tags and a few hundred events in the venues' time zones —
// timed, all-day and multi-day, paid and free, some featured or sticky, some drafts. Everything is
// written through calendard's own write path (SaveEvent, CreateLinked, InsertTerm), exactly as the
// REST endpoints write it, so the rows are the ones WordPress and The Events Calendar would store.
//
// The output is a function of the seed and the anchor instant: the same Options give the same
// calendar, event dates spread around the anchor (some past, some this week, most upcoming).
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/cost"
	"github.com/calendard/calendard/internal/wptext"
)

// Options shape the demo calendar.
type Options struct {
	Events int       // number of events (default 300)
	Seed   uint64    // random seed: the same seed and anchor give the same calendar
	Now    time.Time // anchor of the event dates, also the write clock (default: the current time)
	Batch  int       // events per transaction (default 50)
	// Force adds the demo even when the calendar already has events (venues, organizers and terms
	// of an earlier demo are reused, events are added).
	Force bool
	// Progress, when set, is told after each transaction how many events are written.
	Progress func(done, total int)
}

// DefaultEvents is the number of events of a demo calendar.
const DefaultEvents = 300

// Store is what the demo needs of a calendar: the write transactions every REST write uses, and
// the event reads that tell whether the calendar already has events.
type Store interface {
	calendard.Writer
	calendard.EventService
}

// Summary reports what Fill wrote.
type Summary struct {
	// Skipped is set when the calendar already had events (Existing of them) and Force was off:
	// nothing was written.
	Skipped  bool
	Existing int

	Seed                     uint64
	Anchor                   time.Time
	Venues, Organizers       int
	Cities, Zones            int // distinct cities and time zones of the events
	Categories, Children     int // categories in all, and how many of them have a parent
	Tags                     int
	Events                   int
	Past, ThisWeek, Later    int // ended before the anchor / starts within a week (or runs now) / later
	AllDay, MultiDay         int
	Featured, Sticky         int
	Drafts, Pending, Private int
	Free, Paid, NoCost       int
	Online, MultiOrganizer   int
	First, Last              time.Time // earliest start and latest end (UTC)
	Elapsed                  time.Duration
}

// WriteTo prints the summary.
func (s *Summary) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	if s.Skipped {
		fmt.Fprintf(&b, "the calendar already has %d events: nothing written (use --force to add the demo anyway)\n", s.Existing)
		n, err := io.WriteString(w, b.String())
		return int64(n), err
	}
	fmt.Fprintf(&b, "demo calendar written in %s (seed %d, anchored at %s UTC)\n", s.Elapsed.Round(time.Millisecond), s.Seed, s.Anchor.UTC().Format(calendard.DBDateTime))
	fmt.Fprintf(&b, "  venues      %4d  with coordinates, in %d cities and %d time zones\n", s.Venues, s.Cities, s.Zones)
	fmt.Fprintf(&b, "  organizers  %4d\n", s.Organizers)
	fmt.Fprintf(&b, "  categories  %4d  %d top-level, %d children\n", s.Categories, s.Categories-s.Children, s.Children)
	fmt.Fprintf(&b, "  tags        %4d\n", s.Tags)
	fmt.Fprintf(&b, "  events      %4d  %d past, %d this week, %d later (%s to %s)\n", s.Events, s.Past, s.ThisWeek, s.Later,
		s.First.Format("2006-01-02"), s.Last.Format("2006-01-02"))
	fmt.Fprintf(&b, "              %d all-day, %d multi-day, %d online, %d with several organizers\n", s.AllDay, s.MultiDay, s.Online, s.MultiOrganizer)
	fmt.Fprintf(&b, "              %d featured, %d sticky; %d drafts, %d pending, %d private\n", s.Featured, s.Sticky, s.Drafts, s.Pending, s.Private)
	fmt.Fprintf(&b, "              %d free, %d paid, %d without a cost\n", s.Free, s.Paid, s.NoCost)
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// ExistingEvents counts the calendar's events (every status but trash and auto-draft).
func ExistingEvents(ctx context.Context, events calendard.EventService, site *calendard.Site) (int, error) {
	_, n, err := events.FindEvents(ctx, site, calendard.EventFilter{Limit: 1})
	return n, err
}

// Fill writes the demo calendar as user (see Author). When the calendar already has events and
// Force is off it writes nothing and says so in the summary.
func Fill(ctx context.Context, st Store, site *calendard.Site, user *calendard.User, o Options) (*Summary, error) {
	began := time.Now()
	if o.Events <= 0 {
		o.Events = DefaultEvents
	}
	if o.Batch <= 0 {
		o.Batch = 50
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC().Truncate(time.Second)
	if err := canWrite(user); err != nil {
		return nil, err
	}
	existing, err := ExistingEvents(ctx, st, site)
	if err != nil {
		return nil, err
	}
	if existing > 0 && !o.Force {
		return &Summary{Skipped: true, Existing: existing}, nil
	}

	p := newPlanner(o, site)
	events := p.events()
	clock := func() time.Time { return o.Now }

	var ids *linkedIDs
	err = st.Write(ctx, clock, func(tx calendard.WriteTx) error {
		var err error
		ids, err = writeLinked(ctx, tx, site, user, p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("demo venues, organizers and terms: %w", err)
	}
	for from := 0; from < len(events); from += o.Batch {
		batch := events[from:min(from+o.Batch, len(events))]
		err := st.Write(ctx, clock, func(tx calendard.WriteTx) error {
			for _, e := range batch {
				if _, err := calendard.SaveEvent(ctx, tx, site, user, e.write(user, ids)); err != nil {
					return fmt.Errorf("event %q: %w", e.title, err)
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("demo events: %w", err)
		}
		if o.Progress != nil {
			o.Progress(from+len(batch), len(events))
		}
	}
	s := summarize(events, o)
	s.Existing = existing
	s.Categories, s.Children, s.Tags = ids.categories, ids.children, len(ids.tags)
	s.Venues, s.Organizers = len(ids.venues), len(ids.organizers)
	s.Elapsed = time.Since(began)
	return s, nil
}

// canWrite checks the user may do everything the demo does through the REST API.
func canWrite(u *calendard.User) error {
	var missing []string
	for _, c := range []string{calendard.CapsOf(calendard.PostTypeEvent).Publish, calendard.CapsOf(calendard.PostTypeEvent).ReadPrivate,
		calendard.CapsOf(calendard.PostTypeVenue).Publish, calendard.CapsOf(calendard.PostTypeOrganizer).Publish, "manage_categories"} {
		if !u.Can(c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("user %q may not write the demo (missing %s); use an administrator", u.Login, strings.Join(missing, ", "))
	}
	return nil
}

// Users finds users; wpdb.DB implements it.
type Users interface {
	UserByID(ctx context.Context, id int64) (*calendard.UserRecord, error)
	UserByLogin(ctx context.Context, login string) (*calendard.UserRecord, error)
	UserByEmail(ctx context.Context, email string) (*calendard.UserRecord, error)
}

// Author returns the user the demo writes as, with the roles and capabilities the REST API would
// give them: the user named (login, e-mail or ID) or else user 1 (the administrator "calendard
// migrate" creates) when they are an administrator, or else the user whose e-mail is the site's
// admin_email (adminEmail) when they are one.
func Author(ctx context.Context, users Users, site *calendard.Site, name, adminEmail string) (*calendard.User, error) {
	if name != "" {
		rec, err := users.UserByLogin(ctx, calendard.SanitizeUser(name))
		if err == nil && rec == nil && calendard.IsEmail(name) {
			rec, err = users.UserByEmail(ctx, name)
		}
		if err == nil && rec == nil {
			if id, perr := strconv.ParseInt(name, 10, 64); perr == nil && id > 0 {
				rec, err = users.UserByID(ctx, id)
			}
		}
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return nil, fmt.Errorf("no user %q", name)
		}
		return calendard.UserFromRecord(site, rec), nil
	}
	candidates := []func() (*calendard.UserRecord, error){
		func() (*calendard.UserRecord, error) { return users.UserByID(ctx, 1) },
	}
	if adminEmail != "" {
		candidates = append(candidates, func() (*calendard.UserRecord, error) { return users.UserByEmail(ctx, adminEmail) })
	}
	for _, find := range candidates {
		rec, err := find()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			continue
		}
		if u := calendard.UserFromRecord(site, rec); isAdministrator(u) {
			return u, nil
		}
	}
	return nil, errors.New("no administrator found (neither user 1 nor the admin_email user): name one with --user LOGIN")
}

func isAdministrator(u *calendard.User) bool {
	for _, r := range u.Roles {
		if r == "administrator" {
			return true
		}
	}
	return false
}

// linkedIDs are the posts and terms the events link to.
type linkedIDs struct {
	venues, organizers   []int64
	category             map[string]int64 // by name
	tags                 map[string]int64
	categories, children int
}

// writeLinked creates (or finds, on a calendar that has them) the category tree, the tags, the
// venues and the organizers.
func writeLinked(ctx context.Context, tx calendard.WriteTx, site *calendard.Site, user *calendard.User, p *planner) (*linkedIDs, error) {
	ids := &linkedIDs{category: map[string]int64{}, tags: map[string]int64{}}
	// Term writes take the lock the REST term endpoints take.
	if err := calendard.LockTermWrites(ctx, tx); err != nil {
		return nil, err
	}
	for _, c := range categories {
		id, err := insertTerm(ctx, tx, calendard.TermArgs{Taxonomy: calendard.TaxonomyCategory, Name: c.name, Description: c.description, Hierarchical: true})
		if err != nil {
			return nil, err
		}
		ids.category[c.name] = id
		ids.categories++
		for _, child := range c.children {
			cid, err := insertTerm(ctx, tx, calendard.TermArgs{Taxonomy: calendard.TaxonomyCategory, Name: child, Parent: id, Hierarchical: true})
			if err != nil {
				return nil, err
			}
			ids.category[child] = cid
			ids.categories++
			ids.children++
		}
	}
	for _, name := range tagNames {
		id, err := insertTerm(ctx, tx, calendard.TermArgs{Taxonomy: calendard.TaxonomyTag, Name: name})
		if err != nil {
			return nil, err
		}
		ids.tags[name] = id
	}
	status := calendard.ScaleBackStatus(user, "publish")
	for i, v := range venues {
		c := cities[cityIndex(v.city)]
		data := calendard.LinkedArray{
			{Key: "post_date", Value: p.linkedDate(len(venues) - i)}, {Key: "post_date_gmt", Value: false},
			{Key: "post_status", Value: status},
			{Key: "Venue", Value: v.name}, {Key: "Description", Value: v.description},
			{Key: "Address", Value: v.address}, {Key: "City", Value: c.name}, {Key: "Country", Value: c.country},
		}
		if c.state != "" {
			data = append(data, calendard.KV{Key: "State", Value: c.state})
		}
		if c.province != "" {
			data = append(data, calendard.KV{Key: "Province", Value: c.province})
		}
		data = append(data, calendard.LinkedArray{
			{Key: "Zip", Value: v.zip}, {Key: "Phone", Value: v.phone}, {Key: "URL", Value: v.website},
			{Key: "FeaturedImage", Value: false}, {Key: "ShowMap", Value: "1"}, {Key: "ShowMapLink", Value: "1"},
			// Events Calendar Pro's geolocation: _VenueLat and _VenueLng, floats as strings.
			{Key: "Lat", Value: strconv.FormatFloat(v.lat, 'f', -1, 64)}, {Key: "Lng", Value: strconv.FormatFloat(v.lng, 'f', -1, 64)},
		}...)
		id, err := calendard.CreateLinked(ctx, tx, site, user, calendard.PostTypeVenue, data, true)
		if err != nil {
			return nil, err
		}
		if id == 0 {
			return nil, fmt.Errorf("venue %q was refused", v.name)
		}
		ids.venues = append(ids.venues, id)
	}
	for i, o := range organizers {
		data := calendard.LinkedArray{
			{Key: "post_date", Value: p.linkedDate(len(organizers) - i)}, {Key: "post_date_gmt", Value: false},
			{Key: "post_status", Value: status},
			{Key: "Organizer", Value: o.name}, {Key: "Description", Value: o.description},
			{Key: "Phone", Value: o.phone}, {Key: "Website", Value: o.website}, {Key: "Email", Value: o.email},
			{Key: "FeaturedImage", Value: false},
		}
		id, err := calendard.CreateLinked(ctx, tx, site, user, calendard.PostTypeOrganizer, data, true)
		if err != nil {
			return nil, err
		}
		if id == 0 {
			return nil, fmt.Errorf("organizer %q was refused", o.name)
		}
		ids.organizers = append(ids.organizers, id)
	}
	return ids, nil
}

// insertTerm is wp_insert_term, taking the existing term when the name is already used (a demo
// added with --force to a calendar that has the tree).
func insertTerm(ctx context.Context, tx calendard.WriteTx, a calendard.TermArgs) (int64, error) {
	t, err := calendard.InsertTerm(ctx, tx, a)
	var te *calendard.TermError
	if errors.As(err, &te) && te.Code == calendard.ErrCodeTermExists {
		return te.TermID, nil
	}
	if err != nil {
		return 0, fmt.Errorf("term %q: %w", a.Name, err)
	}
	return t.ID, nil
}

// planner makes every random choice of the demo up front, from one seeded source, so the calendar
// depends only on the options.
type planner struct {
	rng    *rand.Rand
	o      Options
	site   *calendard.Site
	weight int
}

func newPlanner(o Options, site *calendard.Site) *planner {
	p := &planner{rng: rand.New(rand.NewPCG(o.Seed, 0x5eed_ca1e_da4d)), o: o, site: site}
	for _, k := range kinds {
		p.weight += k.weight
	}
	return p
}

// linkedDate is the publication date of the n-th newest venue or organizer: days before the
// anchor, in the site's zone.
func (p *planner) linkedDate(n int) string {
	d := p.o.Now.Truncate(time.Minute).Add(-time.Duration(90+n*3)*24*time.Hour - time.Duration(n*37)*time.Minute)
	return d.In(p.site.Location).Format(calendard.DBDateTime)
}

func (p *planner) chance(f float64) bool { return p.rng.Float64() < f }

func pick[T any](p *planner, xs []T) T { return xs[p.rng.IntN(len(xs))] }

func (p *planner) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + p.rng.IntN(hi-lo+1)
}

// event is one planned event.
type event struct {
	title, content, excerpt string
	venue                   int // index into venues; -1 online
	zone                    string
	city                    int
	allDay                  bool
	start, end              string    // wall clock in zone
	startUTC, endUTC        time.Time // the instants
	costs                   []string  // nil: no cost
	costList                bool
	free                    bool
	website                 string
	status                  string
	date                    string // publication date (site zone); "" for drafts and pending
	featured, sticky        bool
	organizers              []int
	categories, tags        []string
}

// events plans the demo's events.
func (p *planner) events() []*event {
	out := make([]*event, 0, p.o.Events)
	for range p.o.Events {
		out = append(out, p.event())
	}
	return out
}

func (p *planner) kind() *kind {
	n := p.rng.IntN(p.weight)
	for i := range kinds {
		if n < kinds[i].weight {
			return &kinds[i]
		}
		n -= kinds[i].weight
	}
	return &kinds[len(kinds)-1]
}

// dayOffset spreads events around the anchor: about a fifth in the past three months, a fifth
// within a week either side, the rest over the next six months, thinning out.
func (p *planner) dayOffset() int {
	switch r := p.rng.Float64(); {
	case r < 0.22:
		return -p.between(8, 90)
	case r < 0.42:
		return p.between(-7, 7)
	default:
		return 8 + int(math.Pow(p.rng.Float64(), 1.5)*180)
	}
}

func (p *planner) event() *event {
	k := p.kind()
	e := &event{venue: -1, status: "publish"}

	// Where: a venue (its city's zone), or online in an organizer's city.
	online := k.online && p.chance(0.2)
	if online {
		e.city = p.rng.IntN(len(cities))
	} else {
		e.venue = p.rng.IntN(len(venues))
		e.city = cityIndex(venues[e.venue].city)
	}
	c := cities[e.city]
	e.zone = c.zone
	loc, err := time.LoadLocation(c.zone)
	if err != nil {
		panic(err) // the zones above are all in the tz database
	}

	// What.
	title := pick(p, k.titles)
	if len(k.fill) > 0 {
		title = strings.Replace(title, "%s", pick(p, k.fill), 1)
	}
	place := c.name
	if e.venue >= 0 {
		place = venues[e.venue].short
	}
	e.title = strings.NewReplacer("{city}", c.name, "{venue}", place).Replace(title)
	if online {
		e.title = "Online: " + e.title
	}

	// When: wall-clock arithmetic on a naive clock, then read in the event's zone.
	today := p.o.Now.In(loc)
	day := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, p.dayOffset())
	multi := p.chance(k.multiDay)
	e.allDay = p.chance(k.allDay)
	extra := 0
	if multi {
		extra = p.between(max(k.days[0], 1), max(k.days[1], 1))
	}
	if e.allDay {
		e.start = day.Format("2006-01-02") + " 00:00:00"
		e.end = day.AddDate(0, 0, extra).Format("2006-01-02") + " 23:59:59"
	} else {
		hm := pick(p, k.hours)
		h, _ := strconv.Atoi(hm[:2])
		m, _ := strconv.Atoi(hm[3:])
		s := day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
		length := time.Duration(p.between(k.minutes[0]/15, k.minutes[1]/15)*15) * time.Minute
		end := s.Add(length)
		if multi {
			end = end.AddDate(0, 0, extra)
		}
		e.start, e.end = s.Format(calendard.DBDateTime), end.Format(calendard.DBDateTime)
	}
	st, _ := time.ParseInLocation(calendard.DBDateTime, e.start, loc)
	en, _ := time.ParseInLocation(calendard.DBDateTime, e.end, loc)
	e.startUTC, e.endUTC = st.UTC(), en.UTC()

	// Who.
	switch r := p.rng.Float64(); {
	case r < 0.1:
	case r < 0.8:
		e.organizers = []int{p.organizerFor(e.city)}
	default:
		first := p.organizerFor(e.city)
		e.organizers = []int{first}
		for range p.between(1, 2) {
			o := p.rng.IntN(len(organizers))
			if !containsInt(e.organizers, o) {
				e.organizers = append(e.organizers, o)
			}
		}
	}

	// Cost.
	switch {
	case p.chance(k.free):
		e.free = true
		if p.chance(0.85) {
			e.costs = []string{"Free"}
		}
	case k.price[1] > 0:
		lo := p.between(k.price[0], k.price[1])
		e.costs = []string{price(c, float64(lo))}
		if p.chance(0.3) {
			e.costs = append(e.costs, price(c, float64(lo)*1.6))
			e.costList = true
		}
	}

	// Terms.
	e.categories = []string{k.category}
	if p.chance(0.3) {
		e.categories = append(e.categories, parentOf(k.category))
	}
	n := p.between(0, 3)
	for range n {
		t := pick(p, k.tags)
		if (t == "Free Entry" && !e.free) || (t == "Livestream" && !online) || containsStr(e.tags, t) {
			continue
		}
		e.tags = append(e.tags, t)
	}
	if online && !containsStr(e.tags, "Livestream") {
		e.tags = append(e.tags, "Livestream")
	}
	if wd := st.Weekday(); (wd == time.Saturday || wd == time.Sunday) && p.chance(0.5) && !containsStr(e.tags, "Weekend") {
		e.tags = append(e.tags, "Weekend")
	}

	// Text.
	e.content = p.description(k, c, e, online)
	if p.chance(0.4) {
		e.excerpt = pick(p, k.blurb)
	}
	slug := wptext.SanitizeTitle(e.title)
	switch {
	case online:
		e.website = "https://live.example.com/" + slug
	case p.chance(0.35):
		e.website = "https://tickets.example.com/e/" + slug
	}

	// Status and flags.
	switch r := p.rng.Float64(); {
	case r < 0.04:
		e.status = "draft"
	case r < 0.07:
		e.status = "pending"
	case r < 0.085:
		e.status = "private"
	}
	if e.status == "publish" || e.status == "private" {
		// Published some weeks before it starts, and never after the anchor.
		pub := e.startUTC.Add(-time.Duration(p.between(10*24, 80*24)) * time.Hour)
		if latest := p.o.Now.Add(-time.Duration(p.between(1, 72)) * time.Hour); pub.After(latest) {
			pub = latest
		}
		e.date = pub.Truncate(time.Minute).In(p.site.Location).Format(calendard.DBDateTime)
	}
	if e.status == "publish" {
		e.featured = p.chance(0.1)
		e.sticky = p.chance(0.04)
	}
	return e
}

// organizerFor picks an organizer from the city when there is one.
func (p *planner) organizerFor(cityIdx int) int {
	var local []int
	for i, o := range organizers {
		if o.city == cities[cityIdx].name {
			local = append(local, i)
		}
	}
	if len(local) > 0 && p.chance(0.8) {
		return pick(p, local)
	}
	return p.rng.IntN(len(organizers))
}

func (p *planner) description(k *kind, c city, e *event, online bool) string {
	var paras []string
	if online {
		paras = append(paras, "This event takes place online; the stream link is sent after registration and the recording stays available for a week.")
	} else {
		v := venues[e.venue]
		paras = append(paras, fmt.Sprintf("Join us at <strong>%s</strong>, %s, %s.", v.name, v.address, c.name))
	}
	blurbs := append([]string(nil), k.blurb...)
	p.rng.Shuffle(len(blurbs), func(i, j int) { blurbs[i], blurbs[j] = blurbs[j], blurbs[i] })
	paras = append(paras, strings.Join(blurbs[:min(len(blurbs), p.between(2, 3))], " "))
	if p.chance(0.5) {
		paras = append(paras, pick(p, closings))
	}
	return strings.Join(paras, "\n\n")
}

// price formats an amount given in euros the way the city writes prices, rounded to a sensible
// step of its currency.
func price(c city, euros float64) string {
	v := euros * c.scale
	step := 1.0
	switch {
	case v >= 2000:
		step = 500
	case v >= 200:
		step = 50
	case v >= 40:
		step = 5
	}
	n := strconv.FormatFloat(math.Max(step, math.Round(v/step)*step), 'f', 0, 64)
	if c.postfix {
		return n + " " + c.symbol
	}
	return c.symbol + n
}

func parentOf(child string) string {
	for _, c := range categories {
		if containsStr(c.children, child) {
			return c.name
		}
	}
	return ""
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func containsInt(xs []int, n int) bool {
	for _, x := range xs {
		if x == n {
			return true
		}
	}
	return false
}

// write is the EventWrite the REST endpoint would build for this event.
func (e *event) write(user *calendard.User, ids *linkedIDs) *calendard.EventWrite {
	str := func(s string) *string { return &s }
	// Text filters for users without unfiltered_html are applied by the write path (SavePost).
	title, content, excerpt := e.title, e.content, e.excerpt
	w := &calendard.EventWrite{
		Status: calendard.ScaleBackStatus(user, e.status),
		Title:  str(title), Content: str(content),
		Timezone: e.zone, AllDay: e.allDay, Start: e.start, End: e.end,
		Website: e.website, Featured: e.featured, Sticky: e.sticky,
		OrganizerIDs: []int64{},
	}
	if excerpt != "" {
		w.Excerpt = str(excerpt)
	}
	if e.date != "" {
		w.Date = str(e.date)
	}
	if e.costs != nil {
		st := cost.ForWrite(e.costs, e.costList)
		w.Cost = &st
	}
	if e.venue >= 0 {
		w.VenueID = ids.venues[e.venue]
		w.ShowMap, w.ShowMapLink = true, true
	}
	for _, o := range e.organizers {
		w.OrganizerIDs = append(w.OrganizerIDs, ids.organizers[o])
	}
	cats := make([]calendard.TermInput, 0, len(e.categories))
	for _, name := range e.categories {
		id := ids.category[name]
		cats = append(cats, calendard.TermInput{Numeric: true, ID: id, Text: strconv.FormatInt(id, 10)})
	}
	tags := make([]calendard.TermInput, 0, len(e.tags))
	for _, name := range e.tags {
		id := ids.tags[name]
		tags = append(tags, calendard.TermInput{Numeric: true, ID: id, Text: strconv.FormatInt(id, 10)})
	}
	w.Categories, w.Tags = &cats, &tags
	return w
}

// summarize counts what the plan wrote.
func summarize(events []*event, o Options) *Summary {
	s := &Summary{Seed: o.Seed, Anchor: o.Now, Events: len(events)}
	cityset, zones := map[int]bool{}, map[string]bool{}
	week := o.Now.Add(7 * 24 * time.Hour)
	for i, e := range events {
		cityset[e.city] = true
		zones[e.zone] = true
		switch {
		case e.endUTC.Before(o.Now):
			s.Past++
		case e.startUTC.Before(week):
			s.ThisWeek++
		default:
			s.Later++
		}
		if e.allDay {
			s.AllDay++
		}
		if e.start[:10] != e.end[:10] {
			s.MultiDay++
		}
		if e.featured {
			s.Featured++
		}
		if e.sticky {
			s.Sticky++
		}
		switch e.status {
		case "draft":
			s.Drafts++
		case "pending":
			s.Pending++
		case "private":
			s.Private++
		}
		switch {
		case e.costs == nil:
			s.NoCost++
		case e.free:
			s.Free++
		default:
			s.Paid++
		}
		if e.venue < 0 {
			s.Online++
		}
		if len(e.organizers) > 1 {
			s.MultiOrganizer++
		}
		if i == 0 || e.startUTC.Before(s.First) {
			s.First = e.startUTC
		}
		if i == 0 || e.endUTC.After(s.Last) {
			s.Last = e.endUTC
		}
	}
	s.Cities, s.Zones = len(cityset), len(zones)
	return s
}
