package search

import (
	"context"
	"html"
	"regexp"
	"strings"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/wptext"
	"github.com/calendard/calendard/wpdb"
)

// Searchable attributes, most important first (Meilisearch's attribute ranking rule uses the order).
var (
	eventSearchable = []string{"title", "excerpt", "content", "venue", "organizer", "city", "category", "tag"}
	// id: searches leave out by ID the events the substring match already finds (query.go).
	eventFilterable = []string{"id", "status", "start", "end", "category_ids", "tag_ids", "venue_ids", "organizer_ids",
		"featured", "hidden", "password_protected", "author", "_geo"}
	linkedSearchable = map[string][]string{
		KindVenues:     {"title", "excerpt", "content", "address", "city", "province", "state", "zip", "country", "phone"},
		KindOrganizers: {"title", "excerpt", "content", "phone", "email", "website"},
	}
	linkedFilterable = []string{"status", "password_protected", "author", "_geo"}
)

// printedMeta is every meta key a document reads (its own and, for events, through the venue
// document's fields): the reconcile compares their checksums (wpdb.SearchPrints).
var printedMeta = []string{"_EventStartDateUTC", "_EventEndDateUTC", "_EventVenueID", "_EventOrganizerID",
	"_tribe_featured", "_EventHideFromUpcoming", "_VenueAddress", "_VenueCity", "_VenueProvince", "_VenueState",
	"_VenueZip", "_VenueCountry", "_VenuePhone", "_VenueLat", "_VenueLng", "_OrganizerPhone", "_OrganizerEmail",
	"_OrganizerWebsite"}

var spaces = regexp.MustCompile(`\s+`)

// brackets spaces out angle brackets, in documents and queries alike.
var brackets = strings.NewReplacer("<", " < ", ">", " > ")

// text is a title as words: entities decoded, angle brackets kept as text (a title is plain text
// that may hold "<", and the plugin's search matches it as stored).
func text(s string) string {
	// Meilisearch's tokenizer keeps "<Friends>" as one word that "friends" does not match.
	s = brackets.Replace(html.UnescapeString(s))
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// plain turns stored post HTML into the words a reader sees.
func plain(s string) string {
	return text(wptext.StripAllTags(s, true))
}

// utcStamp reads a "YYYY-MM-DD HH:MM:SS" UTC meta value as a Unix timestamp (0 when unreadable).
func utcStamp(v string) int64 {
	t, err := time.ParseInLocation(time.DateTime, strings.TrimSpace(v), time.UTC)
	if err != nil {
		return 0
	}
	return t.Unix()
}

// geoOf is a venue's _geo field, or nil without valid coordinates.
func geoOf(p *calendard.Post) map[string]float64 {
	lat, ok1 := wpdb.ParseCoordinate(p.Meta.Value("_VenueLat"), 90)
	lng, ok2 := wpdb.ParseCoordinate(p.Meta.Value("_VenueLng"), 180)
	if !ok1 || !ok2 {
		return nil
	}
	return map[string]float64{"lat": lat, "lng": lng}
}

func termNames(ts []*calendard.Term) (names []string, ids []int64) {
	names, ids = []string{}, []int64{}
	for _, t := range ts {
		names = append(names, html.UnescapeString(t.Name))
		ids = append(ids, t.ID)
	}
	return names, ids
}

// eventDocuments loads events and builds their documents.
func (ix *Index) eventDocuments(ctx context.Context, ids []int64) ([]map[string]any, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	evs, err := ix.db.EventsByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(evs))
	for _, e := range evs {
		out = append(out, eventDocument(e))
	}
	return out, nil
}

func eventDocument(e *calendard.Event) map[string]any {
	cats, catIDs := termNames(e.Categories)
	tags, tagIDs := termNames(e.Tags)
	venues, cities := []string{}, []string{}
	var geo map[string]float64
	for _, v := range e.Venues {
		venues = append(venues, text(v.Title))
		if c := v.Meta.Value("_VenueCity"); c != "" {
			cities = append(cities, c)
		}
		if geo == nil {
			geo = geoOf(v.Post)
		}
	}
	// The filter compares the stored meta, as the plugin's list does, even for a venue that is gone.
	venueIDs := metaIDs(e.Meta["_EventVenueID"])
	orgs := []string{}
	for _, o := range e.Organizers {
		orgs = append(orgs, text(o.Title))
	}
	_, featured := e.Meta.Get("_tribe_featured")
	_, hidden := e.Meta.Get("_EventHideFromUpcoming")
	d := map[string]any{
		"id": e.ID, "title": text(e.Title), "excerpt": plain(e.Excerpt), "content": plain(e.Content),
		"venue": venues, "organizer": orgs, "city": cities, "category": cats, "tag": tags,
		"status": e.Status, "start": utcStamp(e.Meta.Value("_EventStartDateUTC")), "end": utcStamp(e.Meta.Value("_EventEndDateUTC")),
		"category_ids": catIDs, "tag_ids": tagIDs, "venue_ids": venueIDs, "organizer_ids": metaIDs(e.Meta["_EventOrganizerID"]),
		"featured": featured, "hidden": hidden, "password_protected": e.Password != "", "author": e.Author,
		"modified": e.ModifiedGMT,
	}
	if geo != nil {
		d["_geo"] = geo
	}
	return d
}

func metaIDs(vs []string) []int64 {
	out := []int64{}
	for _, v := range vs {
		var n int64
		for _, c := range strings.TrimSpace(v) {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int64(c-'0')
		}
		if n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// linkedDocument is a venue's or organizer's document.
func linkedDocument(p *calendard.Post) map[string]any {
	d := map[string]any{
		"id": p.ID, "title": text(p.Title), "excerpt": plain(p.Excerpt), "content": plain(p.Content),
		"status": p.Status, "password_protected": p.Password != "", "author": p.Author, "modified": p.ModifiedGMT,
	}
	if p.Type == calendard.PostTypeVenue {
		for k, meta := range map[string]string{"address": "_VenueAddress", "city": "_VenueCity", "province": "_VenueProvince",
			"state": "_VenueState", "zip": "_VenueZip", "country": "_VenueCountry", "phone": "_VenuePhone"} {
			d[k] = p.Meta.Value(meta)
		}
		if g := geoOf(p); g != nil {
			d["_geo"] = g
		}
	} else {
		for k, meta := range map[string]string{"phone": "_OrganizerPhone", "email": "_OrganizerEmail", "website": "_OrganizerWebsite"} {
			d[k] = p.Meta.Value(meta)
		}
	}
	return d
}
