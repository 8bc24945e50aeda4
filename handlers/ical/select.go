package ical

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
)

// feedLimit is the plugin's feed_default_export_count: at most this many events per export.
const feedLimit = 30

// resolve picks the answer of an export request.
func (h *Handler) resolve(ctx context.Context, site *calendard.Site, user *calendard.User, pr *request, now time.Time) (*answer, error) {
	pg := pr.readPage(site.EventsSlug, site.EventSlug, site.CategoryBase, site.TagBase)
	f := newFeed(site, pr, user, now)
	readPrivate := user.Can(calendard.CapsOf(calendard.PostTypeEvent).ReadPrivate)
	f.content = func(p *calendard.Post) bool { return p.Password == "" }

	if pr.hasEventIDs {
		return h.byIDs(ctx, site, user, pr, pg, f, now)
	}
	// A page whose WordPress query found nothing (an unknown, hidden or trashed single) still
	// answers the list export, with WordPress' 404 no-cache headers.
	notFound := false
	if pg.postID != 0 {
		if a, ok, err := h.byPostID(ctx, site, user, pr, pg); ok || err != nil {
			return a, err
		}
		pg, notFound = page{kind: "home", pageNum: 1}, true
	}
	if len(pr.segs) == 0 && pg.taxonomy == "tribe_events_cat" && pr.query.Get("tribe_events_cat") != "" {
		// redirect_canonical: the category query variable becomes the category's archive path.
		loc := site.HomeURL + "/" + strings.Trim(site.CategoryBase, "/") + "/" + pg.term + "/"
		if rest := queryTail(pr.order, func(name string) bool { return name != "tribe_events_cat" }); rest != "" {
			loc += "?" + rest
		}
		return &answer{status: 301, location: loc}, nil
	}
	if pg.kind == "single" {
		ev, err := h.single(ctx, pg.slug)
		if err != nil {
			return nil, err
		}
		if ev != nil && pr.icalOne && h.canExport(user, ev.Post) {
			f.items = []item{{post: ev.Post, event: ev}}
			f.global = ev
			return &answer{status: 200, feed: f, noCache: ev.Password != ""}, nil
		}
		if ev == nil || !foundByMainQuery(user, ev.Post) {
			loc, ok, err := h.guessRedirect(ctx, site, pr, pg.slug)
			if err != nil {
				return nil, err
			}
			if ok {
				return &answer{status: 301, location: loc, noCache: true}, nil
			}
		}
		// WordPress found the event (a published one asked for without ical=1): no 404 headers.
		notFound = ev == nil || !h.canExport(user, ev.Post)
		pg = page{kind: "home", pageNum: 1}
	}
	statuses := []string{"publish"}
	if readPrivate {
		statuses = append(statuses, "private")
	}
	filter := calendard.EventFilter{Statuses: statuses}
	if pg.taxonomy != "" {
		ids, ok, err := h.termIDs(ctx, pg.taxonomy, pg.term)
		if err != nil {
			return nil, err
		}
		if !ok {
			return &answer{status: 404, noCache: true}, nil
		}
		if pg.taxonomy == calendard.TaxonomyCategory {
			filter.CategoryIDs = ids
		} else {
			filter.TagIDs = ids
		}
	}
	if pg.featured {
		if pg.taxonomy != "" && pr.rewrite {
			// No rewrite rule reads featured/ical/ under a term archive: WordPress' 404.
			return &answer{status: 404, noCache: true, noRobots: true}, nil
		}
		if pg.kind == "month" || pg.kind == "day" {
			return &answer{status: 200}, nil
		}
		t := true
		filter.Featured = &t
	}
	if s := pr.query.Get("tribe-bar-search"); s != "" {
		filter.Search = calendard.ParseSearch(s)
	} else if s := pr.query.Get("s"); s != "" {
		filter.Search = calendard.ParseSearch(s)
	}
	filter.SearchAnonymous = !user.LoggedIn()
	loc := site.Location
	if loc == nil {
		loc = time.UTC
	}
	localNow := now.In(loc)
	db := func(t time.Time) *string { s := t.Format(calendard.DBDateTime); return &s }
	var events []*calendard.Event
	var err error
	switch pg.kind {
	case "month":
		month, ok := parseDate(pg.date, localNow)
		if !ok {
			month = localNow
		}
		first := time.Date(month.Year(), month.Month(), 1, 0, 0, 0, 0, loc)
		if month.Year() == localNow.Year() && month.Month() == localNow.Month() {
			// The current month: what has not ended by the start of today, to the month's end.
			today := time.Date(localNow.Year(), localNow.Month(), localNow.Day(), 0, 0, 0, 0, loc)
			filter.EndsAfter = db(today.Add(-time.Second))
			filter.StartsBefore = db(first.AddDate(0, 1, 0))
		} else {
			// Another month: the events overlapping it.
			filter.EndsAfter = db(first.Add(-time.Second))
			filter.StartsBefore = db(first.AddDate(0, 1, 0))
		}
		filter.Limit = 10000
		events, _, err = h.deps.Events.FindEvents(ctx, site, filter)
	case "day":
		day := localNow
		if pg.date != "" {
			d, ok := parseDate(pg.date, localNow)
			if !ok || d.Format("2006-01-02") != pg.date && dayRe.MatchString(pg.date) && !pr.query.Has("tribe-bar-date") {
				return &answer{status: 200}, nil
			}
			day = d
		}
		start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
		filter.EndsAfter = db(start.Add(-time.Second))
		filter.StartsBefore = db(start.Add(24 * time.Hour))
		filter.Limit = feedLimit
		events, _, err = h.deps.Events.FindEvents(ctx, site, filter)
		if err == nil && len(events) == 0 {
			return &answer{status: 404}, nil
		}
	case "past":
		at := localNow
		if d, ok := parseDate(pg.date, localNow); ok {
			at = d
		}
		filter.EndsBefore = db(at)
		filter.Limit = 100000
		events, _, err = h.deps.Events.FindEvents(ctx, site, filter)
		slices.Reverse(events)
		events = window(events, (pg.pageNum-1)*site.PerPage, feedLimit)
	default:
		at := localNow
		if d, ok := parseDate(pg.date, localNow); ok && pg.kind == "list" {
			at = d
		}
		filter.EndsAfter = db(at)
		filter.Offset = (pg.pageNum - 1) * site.PerPage
		filter.Limit = feedLimit
		events, _, err = h.deps.Events.FindEvents(ctx, site, filter)
	}
	if err != nil {
		return nil, err
	}
	for _, ev := range events {
		f.items = append(f.items, item{post: ev.Post, event: ev})
	}
	if len(f.items) == 0 {
		return &answer{status: 200, noCache: notFound}, nil
	}
	f.global, err = h.globalPost(ctx, site, filter)
	if err != nil {
		return nil, err
	}
	return &answer{status: 200, feed: f, noCache: notFound}, nil
}

func window(events []*calendard.Event, offset, limit int) []*calendard.Event {
	if offset >= len(events) {
		return nil
	}
	events = events[offset:]
	if len(events) > limit {
		events = events[:limit]
	}
	return events
}

// globalPost is the first post of the page's own WordPress query (archiveFirst): the post the
// plugin's venue template tags fall back to.
func (h *Handler) globalPost(ctx context.Context, site *calendard.Site, f calendard.EventFilter) (*calendard.Event, error) {
	return h.archiveFirst(ctx, site, f)
}

// canExport is has_access_to_see_event_exists: published, or private and readable by the user.
func (h *Handler) canExport(user *calendard.User, p *calendard.Post) bool {
	switch p.Status {
	case "publish":
		return true
	case "private":
		return user.CanReadPost(&calendard.PostRef{ID: p.ID, Type: p.Type, Status: p.Status, Author: p.Author})
	}
	return false
}

func (h *Handler) single(ctx context.Context, slug string) (*calendard.Event, error) {
	posts, err := h.deps.Posts.PostsByName(ctx, slug, calendard.PostTypeEvent)
	if err != nil || len(posts) == 0 {
		return nil, err
	}
	for _, p := range posts {
		if p.Status == "trash" {
			continue
		}
		return h.deps.Events.EventByID(ctx, p.ID)
	}
	return nil, nil
}

// byPostID answers ?p=<id> (with or without post_type): a published event redirects to its
// permalink; a post the user may preview answers an empty export. ok false: the list export.
func (h *Handler) byPostID(ctx context.Context, site *calendard.Site, user *calendard.User, pr *request, pg page) (*answer, bool, error) {
	p, err := h.deps.Posts.PostByID(ctx, pg.postID)
	if err != nil || p == nil || p.Type != calendard.PostTypeEvent {
		return nil, false, err
	}
	ref := &calendard.PostRef{ID: p.ID, Type: p.Type, Status: p.Status, Author: p.Author}
	switch {
	case p.Status == "publish":
		loc := site.Permalink(p, false) + "?ical=1"
		return &answer{status: 301, location: loc, noCache: pr.query.Get("post_type") == ""}, true, nil
	case (p.Status == "future" || (p.Status == "draft" && pr.query.Get("preview") == "true")) && user.CanEditPost(ref):
		return &answer{status: 200}, true, nil
	}
	return nil, false, nil
}

// byIDs is the event_ids export: each ID after the access check; an unknown or non-numeric one is
// the page's current global post.
func (h *Handler) byIDs(ctx context.Context, site *calendard.Site, user *calendard.User, pr *request, pg page, f *feed, now time.Time) (*answer, error) {
	statuses := []string{"publish"}
	if user.Can(calendard.CapsOf(calendard.PostTypeEvent).ReadPrivate) {
		statuses = append(statuses, "private")
	}
	global, err := h.pageGlobal(ctx, site, user, pg, statuses)
	if err != nil {
		return nil, err
	}
	f.global = global
	for _, s := range pr.eventIDs {
		id, err := strconv.ParseInt(s, 10, 64)
		var p *calendard.Post
		if err == nil {
			if p, err = h.deps.Posts.PostByID(ctx, id); err != nil {
				return nil, err
			}
		}
		if p == nil {
			if global == nil {
				continue
			}
			p = global.Post
		}
		if !h.canExport(user, p) {
			continue
		}
		it := item{post: p}
		if p.Type == calendard.PostTypeEvent {
			ev, err := h.deps.Events.EventByID(ctx, p.ID)
			if err != nil {
				return nil, err
			}
			if ev != nil {
				it = item{post: ev.Post, event: ev}
			}
		}
		f.items = append(f.items, it)
	}
	if len(f.items) == 0 {
		return &answer{status: 200}, nil
	}
	return &answer{status: 200, feed: f}, nil
}

// termIDs is the term of an archive with its descendants (categories); ok false: no such term.
func (h *Handler) termIDs(ctx context.Context, taxonomy, slug string) ([]int64, bool, error) {
	terms, err := h.deps.Terms.TermsOf(ctx, taxonomy)
	if err != nil {
		return nil, false, err
	}
	for _, t := range terms {
		if strings.EqualFold(t.Slug, slug) {
			if taxonomy == calendard.TaxonomyCategory {
				return calendard.NewTermTree(terms).WithDescendants([]int64{t.ID}), true, nil
			}
			return []int64{t.ID}, true, nil
		}
	}
	return nil, false, nil
}

var dateRe = regexp.MustCompile(`^(\d{4})-(\d{1,2})(?:-(\d{1,2}))?$`)

// parseDate reads a view date as the plugin's date objects do: YYYY-MM-DD or YYYY-MM, days past a
// month's end overflowing into the next (PHP); anything else is not a date.
func parseDate(s string, now time.Time) (time.Time, bool) {
	m := dateRe.FindStringSubmatch(s)
	if m == nil {
		return now, false
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	d := 1
	if m[3] != "" {
		d, _ = strconv.Atoi(m[3])
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return now, false
	}
	return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, now.Location()), true
}
