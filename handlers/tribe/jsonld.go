package tribe

import (
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/cost"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/phpserial"
	"github.com/calendard/calendard/internal/wptext"
)

// ldVisible is the JSON-LD generator's gate (Tribe__JSON_LD__Abstract::get_data): password-protected
// posts never qualify (the REST password parameter does not count, only WordPress' cookie);
// visitors need a published post; logged-in users need current_user_can('read_private_posts') for
// a private post and current_user_can('read') for any other status. Both are primitive
// capabilities, so map_meta_cap ignores the post: an author gets no JSON-LD for their own private
// event, while any reader (a contributor too) gets it for a draft they may read.
func ldVisible(r *handlers.Request, p *calendard.Post) bool {
	if p.HasPassword() {
		return false
	}
	if !r.User.LoggedIn() {
		return p.Status == "publish"
	}
	if p.Status == "private" {
		return r.User.Can("read_private_posts")
	}
	return r.User.Can("read")
}

// eventJSONLD builds the schema.org Event of a single-event answer, or nil when it is not generated.
func eventJSONLD(r *handlers.Request, e *calendard.Event) *phpjson.Object {
	if !ldVisible(r, e.Post) {
		return nil
	}
	site := r.Site
	m := e.Meta
	permalink := ldLink(r.Permalink(e.Post))
	o := phpjson.Obj("@context", "http://schema.org", "@type", "Event",
		"name", ldName(e.Post), "description", wptext.JSONLDDescription(e.Excerpt, e.Content))
	if e.Image != nil {
		o.Set("image", attachmentURL(r, e.Image))
	}
	o.Set("url", permalink)
	o.Set("eventAttendanceMode", "https://schema.org/OfflineEventAttendanceMode")
	status := "https://schema.org/EventScheduled"
	switch m.Value("_tribe_events_status") {
	case "canceled":
		status = "https://schema.org/EventCancelled"
	case "postponed":
		status = "https://schema.org/EventPostponed"
	}
	o.Set("eventStatus", status)
	tz := m.Value("_EventTimezone")
	if tz == "" || site.TimezoneModeSite {
		tz = site.TimezoneString
	}
	start, end := m.Value("_EventStartDate"), m.Value("_EventEndDate")
	// An event without dates (one created through wp/v2 without meta): the plugin's date object of
	// "" is now, and the UTC wall clock is shown with the zone's offset.
	if start == "" {
		start = r.Now.UTC().Format(calendard.DBDateTime)
	}
	if end == "" {
		end = r.Now.UTC().Format(calendard.DBDateTime)
	}
	o.Set("startDate", ldDate(start, tz))
	o.Set("endDate", ldDate(end, tz))
	if len(e.Venues) > 0 {
		if place := placeJSONLD(r, e.Venues[0]); place != nil {
			o.Set("location", place)
		} else {
			o.Set("location", false)
		}
	}
	if len(e.Organizers) > 0 {
		if person := personJSONLD(r, e.Organizers[0]); person != nil {
			o.Set("organizer", person)
		} else {
			o.Set("organizer", false)
		}
	}
	if price, ok := cost.OfferPrice(m["_EventCost"], m.Value("_EventCurrencySymbol"), m.Value("_EventCurrencyPosition"), costSettings(site)); ok {
		code := cost.PriceCurrency(m.Value("_EventCurrencyCode"), costSettings(site))
		o.Set("offers", phpjson.Obj("@type", "Offer", "price", price, "priceCurrency", code, "url", permalink,
			"category", "primary", "availability", "inStock", "validFrom", validFrom(e.Date)))
	}
	o.Set("performer", "Organization")
	return o
}

// ldName is esc_js(get_the_title()): unlike the REST title it carries the "Private: " and
// "Protected: " prefixes.
func ldName(p *calendard.Post) string {
	return wptext.JSONLDText(wptext.GetTheTitle(p.Title, p.Status, p.HasPassword()))
}

// ldLink is the event link TEC's JSON-LD uses (getLink('single')): the permalink with a trailing
// slash, passed through add_query_arg (which re-encodes a query string) and slashed again, so plain
// permalinks come out as "...&p=35%2F/".
func ldLink(permalink string) string {
	return trailingSlash(handlers.AddQueryArg(trailingSlash(permalink), nil))
}

func trailingSlash(s string) string { return strings.TrimRight(s, `/\`) + "/" }

// validFrom is the publication day at midnight UTC in ATOM format.
func validFrom(postDate string) string {
	d := postDate
	if len(d) >= 10 {
		d = d[:10]
	}
	t, err := time.Parse("2006-01-02", d)
	if err != nil {
		t = time.Unix(0, 0).UTC()
	}
	return t.Format("2006-01-02T15:04:05-07:00")
}

// ldDate renders an event date for JSON-LD: ISO 8601 with the zone's offset for named zones; for
// "UTC+N" offset zones the plugin instead subtracts the offset and prints a DB datetime.
func ldDate(local, tz string) string {
	t, err := time.Parse(calendard.DBDateTime, local)
	if err != nil {
		return local
	}
	tz = strings.TrimSpace(tz)
	if strings.HasPrefix(tz, "UTC") && len(tz) > 3 {
		off := tz[3:]
		if secs, ok := wholeHourOffset(off); ok {
			// Whole-hour offsets resolve to a real zone: ISO 8601 at the event's wall clock.
			lt := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.FixedZone(tz, secs))
			return lt.Format("2006-01-02T15:04:05-07:00")
		}
		return applyOffset(t, off).Format(calendard.DBDateTime)
	}
	loc, err := calendard.LoadZone(tz)
	if err != nil {
		return local
	}
	lt := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, loc)
	return lt.Format("2006-01-02T15:04:05-07:00")
}

// wholeHourOffset reads "+2" / "-3" (no minutes or fraction) as seconds east of UTC. The recorded
// reference prints such events' JSON-LD dates in ISO form, and fractional ones ("+5:30") as UTC
// DB datetimes.
func wholeHourOffset(off string) (int, bool) {
	if len(off) < 2 || (off[0] != '+' && off[0] != '-') || !php.IsDigits(off[1:]) {
		return 0, false
	}
	h, err := strconv.Atoi(off[1:])
	if err != nil || h > 14 {
		return 0, false
	}
	if off[0] == '-' {
		h = -h
	}
	return h * 3600, true
}

// applyOffset is Tribe__Timezones::apply_offset($datetime, $offset, true): ":15/:30/:45" become
// fractions, and an offset whose integer part is 0 leaves the date unchanged (plugin quirk).
func applyOffset(t time.Time, offset string) time.Time {
	offset = strings.ToLower(strings.TrimSpace(offset))
	if php.Int(offset) == 0 {
		return t
	}
	for suffix, frac := range map[string]string{":15": ".25", ":30": ".5", ":45": ".75"} {
		if strings.HasSuffix(offset, suffix) {
			offset = strings.TrimSuffix(offset, suffix) + frac
		}
	}
	f, err := strconv.ParseFloat(offset, 64)
	if err != nil {
		return t
	}
	return t.Add(-time.Duration(int(f*60)) * time.Minute)
}

// placeJSONLD is the venue's schema.org Place (no @context), or nil when not generated.
func placeJSONLD(r *handlers.Request, v *calendard.Venue) *phpjson.Object {
	if !ldVisible(r, v.Post) {
		return nil
	}
	m := v.Meta
	o := phpjson.Obj("@type", "Place", "name", ldName(v.Post), "description", wptext.JSONLDDescription(v.Excerpt, v.Content))
	if v.Image != nil {
		o.Set("image", attachmentURL(r, v.Image))
	}
	o.Set("url", "")
	country := venueCountry(m.Value("_VenueCountry"))
	addr := phpjson.Obj("@type", "PostalAddress")
	// array_filter drops every falsy part: "" and "0".
	for _, kv := range []calendard.KV{
		{Key: "streetAddress", Value: wptext.EscHTML(m.Value("_VenueAddress"))}, {Key: "addressLocality", Value: wptext.EscHTML(m.Value("_VenueCity"))},
		{Key: "addressRegion", Value: venueRegion(m, country)}, {Key: "postalCode", Value: wptext.EscHTML(m.Value("_VenueZip"))},
		{Key: "addressCountry", Value: country},
	} {
		if s := kv.Value.(string); s != "" && s != "0" {
			addr.Set(kv.Key, s)
		}
	}
	o.Set("address", addr)
	o.Set("telephone", wptext.EscHTML(m.Value("_VenuePhone")))
	o.Set("sameAs", m.Value("_VenueURL"))
	return o
}

// personJSONLD is the organizer's schema.org Person (no @context), or nil when not generated.
func personJSONLD(r *handlers.Request, org *calendard.Organizer) *phpjson.Object {
	if !ldVisible(r, org.Post) {
		return nil
	}
	m := org.Meta
	o := phpjson.Obj("@type", "Person", "name", ldName(org.Post), "description", wptext.JSONLDDescription(org.Excerpt, org.Content))
	if org.Image != nil {
		o.Set("image", attachmentURL(r, org.Image))
	}
	// tribe_get_organizer_website_url: esc_url(esc_html(meta)), which adds a missing scheme,
	// encodes spaces and drops what URLs may not hold.
	website := wptext.EscURL(wptext.EscHTML(m.Value("_OrganizerWebsite")))
	o.Set("url", website)
	o.Set("telephone", wptext.EscHTML(m.Value("_OrganizerPhone")))
	o.Set("email", wptext.Antispambot(wptext.EscHTML(m.Value("_OrganizerEmail"))))
	o.Set("sameAs", website)
	return o
}

// attachmentURL is wp_get_attachment_url.
func attachmentURL(r *handlers.Request, a *calendard.Attachment) string {
	if f := a.Meta.Value("_wp_attached_file"); f != "" {
		return r.UploadURL(f)
	}
	return r.SSLFrontEnd(a.GUID)
}

// venueCountry is tribe_get_country: the stored country, or the last element when the meta holds
// a serialized [id, name] array, esc_html'ed.
func venueCountry(stored string) string {
	if v, err := phpserial.Unmarshal(stored); err == nil {
		if a, ok := v.(*phpserial.Array); ok {
			entries := a.Entries()
			if len(entries) == 0 {
				return ""
			}
			v = entries[len(entries)-1].Value
		}
		if str, ok := php.String(v); ok {
			stored = str
		}
	}
	return wptext.EscHTML(stored)
}

// venueRegion is tribe_get_region: a truthy _VenueStateProvince as stored (not escaped); else, for
// a venue in the United States, tribe_get_state (_VenueState); else tribe_get_province
// (_VenueProvince), those two esc_html'ed. country is tribe_get_country's answer.
func venueRegion(m calendard.Meta, country string) string {
	if sp := m.Value("_VenueStateProvince"); !php.Empty(sp) {
		return sp
	}
	if country == "United States" {
		return wptext.EscHTML(m.Value("_VenueState"))
	}
	return wptext.EscHTML(m.Value("_VenueProvince"))
}
