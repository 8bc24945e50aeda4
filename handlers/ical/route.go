package ical

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/calendard/calendard/internal/php"
)

// request is what an export URL asks for: the page (view, taxonomy term, date, single event) and
// the query's export arguments.
type request struct {
	export  bool
	outlook bool
	// icalOne: ical=1 exactly (the single-event export needs it).
	icalOne bool
	rewrite bool // the path ended in /ical/

	segs  []string // path segments, percent-encoding kept (slugs are stored encoded)
	query url.Values
	order [][2]string // the query pairs in order

	eventIDs    []string
	hasEventIDs bool
}

var (
	dayRe   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	monthRe = regexp.MustCompile(`^\d{4}-\d{2}$`)
)

func parseRequest(u *url.URL) *request {
	r := &request{query: url.Values{}}
	for _, part := range strings.Split(u.RawQuery, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		// As PHP decodes its query: a malformed escape stays as written, where url.QueryUnescape
		// fails and gives "".
		k, v = php.URLDecode(k), php.URLDecode(v)
		r.order = append(r.order, [2]string{k, v})
		r.query[k] = append(r.query[k], v)
	}
	for _, s := range strings.Split(u.EscapedPath(), "/") {
		if s != "" {
			r.segs = append(r.segs, strings.ToLower(s))
		}
	}
	if n := len(r.segs); n > 0 && r.segs[n-1] == "ical" {
		r.rewrite = true
		r.segs = r.segs[:n-1]
	} else if n > 1 && r.segs[n-2] == "ical" && r.segs[n-1] == "featured" {
		// /<date>/ical/featured/: the rewrite rule reads the trailing featured too.
		r.rewrite = true
		r.segs = append(r.segs[:n-2], "featured")
	}
	_, ical := r.query["ical"]
	_, outlook := r.query["outlook-ical"]
	r.outlook = outlook
	r.icalOne = r.query.Get("ical") == "1"
	r.export = ical || outlook || r.rewrite
	if v, ok := r.query["event_ids"]; ok {
		r.hasEventIDs = true
		for _, s := range strings.Split(v[0], ",") {
			if s = strings.TrimSpace(s); s != "" {
				r.eventIDs = append(r.eventIDs, s)
			}
		}
	}
	if v, ok := r.query["event_ids[]"]; ok {
		r.hasEventIDs = true
		for _, s := range v {
			if s = strings.TrimSpace(s); s != "" {
				r.eventIDs = append(r.eventIDs, s)
			}
		}
	}
	return r
}

// page is the calendar page a URL names.
type page struct {
	kind     string // "list", "past", "month", "day", "single", "home" (no calendar view)
	slug     string // single event slug
	taxonomy string // category or tag archive
	term     string
	date     string // the view date as given (path or tribe-bar-date/eventDate)
	pageNum  int
	featured bool
	postID   int64 // ?p=
}

// readPage follows the site's pretty permalinks (events base, single base, category and tag bases)
// and the plugin's query variables.
func (r *request) readPage(eventsSlug, eventSlug, categoryBase, tagBase string) page {
	p := page{kind: "home", pageNum: 1}
	q := r.query
	segs := r.segs
	calendar := q.Get("post_type") == "tribe_events"
	if v := q.Get("tribe_events"); v != "" {
		return page{kind: "single", slug: strings.ToLower(url.PathEscape(v)), pageNum: 1}
	}
	if v := q.Get("p"); v != "" {
		id, _ := strconv.ParseInt(v, 10, 64)
		p.postID = id
		return p
	}
	catSegs := strings.Split(strings.Trim(categoryBase, "/"), "/")
	switch {
	case len(segs) >= 2 && segs[0] == eventSlug:
		return page{kind: "single", slug: segs[1], pageNum: 1}
	case len(segs) >= len(catSegs)+1 && strings.Join(segs[:len(catSegs)], "/") == strings.Join(catSegs, "/"):
		p.taxonomy, p.term = "tribe_events_cat", segs[len(catSegs)]
		segs = segs[len(catSegs)+1:]
		calendar = true
	case len(segs) >= 3 && segs[0] == eventsSlug && segs[1] == "tag":
		p.taxonomy, p.term = "post_tag", segs[2]
		segs = segs[3:]
		calendar = true
	case len(segs) >= 2 && segs[0] == tagBase:
		p.taxonomy, p.term = "post_tag", segs[1]
		segs = segs[2:]
		calendar = true
	case len(segs) >= 1 && segs[0] == eventsSlug:
		segs = segs[1:]
		calendar = true
	case len(segs) > 0:
		return p // another page of the site: the list export
	}
	if !calendar {
		return p
	}
	p.kind = "list"
	if v := q.Get("tribe_events_cat"); v != "" && p.taxonomy == "" {
		p.taxonomy, p.term = "tribe_events_cat", strings.ToLower(v)
	}
	for i := 0; i < len(segs); i++ {
		s := segs[i]
		switch {
		case s == "list":
			p.kind = "list"
		case s == "month":
			p.kind = "month"
		case s == "day":
			p.kind = "day"
		case s == "today":
			p.kind = "day"
		case s == "featured":
			p.featured = true
		case s == "page" && i+1 < len(segs):
			p.pageNum, _ = strconv.Atoi(segs[i+1])
			i++
		case dayRe.MatchString(s):
			p.kind, p.date = "day", s
		case monthRe.MatchString(s):
			p.kind, p.date = "month", s
		}
	}
	switch q.Get("eventDisplay") {
	case "past":
		p.kind = "past"
	case "day":
		p.kind = "day"
	case "month":
		p.kind = "month"
	}
	if p.date == "" {
		if v := q.Get("tribe-bar-date"); v != "" {
			p.date = v
		} else if v := q.Get("eventDate"); v != "" {
			p.date = v
		}
	}
	if v := q.Get("paged"); v != "" {
		p.pageNum, _ = strconv.Atoi(v)
	}
	if p.pageNum < 1 {
		p.pageNum = 1
	}
	if q.Get("featured") != "" && q.Get("featured") != "0" {
		p.featured = true
	}
	return p
}
