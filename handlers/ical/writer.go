package ical

import (
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/wptext"
)

// pluginVersion is the plugin version the PRODID names (the reference's).
const pluginVersion = "6.17.2"

// item is one exported post: an event, or any other post event_ids named.
type item struct {
	post  *calendard.Post
	event *calendard.Event // nil for a post that is not an event
}

// feed is what one export writes.
type feed struct {
	site    *calendard.Site
	outlook bool
	items   []item
	now     time.Time
	// global is the page's current global post: where an event without a venue takes its
	// LOCATION from (Tribe__Events__Venue::get_address_full_string with an empty venue ID).
	global *calendard.Event
	// canRead says whether the user may see a post's content (not password-protected).
	content func(p *calendard.Post) bool
	rc      *wptext.RenderContext
	// rfc corrects, for the REST events list, what the plugin's export gets wrong: every truthy
	// _EventAllDay (the plugin's REST writes store "1") is an all-day event, and VTIMEZONE
	// transitions start at their local time (RFC 5545 3.6.5), not at the UTC instant.
	rfc bool
}

// wallTime is an event date as tribe_get_start_date($id, false, 'U') gives it: the stored local
// wall clock read as if it were UTC.
func (f *feed) wallTime(p *calendard.Post, key string) time.Time {
	if v, ok := p.Meta.Get(key); ok {
		if t, err := time.Parse(calendard.DBDateTime, v); err == nil {
			return t
		}
	}
	return f.now.UTC().Truncate(time.Second)
}

// zone is the event's time zone as Tribe__Events__Timezones::build_timezone_object makes it (an
// offset name such as "UTC+5:30" becomes the region PHP names for it); the site's when the site
// mode says so or none is stored.
func (f *feed) zone(p *calendard.Post) *time.Location {
	if !f.site.TimezoneModeSite {
		if z, ok := p.Meta.Get("_EventTimezone"); ok && z != "" {
			return calendard.BuildTimezoneObject(z, true, f.site)
		}
	}
	return calendard.BuildTimezoneObject("", false, f.site)
}

// siteUTC is Tribe__Date_Utils::wp_strtotime: a site-local DB datetime as a UTC instant.
func (f *feed) siteUTC(local string) time.Time {
	loc := f.site.Location
	if loc == nil {
		loc = time.UTC
	}
	t, err := time.ParseInLocation(calendard.DBDateTime, local, loc)
	if err != nil {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC()
}

// filename is the Content-Disposition name: the site name's slug and 11 hex of md5 of the feed type
// and the exported IDs.
func (f *feed) filename() string {
	typ := "ical"
	if f.outlook {
		typ = "outlook"
	}
	var ids strings.Builder
	for _, it := range f.items {
		ids.WriteString(strconv.FormatInt(it.post.ID, 10))
	}
	return wptext.SanitizeTitle(f.site.Name) + "-" + md5hex(typ + ids.String())[:11] + ".ics"
}

// write is iCal::get_content.
func (f *feed) write() string {
	var b strings.Builder
	name := wptext.SanitizeTextField(f.site.Name)
	line(&b, "BEGIN:VCALENDAR")
	line(&b, "VERSION:2.0")
	line(&b, "PRODID:-//"+name+" - ECPv"+pluginVersion+"//NONSGML v1.0//EN")
	line(&b, "CALSCALE:GREGORIAN")
	line(&b, "METHOD:PUBLISH")
	if !f.outlook && name != "" {
		line(&b, "X-WR-CALNAME:"+name)
	}
	line(&b, "X-ORIGINAL-URL:"+f.site.HomeURL)
	line(&b, "X-WR-CALDESC:Events for "+wptext.EscHTML(name))
	line(&b, "REFRESH-INTERVAL;VALUE=DURATION:PT1H")
	line(&b, "X-Robots-Tag:noindex")
	line(&b, "X-PUBLISHED-TTL:PT1H")
	f.timezones(&b)
	for _, it := range f.items {
		b.WriteString("BEGIN:VEVENT\r\n")
		b.WriteString(strings.Join(f.vevent(it), "\r\n"))
		b.WriteString("\r\nEND:VEVENT\r\n")
	}
	b.WriteString("END:VCALENDAR")
	return b.String()
}

// timezones writes one VTIMEZONE per event zone, in order of first use.
func (f *feed) timezones(b *strings.Builder) {
	var order []*zoneYears
	byName := map[string]*zoneYears{}
	for _, it := range f.items {
		loc := f.zone(it.post)
		name := loc.String()
		start := f.wallTime(it.post, "_EventStartDate").Year()
		end := f.wallTime(it.post, "_EventEndDate").Year()
		z := byName[name]
		if z == nil {
			z = &zoneYears{name: name, loc: loc, start: start, end: end}
			byName[name] = z
			order = append(order, z)
		}
		z.start, z.end = min(z.start, start), max(z.end, end)
	}
	for _, z := range order {
		vtimezone(b, *z, f.rfc)
	}
}

// vevent is iCal::get_ical_output_for_an_event.
func (f *feed) vevent(it item) []string {
	p := it.post
	start, end := f.wallTime(p, "_EventStartDate"), f.wallTime(p, "_EventEndDate")
	const full = "20060102T150405"
	var out []string
	if allDay := p.Meta.Value("_EventAllDay"); allDay == "yes" || f.rfc && calendard.IsTruthyWord(allDay) {
		out = append(out, "DTSTART;VALUE=DATE:"+start.Format("20060102"),
			"DTEND;VALUE=DATE:"+end.AddDate(0, 0, 1).Format("20060102"))
	} else {
		zone := f.zone(p).String()
		out = append(out, "DTSTART;TZID="+zone+":"+start.Format(full), "DTEND;TZID="+zone+":"+end.Format(full))
	}
	modified := f.siteUTC(p.Modified).Format(full + "Z")
	out = append(out, "DTSTAMP:"+modified, "CREATED:"+f.siteUTC(p.Date).Format(full+"Z"), "LAST-MODIFIED:"+modified)
	host := f.site.HomeURL
	if u, err := url.Parse(host + "/"); err == nil {
		host = u.Hostname()
	}
	out = append(out, "UID:"+strconv.FormatInt(p.ID, 10)+"-"+strconv.FormatInt(start.Unix(), 10)+"-"+
		strconv.FormatInt(end.Unix(), 10)+"@"+host)
	out = append(out, "SUMMARY:"+replace(wptext.StripAllTags(p.Title, false)))
	content := "Content is protected."
	access := f.content(p)
	if access {
		content = wptext.TheContent(excludeTribeBlocks(p.Content), f.rc)
	}
	out = append(out, "DESCRIPTION:"+replace(wptext.StripAllTags(strings.ReplaceAll(content, "</p>", "</p> "), false)))
	out = append(out, "URL:"+permalink(f.site, p))
	if loc := f.location(it); loc != "" {
		out = append(out, "LOCATION:"+strings.NewReplacer(",", `\,`, "\n", `\n`).Replace(html.UnescapeString(loc)))
	}
	if it.event != nil && len(it.event.Categories) > 0 {
		names := make([]string, 0, len(it.event.Categories))
		for _, c := range it.event.Categories {
			names = append(names, c.Name)
		}
		out = append(out, "CATEGORIES:"+html.UnescapeString(strings.Join(names, ",")))
	}
	if it.event != nil && it.event.Image != nil && access {
		out = append(out, "ATTACH;FMTTYPE="+it.event.Image.MimeType+":"+attachmentURL(f.site, it.event.Image.Post))
	}
	if it.event != nil && len(it.event.Organizers) > 0 {
		o := it.event.Organizers[0]
		if email := wptext.EscHTML(o.Meta.Value("_OrganizerEmail")); email != "" {
			out = append(out, `ORGANIZER;CN="`+organizerName(o.Title)+`":MAILTO:`+email)
		}
	}
	return out
}

// location is Tribe__Events__Venue::get_address_full_string: the venue's title, address, city,
// region, zip and country. An event without a venue reads the pieces of the page's current global
// post's venue instead (an empty venue ID falls back to the global post), of which only the city
// survives.
func (f *feed) location(it item) string {
	var v *calendard.Venue
	if it.event != nil && len(it.event.Venues) > 0 {
		v = it.event.Venues[0]
	}
	if v == nil {
		if f.global != nil && len(f.global.Venues) > 0 {
			return f.global.Venues[0].Meta.Value("_VenueCity")
		}
		return ""
	}
	m := v.Meta
	region := m.Value("_VenueStateProvince")
	if region == "" {
		if m.Value("_VenueCountry") == "United States" {
			region = m.Value("_VenueState")
		} else {
			region = m.Value("_VenueProvince")
		}
	}
	var parts []string
	for _, s := range []string{wptext.Title(v.Title), m.Value("_VenueAddress"), m.Value("_VenueCity"), region, m.Value("_VenueZip"), m.Value("_VenueCountry")} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// replace is iCal::replace with its default pairs: entities decoded, commas and newlines escaped,
// carriage returns dropped.
func replace(s string) string {
	return strings.NewReplacer(",", `\,`, "\n", `\n`, "\r", "").Replace(html.UnescapeString(s))
}

// organizerName is iCal::sanitize_organizer_name: rawurlencode, then the allowed characters back
// (a double quote becomes a single one).
func organizerName(name string) string {
	enc := strings.ReplaceAll(url.QueryEscape(name), "+", "%20")
	enc = strings.ReplaceAll(enc, "%7E", "~")
	var pairs []string
	for _, c := range []string{" ", "&", "!", "?", "'", "*", "(", ")", "@", "#", "$", "%", "^", "+", "=", "{", "}", "[", "]", "|", `\`, "/", "<", ">", "`", "~"} {
		e := strings.ReplaceAll(url.QueryEscape(c), "+", "%20")
		if e != c {
			pairs = append(pairs, e, c)
		}
	}
	pairs = append(pairs, "%22", "'")
	// str_replace replaces pair by pair over the whole string; "%25" (a literal %) comes before
	// the others only in that order, which keeps "%2520" a literal "%20".
	for i := 0; i < len(pairs); i += 2 {
		enc = strings.ReplaceAll(enc, pairs[i], pairs[i+1])
	}
	return enc
}

// attachmentURL is wp_get_attachment_url: the uploads URL and the attached file.
func attachmentURL(site *calendard.Site, p *calendard.Post) string {
	if f := p.Meta.Value("_wp_attached_file"); f != "" {
		return strings.TrimRight(site.UploadsURL, "/") + "/" + f
	}
	return p.GUID
}

var tribeBlockRe = regexp.MustCompile(`(?s)<!-- wp:tribe/[^ ]+ .*?/-->|<!-- wp:tribe/([^ ]+) .*?<!-- /wp:tribe/[^ ]+ -->`)

// excludeTribeBlocks is the editor utils' exclude_tribe_blocks: the plugin's own blocks (dates,
// venue, organizer ...) are not part of the description.
func excludeTribeBlocks(s string) string {
	return tribeBlockRe.ReplaceAllString(s, "")
}

// permalink is get_permalink: the calendar's types by their bases, other posts by their name
// under the site's /%postname%/ structure.
func permalink(site *calendard.Site, p *calendard.Post) string {
	switch p.Type {
	case calendard.PostTypeEvent, calendard.PostTypeVenue, calendard.PostTypeOrganizer:
		return site.Permalink(p, true)
	}
	if !site.PrettyPermalinks || p.Name == "" {
		return site.HomeURL + "/?p=" + strconv.FormatInt(p.ID, 10)
	}
	return site.HomeURL + "/" + p.Name + "/"
}
