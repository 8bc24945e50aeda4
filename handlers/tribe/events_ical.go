package tribe

import (
	"net/http"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/handlers/ical"
	"github.com/calendard/calendard/internal/php"
)

// icalAsked reports an events list asked for as iCalendar: Accept naming text/calendar, or
// format=ical in the query (neither the plugin nor WordPress reads format on this route).
func icalAsked(r *handlers.Request) bool {
	if handlers.AcceptsCalendar(r.Accept) {
		return true
	}
	v, _ := r.QueryParams().Get("format")
	s, _ := php.String(v)
	return s == "ical"
}

// listICal answers the list's query as the plugin's iCal export: every page of it from the first
// (page and per_page are ignored), up to icalMax events. Last-Modified is the newest
// post_modified_gmt of the listed events; the HTTP layer adds the ETag and answers the
// conditional requests (httpcache.go).
func (h *eventsHandler) listICal(r *handlers.Request, q *eventList) (*handlers.Response, error) {
	f := q.f
	f.Offset, f.Limit = 0, h.icalMax
	events, total, err := h.findEvents(r, r.Site, f)
	if err != nil {
		return nil, err
	}
	if len(events) > h.icalMax {
		events = events[:h.icalMax]
	}
	var newest time.Time
	for _, e := range events {
		if t, err := time.Parse(calendard.DBDateTime, e.ModifiedGMT); err == nil && t.After(newest) {
			newest = t
		}
	}
	body, name := ical.Events(r.Site, events, r.Now)
	resp := &handlers.Response{Status: 200, ContentType: "text/calendar; charset=UTF-8", Raw: body}
	resp.Header("Content-Disposition", `attachment; filename="`+name+`"`)
	// X-TEC-Total above the number of VEVENTs says the cap cut the list.
	resp.Header("X-TEC-Total", handlers.Itoa(int64(total)))
	if newest.Unix() > 0 {
		resp.Header("Last-Modified", newest.UTC().Format(http.TimeFormat))
	}
	return resp, nil
}
