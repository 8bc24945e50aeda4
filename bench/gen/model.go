package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
)

// dbTime is the format of MySQL DATETIME values and of the plugin's date meta.
const dbTime = "2006-01-02 15:04:05"

// zeroDate is what WordPress stores as the GMT date of drafts and pending posts.
const zeroDate = "0000-00-00 00:00:00"

// base is what the generator reads from the target database before building: the site, its users
// and media, and the first free IDs.
type base struct {
	home                                                               string
	siteZone                                                           *time.Location
	authors                                                            []int64 // post authors, in ID order
	images                                                             []int64 // attachment IDs events, venues and organizers may use as featured image
	nextPost, nextMeta, nextTerm, nextTT, nextTECEvent, nextOccurrence int64
}

type post struct {
	id, author                           int64
	date, dateGMT, modified, modifiedGMT string
	content, title, excerpt              string
	status, name, guid, typ              string
	parent                               int64
	menuOrder                            int
}

type meta struct {
	id, postID int64
	key, value string
}

type term struct {
	termID, ttID                      int64
	name, slug, taxonomy, description string
	parent                            int64 // term_id of the parent
	count                             int
	events, published                 int // relationships (every status) and published ones
	categoryIndex                     int
	isCategory                        bool
}

type rel struct{ object, tt int64 }

type tecEvent struct {
	eventID, postID                    int64
	start, end, zone, startUTC, endUTC string
	duration                           int64
	updated                            string
}

type occurrence struct {
	id, eventID, postID          int64
	start, startUTC, end, endUTC string
	duration                     int64
	hash, updated                string
}

// Event is what the generator decided about one event (kept for checks and picks).
type Event struct {
	ID                       int64
	Status, Slug, Title      string
	Start, End               string // local "Y-m-d H:i:s"
	StartUTC, EndUTC         string
	Zone                     string
	AllDay, MultiDay         bool
	Featured, Sticky, Hidden bool
	Venue                    int64
	Organizers               []int64
	Categories, Tags         []int64 // term IDs
}

// linkedPost is a generated venue or organizer.
type linkedPost struct {
	id     int64
	status string
	city   int
	events int // published events linking to it
}

// batch is a run of the streamed tables' rows, in the order they were built: the generator hands
// them to the writers a batch at a time, so that a calendar of any size is never whole in memory.
type batch struct {
	posts       []post
	meta        []meta
	rels        []rel
	tecEvents   []tecEvent
	occurrences []occurrence
}

// batchItems is how many events (or venues, organizers) a batch holds (a variable so that tests
// can make batches small).
var batchItems = 2000

// calendar is what the generator keeps of a calendar: the batch being built, the terms (written
// last, with their counts), the events (for the result) and the venues and organizers.
type calendar struct {
	batch
	terms      []term
	events     []*Event
	venues     []*linkedPost
	organizers []*linkedPost

	earliest, latest         string
	earliestIDs, latestIDs   []int64
	picks                    map[string]string
	searchHits, upcomingPubl int
}

// builder holds the state of one build: the random source and the ID and slug allocators.
type builder struct {
	o     Options
	b     *base
	r     *rand.Rand
	cal   *calendar
	slug  map[string]map[string]int // post type -> slug -> next suffix
	zones map[string]*time.Location
	// created is the creation clock: posts are created one after another over three years.
	created     time.Time
	createdStep time.Duration
}

// build makes the calendar, handing its rows to emit a batch at a time (emit owns each batch);
// it stops at emit's first error.
func build(o Options, b *base, emit func(*batch) error) (*calendar, error) {
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	bl := &builder{o: o, b: b, r: r, slug: map[string]map[string]int{}, zones: map[string]*time.Location{}, cal: &calendar{picks: map[string]string{},
		events: make([]*Event, 0, o.Events)}}
	nVenues := max(len(cities), int(math.Round(float64(o.Events)/100))) // one venue per city at least
	nOrgs := max(3, int(math.Round(float64(o.Events)*6/1000)))
	nTags := min(40+o.Events/250, len(tagWords)*(1+len(tagQualifiers)))
	span := 3 * 365 * 24 * time.Hour
	bl.created = o.Now.Add(-span)
	// Items created, counting revisions roughly (1.3 posts per item).
	bl.createdStep = span / time.Duration(int(float64(o.Events+nVenues+nOrgs)*1.3)+1)

	bl.newBatch()
	bl.terms(nTags)
	items := 0
	next := func() error {
		if items++; items%batchItems != 0 {
			return nil
		}
		return bl.emit(emit)
	}
	for i := 0; i < nOrgs; i++ {
		bl.organizer(i)
		if err := next(); err != nil {
			return nil, err
		}
	}
	for i := 0; i < nVenues; i++ {
		bl.venue(i)
		if err := next(); err != nil {
			return nil, err
		}
	}
	for i := 0; i < o.Events; i++ {
		bl.event(i)
		if err := next(); err != nil {
			return nil, err
		}
	}
	if err := bl.emit(emit); err != nil {
		return nil, err
	}
	bl.finish()
	return bl.cal, nil
}

// newBatch starts an empty batch sized for batchItems events.
func (bl *builder) newBatch() {
	bl.cal.batch = batch{posts: make([]post, 0, batchItems*14/10+16), meta: make([]meta, 0, batchItems*17+64),
		rels: make([]rel, 0, batchItems*5/2+16), tecEvents: make([]tecEvent, 0, batchItems), occurrences: make([]occurrence, 0, batchItems)}
}

// emit hands the batch built so far to emit (if it has rows) and starts a new one.
func (bl *builder) emit(emit func(*batch) error) error {
	if len(bl.cal.posts) == 0 && len(bl.cal.meta) == 0 && len(bl.cal.rels) == 0 {
		return nil
	}
	b := bl.cal.batch
	bl.newBatch()
	return emit(&b)
}

// tick advances the creation clock by about one step and returns it.
func (bl *builder) tick() time.Time {
	bl.created = bl.created.Add(bl.createdStep/2 + time.Duration(bl.r.Int64N(int64(bl.createdStep)+1)))
	if bl.created.After(bl.o.Now.Add(-time.Hour)) {
		bl.created = bl.o.Now.Add(-time.Hour)
	}
	return bl.created.Truncate(time.Second)
}

func (bl *builder) nextPostID() int64 { id := bl.b.nextPost; bl.b.nextPost++; return id }

func (bl *builder) addMeta(postID int64, key, value string) {
	bl.cal.meta = append(bl.cal.meta, meta{id: bl.b.nextMeta, postID: postID, key: key, value: value})
	bl.b.nextMeta++
}

// metaSet collects a post's meta in order, for _tribe_modified_fields and the rows.
type metaSet struct{ keys, values []string }

func (m *metaSet) add(k, v string) { m.keys = append(m.keys, k); m.values = append(m.values, v) }

// modifiedFields is the plugin's _tribe_modified_fields: every field it saved, with the time.
func modifiedFields(keys []string, ts int64) string {
	var body []byte
	n := 0
	for i, k := range keys {
		if slices.Contains(keys[:i], k) {
			continue
		}
		body = append(body, "s:"...)
		body = strconv.AppendInt(body, int64(len(k)), 10)
		body = append(body, ":\""...)
		body = append(body, k...)
		body = append(body, "\";i:"...)
		body = strconv.AppendInt(body, ts, 10)
		body = append(body, ';')
		n++
	}
	return "a:" + strconv.Itoa(n) + ":{" + string(body) + "}"
}

func (bl *builder) pick(n int) int { return bl.r.IntN(n) }

func (bl *builder) chance(p float64) bool { return bl.r.Float64() < p }

// skewed picks an index in [0,n) with a mild preference for low indexes (popular venues, tags).
func (bl *builder) skewed(n int, power float64) int {
	i := int(float64(n) * math.Pow(bl.r.Float64(), power))
	return min(i, n-1)
}

// uniqueSlug is wp_unique_post_slug for a non-hierarchical post type: slug, slug-2, slug-3, ...
func (bl *builder) uniqueSlug(typ, slug string) string {
	used := bl.slug[typ]
	if used == nil {
		used = map[string]int{}
		bl.slug[typ] = used
	}
	if _, ok := used[slug]; !ok {
		used[slug] = 2
		return slug
	}
	for n := used[slug]; ; n++ {
		s := slug + "-" + strconv.Itoa(n)
		if _, ok := used[s]; !ok {
			used[slug] = n + 1
			used[s] = 2
			return s
		}
	}
}

var accents = strings.NewReplacer("á", "a", "à", "a", "ã", "a", "â", "a", "ä", "ae", "é", "e", "è", "e", "ê", "e",
	"í", "i", "ó", "o", "ô", "o", "õ", "o", "ö", "oe", "ú", "u", "ü", "ue", "ç", "c", "ß", "ss", "ñ", "n",
	"&amp;", "", "&", "")

// sanitizeTitle is sanitize_title for the generated names: accents removed, entities and other
// punctuation dropped, lower case, spaces and hyphens collapsed into single hyphens.
func sanitizeTitle(s string) string {
	s = accents.Replace(strings.ToLower(s))
	var b strings.Builder
	dash := false
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(c)
		case c == ' ' || c == '-':
			dash = true
		}
	}
	return b.String()
}

// addPost appends a post and, for some, a revision right after it (IDs follow creation order).
func (bl *builder) addPost(p post, revision bool) {
	bl.cal.posts = append(bl.cal.posts, p)
	if !revision {
		return
	}
	rev := p
	rev.id = bl.nextPostID()
	rev.typ, rev.status, rev.menuOrder, rev.parent = "revision", "inherit", 0, p.id
	rev.name = fmt.Sprintf("%d-revision-v1", p.id)
	rev.guid = fmt.Sprintf("%s/?p=%d", bl.b.home, rev.id)
	rev.date, rev.modified = p.modified, p.modified
	rev.dateGMT, rev.modifiedGMT = p.modifiedGMT, p.modifiedGMT
	if rev.dateGMT == zeroDate {
		rev.dateGMT, rev.modifiedGMT = p.dateGMT, p.dateGMT
	}
	bl.cal.posts = append(bl.cal.posts, rev)
}

// newPost fills the columns every post type shares; status decides dates, slug and guid as
// wp_insert_post does (drafts and pending posts have no slug and no GMT date).
func (bl *builder) newPost(typ, base, title, status string, created time.Time) post {
	id := bl.nextPostID()
	p := post{id: id, author: bl.b.authors[bl.pick(min(3, len(bl.b.authors)))], title: title, status: status, typ: typ}
	local := func(t time.Time) string { return t.In(bl.b.siteZone).Format(dbTime) }
	p.date, p.dateGMT = local(created), created.UTC().Format(dbTime)
	p.modified, p.modifiedGMT = p.date, p.dateGMT
	switch status {
	case "draft", "pending":
		p.dateGMT, p.modifiedGMT = zeroDate, zeroDate
		p.guid = fmt.Sprintf("%s/?post_type=%s&p=%d", bl.b.home, typ, id)
		return p
	case "future":
		at := bl.o.Now.Add(time.Duration(1+bl.r.IntN(60)) * 24 * time.Hour).Add(time.Duration(bl.r.IntN(86400)) * time.Second)
		p.date, p.dateGMT = local(at), at.UTC().Format(dbTime)
	}
	slug := bl.uniqueSlug(typ, sanitizeTitle(title))
	p.name = slug
	p.guid = fmt.Sprintf("%s/%s/%s/", bl.b.home, base, slug)
	if status == "trash" {
		p.name = slug + "__trashed"
	}
	return p
}

// edited moves a post's modification date some days after its creation (not past the anchor).
func (bl *builder) edited(p *post, created time.Time) {
	at := created.Add(time.Duration(bl.r.IntN(30*86400)) * time.Second)
	if at.After(bl.o.Now) {
		at = bl.o.Now.Add(-time.Minute)
	}
	p.modified = at.In(bl.b.siteZone).Format(dbTime)
	if p.modifiedGMT != zeroDate {
		p.modifiedGMT = at.UTC().Format(dbTime)
	}
}

func (bl *builder) trashMeta(p *post, created time.Time, prevStatus string, ignored bool) {
	if ignored {
		bl.addMeta(p.id, "_tribe_ignored_event_previous_status", prevStatus)
	}
	bl.addMeta(p.id, "_wp_trash_meta_status", prevStatus)
	bl.addMeta(p.id, "_wp_trash_meta_time", strconv.FormatInt(created.Add(time.Hour).Unix(), 10))
	bl.addMeta(p.id, "_wp_desired_post_slug", strings.TrimSuffix(p.name, "__trashed"))
}

func linkedStatus(r float64) string {
	switch {
	case r < 0.02:
		return "draft"
	case r < 0.04:
		return "trash"
	}
	return "publish"
}

func digits(bl *builder, format string) string {
	var b strings.Builder
	for _, c := range format {
		if c == '#' {
			b.WriteByte(byte('0' + bl.r.IntN(10)))
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func (bl *builder) organizer(i int) {
	created := bl.tick()
	name := orgWords[bl.pick(len(orgWords))] + " " + orgNouns[bl.pick(len(orgNouns))] + " " + orgKinds[bl.pick(len(orgKinds))]
	status := linkedStatus(bl.r.Float64())
	if i == 0 {
		status = "publish" // events always find a published organizer
	}
	c := bl.pick(len(cities))
	p := bl.newPost("tribe_organizer", "organizer", name, status, created)
	p.content = ""
	if bl.chance(0.6) {
		p.content = "Organizer <b>" + name + "</b> runs events in " + cities[c].name + "."
	}
	revision := bl.chance(0.3)
	if revision {
		bl.edited(&p, created)
	}
	bl.addPost(p, revision)
	bl.cal.organizers = append(bl.cal.organizers, &linkedPost{id: p.id, status: status, city: c})

	slug := sanitizeTitle(name)
	var m metaSet
	m.add("_OrganizerOrigin", "events-calendar")
	if len(bl.b.images) > 0 && bl.chance(0.2) {
		m.add("_thumbnail_id", strconv.FormatInt(bl.b.images[bl.pick(len(bl.b.images))], 10))
	}
	m.add("_Organizerpost_date", "")
	m.add("_Organizerpost_date_gmt", "")
	m.add("_Organizerpost_status", "publish")
	m.add("_OrganizerDescription", stripTags(p.content))
	phone := ""
	if bl.chance(0.8) {
		phone = cities[c].phone + digits(bl, "####")
	}
	m.add("_OrganizerPhone", phone)
	web := ""
	if bl.chance(0.7) {
		web = "https://" + slug + ".example.com"
	}
	m.add("_OrganizerWebsite", web)
	m.add("_OrganizerEmail", "info@"+slug+".example.com")
	bl.writeMeta(p.id, &m, created)
	if status == "trash" {
		bl.trashMeta(&bl.cal.posts[len(bl.cal.posts)-1-b2i(revision)], created, "publish", false)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func stripTags(s string) string {
	return strings.NewReplacer("<b>", "", "</b>", "", "<p>", "", "</p>", "").Replace(s)
}

// writeMeta stores a post's meta rows after its _tribe_modified_fields, as the plugin saves them.
func (bl *builder) writeMeta(postID int64, m *metaSet, created time.Time) {
	// The origin comes first, then _tribe_modified_fields, then the other fields.
	bl.addMeta(postID, m.keys[0], m.values[0])
	bl.addMeta(postID, "_tribe_modified_fields", modifiedFields(m.keys, created.Unix()))
	for i := 1; i < len(m.keys); i++ {
		bl.addMeta(postID, m.keys[i], m.values[i])
	}
}

func (bl *builder) venue(i int) {
	created := bl.tick()
	c := i % len(cities)
	if i >= 2*len(cities) {
		c = bl.pick(len(cities))
	}
	ct := cities[c]
	name := venueWords[bl.pick(len(venueWords))] + " " + venueKinds[bl.pick(len(venueKinds))]
	if bl.chance(0.5) {
		name += " " + ct.name
	}
	status := linkedStatus(bl.r.Float64())
	if i == 0 {
		status = "publish"
	}
	p := bl.newPost("tribe_venue", "venue", name, status, created)
	if bl.chance(0.6) {
		p.content = "<p>" + name + " is a venue in " + ct.name + ".</p>"
	}
	revision := bl.chance(0.3)
	if revision {
		bl.edited(&p, created)
	}
	bl.addPost(p, revision)
	bl.cal.venues = append(bl.cal.venues, &linkedPost{id: p.id, status: status, city: c})

	slug := sanitizeTitle(name)
	var m metaSet
	m.add("_VenueOrigin", "events-calendar")
	show := boolMeta(bl.chance(0.5))
	m.add("_EventShowMapLink", show)
	m.add("_EventShowMap", show)
	m.add("_VenueShowMapLink", show)
	m.add("_VenueShowMap", show)
	if len(bl.b.images) > 0 && bl.chance(0.2) {
		m.add("_thumbnail_id", strconv.FormatInt(bl.b.images[bl.pick(len(bl.b.images))], 10))
	}
	m.add("_Venuepost_date", "")
	m.add("_Venuepost_date_gmt", "")
	m.add("_VenueDescription", stripTags(p.content))
	m.add("_VenueAddress", strconv.Itoa(1+bl.r.IntN(400))+" "+ct.streets[bl.pick(len(ct.streets))])
	m.add("_VenueCity", ct.name)
	m.add("_VenueCountry", ct.country)
	stateProvince := ct.province
	if ct.state != "" {
		m.add("_VenueState", ct.state)
		stateProvince = ct.state
	} else {
		m.add("_VenueProvince", ct.province)
	}
	m.add("_VenueZip", digits(bl, ct.zip))
	m.add("_VenuePhone", ct.phone+digits(bl, "####"))
	url := ""
	if bl.chance(0.8) {
		url = "https://" + slug + ".example.com"
	}
	m.add("_VenueURL", url)
	m.add("_VenueStateProvince", stateProvince)
	bl.writeMeta(p.id, &m, created)
	if bl.chance(0.9) { // geocoded later: the coordinates come after the other fields
		lat := ct.lat + (bl.r.Float64()-0.5)*0.1
		lng := ct.lng + (bl.r.Float64()-0.5)*0.1
		bl.addMeta(p.id, "_VenueLat", strconv.FormatFloat(math.Round(lat*1e4)/1e4, 'f', -1, 64))
		bl.addMeta(p.id, "_VenueLng", strconv.FormatFloat(math.Round(lng*1e4)/1e4, 'f', -1, 64))
	}
	if status == "trash" {
		bl.trashMeta(&bl.cal.posts[len(bl.cal.posts)-1-b2i(revision)], created, "publish", false)
	}
}

func boolMeta(b bool) string {
	if b {
		return "1"
	}
	return ""
}

// terms builds the category tree and the tags.
func (bl *builder) terms(nTags int) {
	for i, c := range categories {
		t := term{termID: bl.b.nextTerm, ttID: bl.b.nextTT, name: c.name, slug: c.slug, taxonomy: "tribe_events_cat",
			description: c.description, categoryIndex: i, isCategory: true}
		if c.parent >= 0 {
			t.parent = bl.cal.terms[c.parent].termID
		}
		bl.b.nextTerm++
		bl.b.nextTT++
		bl.cal.terms = append(bl.cal.terms, t)
	}
	for i := 0; i < nTags; i++ {
		w := tagWords[i%len(tagWords)]
		if q := i / len(tagWords); q > 0 {
			w += " " + tagQualifiers[q-1]
		}
		bl.cal.terms = append(bl.cal.terms, term{termID: bl.b.nextTerm, ttID: bl.b.nextTT, name: w, slug: sanitizeTitle(w), taxonomy: "post_tag"})
		bl.b.nextTerm++
		bl.b.nextTT++
	}
}

func eventStatus(r float64) string {
	switch {
	case r < 0.03:
		return "draft"
	case r < 0.05:
		return "pending"
	case r < 0.07:
		return "private"
	case r < 0.08:
		return "future"
	case r < 0.12:
		return "trash"
	}
	return "publish"
}

// content is an event description: block-editor paragraphs, classic text, or an HTML agenda.
func (bl *builder) content() string {
	n := 1 + bl.r.IntN(3)
	paras := make([]string, n)
	for i := range paras {
		paras[i] = paragraphs[bl.pick(len(paragraphs))]
	}
	if bl.chance(0.2) {
		paras[n-1] += ` More at <a href="https://example.com/info">our information page</a>.`
	}
	switch x := bl.r.Float64(); {
	case x < 0.4:
		var b strings.Builder
		for i, p := range paras {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString("<!-- wp:paragraph -->\n<p>" + p + "</p>\n<!-- /wp:paragraph -->")
		}
		return b.String()
	case x < 0.8:
		return strings.Join(paras, "\n\n")
	case x < 0.95:
		var b strings.Builder
		b.WriteString("<h2>Agenda</h2><ul>")
		for i := 0; i < 3; i++ {
			b.WriteString("<li>" + listItems[bl.pick(len(listItems))] + "</li>")
		}
		b.WriteString("</ul><p>" + paras[0] + "</p>")
		return b.String()
	}
	return ""
}

func (bl *builder) event(i int) {
	created := bl.tick()
	status := eventStatus(bl.r.Float64())
	ev := &Event{Status: status}

	// Categories first: they give the title its topic.
	nCats := 1 + b2i(bl.chance(0.3))
	for len(ev.Categories) < nCats {
		t := bl.pick(len(categories))
		if !containsID(ev.Categories, bl.cal.terms[t].termID) {
			ev.Categories = append(ev.Categories, bl.cal.terms[t].termID)
		}
	}
	topics := categories[bl.cal.termIndex(ev.Categories[0])].topics
	kind := eventKinds[bl.pick(len(eventKinds))]
	if bl.chance(0.01) {
		kind = searchWord
	}
	title := seasons[bl.pick(len(seasons))] + " " + topics[bl.pick(len(topics))] + " " + kind
	switch x := bl.r.Float64(); {
	case x < 0.02:
		title = `"` + title + `" & Friends`
	case x < 0.04:
		title = "The " + title + "'s Encore"
	}

	// Place and time.
	var zone string
	ev.Venue = 0
	if bl.chance(0.85) {
		v := bl.publishedLinked(bl.cal.venues, 1.6)
		ev.Venue = v.id
		zone = cities[v.city].zone
	} else if bl.chance(0.5) {
		zone = bl.b.siteZone.String()
	} else {
		zone = cities[bl.pick(len(cities))].zone
	}
	loc := bl.zone(zone)
	day := bl.o.Now.In(loc)
	day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc).AddDate(0, 0, bl.r.IntN(4*365)-2*365)
	var start, end time.Time
	if bl.chance(0.12) {
		ev.AllDay = true
		days := 0
		if bl.chance(0.25) {
			days = 1 + bl.r.IntN(3)
		}
		start = day
		end = time.Date(day.Year(), day.Month(), day.Day()+days, 23, 59, 59, 0, loc)
		ev.MultiDay = days > 0
	} else {
		start = time.Date(day.Year(), day.Month(), day.Day(), 8+bl.r.IntN(14), 15*bl.r.IntN(4), 0, 0, loc)
		hours := []int{1, 2, 2, 2, 3, 3, 4, 6}[bl.pick(8)]
		mins := 30 * bl.r.IntN(2)
		days := 0
		if bl.chance(0.06) {
			days = 1 + bl.r.IntN(4)
			ev.MultiDay = true
		}
		end = time.Date(start.Year(), start.Month(), start.Day()+days, start.Hour()+hours, start.Minute()+mins, 0, 0, loc)
	}
	if bl.chance(0.2) {
		title += " " + strconv.Itoa(start.Year())
	}
	ev.Title = title
	ev.Zone = zone
	ev.Start, ev.End = start.Format(dbTime), end.Format(dbTime)
	ev.StartUTC, ev.EndUTC = start.UTC().Format(dbTime), end.UTC().Format(dbTime)
	duration := int64(end.Sub(start) / time.Second)

	p := bl.newPost("tribe_events", "event", title, status, created)
	ev.ID = p.id
	ev.Slug = strings.TrimSuffix(p.name, "__trashed")
	p.content = bl.content()
	if bl.chance(0.25) {
		p.excerpt = []string{"Don't miss it!", "Short excerpt.", "Limited places — book now.", "A night to remember."}[bl.pick(4)]
	}
	if status == "publish" || status == "future" || status == "private" {
		ev.Sticky = bl.chance(0.02)
		if ev.Sticky {
			p.menuOrder = -1
		}
	}
	revision := bl.chance(0.3)
	if revision {
		bl.edited(&p, created)
	}
	bl.addPost(p, revision)

	// Meta, in the order the plugin saves them.
	var m metaSet
	m.add("_EventOrigin", "events-calendar")
	m.add("_EventShowMapLink", boolMeta(bl.chance(0.4)))
	m.add("_EventShowMap", boolMeta(bl.chance(0.3)))
	if ev.Venue != 0 {
		m.add("_EventVenueID", strconv.FormatInt(ev.Venue, 10))
	}
	nOrg := []int{0, 0, 1, 1, 1, 1, 1, 2, 2, 3}[bl.pick(10)]
	for len(ev.Organizers) < min(nOrg, len(bl.cal.organizers)) {
		o := bl.publishedLinked(bl.cal.organizers, 1.4).id
		if !containsID(ev.Organizers, o) {
			ev.Organizers = append(ev.Organizers, o)
			m.add("_EventOrganizerID", strconv.FormatInt(o, 10))
		}
	}
	if len(bl.b.images) > 0 && bl.chance(0.1) {
		m.add("_thumbnail_id", strconv.FormatInt(bl.b.images[bl.pick(len(bl.b.images))], 10))
	}
	if ev.AllDay {
		m.add("_EventAllDay", "1")
	}
	m.add("_EventStartDate", ev.Start)
	m.add("_EventEndDate", ev.End)
	m.add("_EventStartDateUTC", ev.StartUTC)
	m.add("_EventEndDateUTC", ev.EndUTC)
	if !ev.AllDay {
		m.add("_EventDuration", strconv.FormatInt(duration, 10))
	}
	if bl.chance(0.8) {
		c := costs[bl.pick(len(costs))]
		ct := cityOfZone(zone)
		if c != "Free" && c != "0" && bl.chance(0.3) {
			m.add("_EventCost", c)
			m.add("_EventCurrencySymbol", ct.symbol)
			pos := "prefix"
			if ct.postfix {
				pos = "suffix"
			}
			m.add("_EventCurrencyPosition", pos)
		} else {
			m.add("_EventCost", c)
		}
	}
	if bl.chance(0.5) {
		m.add("_EventURL", "https://events.example.com/e"+strconv.Itoa(i))
	}
	m.add("_EventTimezone", zone)
	m.add("_EventTimezoneAbbr", calendard.ZoneAbbr(zone, loc, ev.Start))
	if bl.chance(0.08) {
		ev.Featured = true
		m.add("_tribe_featured", "1")
	}
	if bl.chance(0.01) {
		ev.Hidden = true
		m.add("_EventHideFromUpcoming", "yes")
	}
	bl.writeMeta(p.id, &m, created)
	if status == "trash" {
		bl.trashMeta(&bl.cal.posts[len(bl.cal.posts)-1-b2i(revision)], created, "publish", true)
	}

	// Tags, relationships and the plugin's tables.
	nTags := []int{0, 0, 0, 1, 1, 1, 1, 2, 2, 2}[bl.pick(10)]
	tags := bl.cal.terms[len(categories):]
	for len(ev.Tags) < min(nTags, len(tags)) {
		t := tags[bl.skewed(len(tags), 2)].termID
		if !containsID(ev.Tags, t) {
			ev.Tags = append(ev.Tags, t)
		}
	}
	for _, t := range append(append([]int64{}, ev.Categories...), ev.Tags...) {
		tm := &bl.cal.terms[bl.cal.termIndex(t)]
		bl.cal.rels = append(bl.cal.rels, rel{object: p.id, tt: tm.ttID})
		tm.events++
		if status == "publish" {
			tm.published++
		}
	}
	updated := created.UTC().Format(dbTime)
	te := tecEvent{eventID: bl.b.nextTECEvent, postID: p.id, start: ev.Start, end: ev.End, zone: zone,
		startUTC: ev.StartUTC, endUTC: ev.EndUTC, duration: duration, updated: updated}
	bl.b.nextTECEvent++
	bl.cal.tecEvents = append(bl.cal.tecEvents, te)
	occ := &calendard.OccurrenceRow{EventID: te.eventID, PostID: p.id, StartDate: ev.Start, StartDateUTC: ev.StartUTC,
		EndDate: ev.End, EndDateUTC: ev.EndUTC, Duration: duration}
	bl.cal.occurrences = append(bl.cal.occurrences, occurrence{id: bl.b.nextOccurrence, eventID: te.eventID, postID: p.id,
		start: ev.Start, startUTC: ev.StartUTC, end: ev.End, endUTC: ev.EndUTC, duration: duration,
		hash: calendard.OccurrenceHash(occ), updated: updated})
	bl.b.nextOccurrence++
	if status == "publish" {
		if ev.Venue != 0 {
			bl.cal.linked(ev.Venue).events++
		}
		for _, o := range ev.Organizers {
			bl.cal.linked(o).events++
		}
	}
	bl.cal.events = append(bl.cal.events, ev)
}

// publishedLinked picks a published venue or organizer, popular ones more often.
func (bl *builder) publishedLinked(ps []*linkedPost, power float64) *linkedPost {
	for {
		p := ps[bl.skewed(len(ps), power)]
		if p.status == "publish" {
			return p
		}
	}
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func (c *calendar) termIndex(termID int64) int {
	return int(termID - c.terms[0].termID)
}

func (c *calendar) linked(id int64) *linkedPost {
	for _, l := range [][]*linkedPost{c.venues, c.organizers} {
		if len(l) > 0 && id >= l[0].id && id <= l[len(l)-1].id {
			i := sort.Search(len(l), func(i int) bool { return l[i].id >= id })
			if i < len(l) && l[i].id == id {
				return l[i]
			}
		}
	}
	panic(fmt.Sprintf("gen: no linked post %d", id))
}

// zone loads a time zone once per build.
func (bl *builder) zone(name string) *time.Location {
	if l, ok := bl.zones[name]; ok {
		return l
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		panic(err) // the zones are the cities' and the site's, loaded before
	}
	bl.zones[name] = l
	return l
}

func cityOfZone(zone string) city {
	for _, c := range cities {
		if c.zone == zone {
			return c
		}
	}
	return cities[0]
}

// finish computes term counts, the plugin's known date range and the mix placeholders.
func (bl *builder) finish() {
	c := bl.cal
	for i := range c.terms {
		c.terms[i].count = c.terms[i].published
	}
	now := bl.o.Now.UTC().Format(dbTime)
	for _, ev := range c.events {
		if ev.Status != "publish" && ev.Status != "private" {
			continue
		}
		switch {
		case c.earliest == "" || ev.Start < c.earliest:
			c.earliest, c.earliestIDs = ev.Start, []int64{ev.ID}
		case ev.Start == c.earliest:
			c.earliestIDs = append(c.earliestIDs, ev.ID)
		}
		switch {
		case c.latest == "" || ev.End > c.latest:
			c.latest, c.latestIDs = ev.End, []int64{ev.ID}
		case ev.End == c.latest:
			c.latestIDs = append(c.latestIDs, ev.ID)
		}
		if ev.Status == "publish" && ev.EndUTC >= now {
			c.upcomingPubl++
		}
		if ev.Status == "publish" && strings.Contains(ev.Title, searchWord) {
			c.searchHits++
		}
	}

	// A published event some weeks ahead: the single-event lines.
	soon := bl.o.Now.Add(21 * 24 * time.Hour).UTC().Format(dbTime)
	var single *Event
	for _, ev := range c.events {
		if ev.Status == "publish" && ev.StartUTC >= soon && (single == nil || ev.StartUTC < single.StartUTC) {
			single = ev
		}
	}
	if single != nil {
		c.picks["event_id"] = strconv.FormatInt(single.ID, 10)
		c.picks["event_slug"] = single.Slug
	}
	c.picks["venue_id"] = strconv.FormatInt(medianLinked(c.venues), 10)
	c.picks["organizer_id"] = strconv.FormatInt(medianLinked(c.organizers), 10)
	c.picks["category_slug"] = categories[0].slug // a parent: the filter widens to its children
	tags := append([]term(nil), c.terms[len(categories):]...)
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].count > tags[j].count })
	c.picks["tag_slug"] = tags[min(3, len(tags)-1)].slug
	c.picks["search"] = strings.ToLower(searchWord)

	// Windows relative to the anchor, in the site's zone: next month, next week, the past year.
	local := bl.o.Now.In(bl.b.siteZone)
	month := time.Date(local.Year(), local.Month()+1, 1, 0, 0, 0, 0, bl.b.siteZone)
	c.picks["month_start"] = month.Format("2006-01-02")
	c.picks["month_end"] = month.AddDate(0, 1, -1).Format("2006-01-02") + " 23:59:59"
	monday := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, bl.b.siteZone)
	monday = monday.AddDate(0, 0, (8-int(monday.Weekday()))%7)
	if monday.Equal(time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, bl.b.siteZone)) {
		monday = monday.AddDate(0, 0, 7)
	}
	c.picks["week_start"] = monday.Format("2006-01-02")
	c.picks["week_end"] = monday.AddDate(0, 0, 6).Format("2006-01-02") + " 23:59:59"
	c.picks["past_start"] = local.AddDate(-1, 0, 0).Format("2006-01-02")
	c.picks["past_end"] = local.Format("2006-01-02")
}

// medianLinked is the published venue or organizer with the median number of published events.
func medianLinked(ls []*linkedPost) int64 {
	var pub []*linkedPost
	for _, l := range ls {
		if l.status == "publish" {
			pub = append(pub, l)
		}
	}
	if len(pub) == 0 {
		return 0
	}
	sort.SliceStable(pub, func(i, j int) bool { return pub[i].events > pub[j].events })
	return pub[len(pub)/2].id
}
