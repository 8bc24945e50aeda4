package ical

import (
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/wptext"
)

// Events writes events as the plugin's iCal export of them (the ICS text and its attachment file
// name), for the REST events list asked for as text/calendar. The format lives in writer.go alone.
// Password-protected content is withheld as the export withholds it. Unlike the plugin's export,
// truthy all-day flags and VTIMEZONE transition times follow RFC 5545 (feed.rfc).
func Events(site *calendard.Site, events []*calendard.Event, now time.Time) (body []byte, filename string) {
	f := &feed{site: site, now: now, rc: wptext.NewRenderContext(site.HomeURL),
		content: func(p *calendard.Post) bool { return p.Password == "" }, rfc: true}
	f.items = make([]item, len(events))
	for i, e := range events {
		f.items[i] = item{post: e.Post, event: e}
	}
	return []byte(f.write()), f.filename()
}
