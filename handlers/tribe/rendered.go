package tribe

import (
	"github.com/maypok86/otter/v2"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/phpjson"
)

// renderedRecords keeps the encoded JSON of event list records rendered for anonymous callers, so a
// record is rendered (text filters, cost, dates, embedded venue and organizers) and encoded once per
// change of the calendar rather than once per request. An entry is used only by requests that began
// at the change-feed generation it was rendered at and with the same site settings, so it is never
// staler than a fresh rendering. Records whose rendering used the request's shortcode counters
// ([audio], [video], ...) depend on what the page rendered before them and are not kept.
type renderedRecords struct {
	gen   func() uint64
	cache *otter.Cache[renderedKey, renderedRecord]
}

// records render the plugin's event records and keep the list records anonymous callers share.
type records struct {
	// strictReads embeds in events only the venues and organizers the caller may read
	// (Config.StrictReads).
	strictReads bool
	rendered    *renderedRecords
}

type renderedKey struct {
	ns string
	id int64
}

type renderedRecord struct {
	gen  uint64
	site *calendard.Site
	json phpjson.Raw
}

// newRenderedRecords returns a cache of at most maxBytes of JSON (0: 64 MiB), or nil (no caching) when there is
// no generation to tag entries with.
func newRenderedRecords(gen func() uint64, maxBytes int) *renderedRecords {
	if maxBytes == 0 {
		maxBytes = 64 << 20
	}
	if gen == nil || maxBytes <= 0 {
		return nil
	}
	return &renderedRecords{gen: gen, cache: otter.Must(&otter.Options[renderedKey, renderedRecord]{
		MaximumWeight: uint64(maxBytes),
		Weigher:       func(_ renderedKey, v renderedRecord) uint32 { return uint32(len(v.json)) + 64 },
	})}
}

// generation is the feed generation to read before loading the records a request renders (0 when
// nothing is cached).
func (rs *records) generation() uint64 {
	if c := rs.rendered; c != nil {
		return c.gen()
	}
	return 0
}

// listEventRecord is an event's list record: from the cache when the request may share it, else
// rendered (and redacted when password-protected).
func (rs *records) listEventRecord(r *handlers.Request, e *calendard.Event, gen uint64) any {
	if e.HasPassword() {
		rec := rs.eventRecord(r, e, false)
		if !unlocked(r, e.Post) {
			redact(rec)
		}
		return rec
	}
	return rs.sharedListRecord(r, e.Post, gen, func() *phpjson.Object { return rs.eventRecord(r, e, false) })
}

// sharedListRecord is the list record of p (an event, venue or organizer: post IDs are unique
// across types), through the cache when an anonymous request may share it: kept when rendered at
// gen with the same site settings, else rendered by render and kept.
func (rs *records) sharedListRecord(r *handlers.Request, p *calendard.Post, gen uint64, render func() *phpjson.Object) any {
	c := rs.rendered
	if c == nil || r.User.LoggedIn() || p.HasPassword() || r.QueryHas("_fields") || r.QueryHas("password") {
		return render()
	}
	key := renderedKey{ns: r.NS, id: p.ID}
	if v, ok := c.cache.GetIfPresent(key); ok && v.gen == gen && v.site == r.Site {
		return v.json
	}
	before := r.Render.Instances()
	rec := render()
	if r.Render.Instances() != before {
		return rec
	}
	raw, err := phpjson.Marshal(rec)
	if err != nil {
		return rec
	}
	c.cache.Set(key, renderedRecord{gen: gen, site: r.Site, json: raw})
	return phpjson.Raw(raw)
}
