package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
)

// media imports the source's attachments (wp/v2/media): the featured images of venues,
// organizers and events link to them.
func (im *Importer) media(ctx context.Context) error {
	q := url.Values{}
	if im.opts.User != "" {
		q.Set("context", "edit")
	}
	raws := im.walk(ctx, MediaFiles, "/wp/v2/media", "", q)
	im.seen(MediaFiles, len(raws))
	for _, raw := range raws {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		im.present(MediaFiles, raw)
		m, err := decodeMedia(raw)
		if err == nil {
			var id int64
			var wrote bool
			if id, wrote, err = im.target.SaveMedia(ctx, m, im.source("attachment", m.ID), hashOf(m)); err == nil {
				im.record(MediaFiles, m.ID, id, wrote)
			}
		}
		if err != nil {
			im.fail(MediaFiles, itemName(raw), err)
		}
		im.progress(MediaFiles)
	}
	return nil
}

// image maps a source attachment ID to the target's; an image that was not imported is an error
// (the record would silently lose it).
func (im *Importer) image(src int64) (int64, error) {
	if src == 0 {
		return 0, nil
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	if id, ok := im.ids[MediaFiles][src]; ok {
		return id, nil
	}
	return 0, fmt.Errorf("links to what was not imported: image %d", src)
}

// termTaxonomyIDs collects the term_taxonomy_id of every term the events show, by taxonomy and
// term ID (the plugin's term lists do not show it).
func termTaxonomyIDs(raws []json.RawMessage) map[string]map[int64]int64 {
	out := map[string]map[int64]int64{"tribe_events_cat": {}, "post_tag": {}}
	for _, raw := range raws {
		var e struct {
			Categories, Tags []struct {
				ID         int64 `json:"id"`
				TaxonomyID int64 `json:"term_taxonomy_id"`
			}
		}
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		for _, t := range e.Categories {
			if t.ID > 0 && t.TaxonomyID > 0 {
				out["tribe_events_cat"][t.ID] = t.TaxonomyID
			}
		}
		for _, t := range e.Tags {
			if t.ID > 0 && t.TaxonomyID > 0 {
				out["post_tag"][t.ID] = t.TaxonomyID
			}
		}
	}
	return out
}

// taxonomyIDFor is the term_taxonomy_id a term asks for: the one the events show, else (a term no
// event shows) its term ID when no other term shows that one, as on a site where they go together.
func (im *Importer) taxonomyIDFor(t *Term) int64 {
	if t.TaxonomyID != 0 {
		return t.TaxonomyID
	}
	if id := im.ttIDs[t.Taxonomy][t.ID]; id != 0 {
		return id
	}
	for _, m := range im.ttIDs {
		for _, tt := range m {
			if tt == t.ID {
				return 0
			}
		}
	}
	return t.ID
}

// applyEventExtra takes what wp/v2 shows beyond the v1 record: the raw content, excerpt and
// password, the stored cost, currency and website.
func applyEventExtra(e *Event, x *Extra) {
	// The plugin shows the permalink as the website of an event without _EventURL.
	e.WebsiteUnset = e.Website != "" && e.Website == e.URL
	if x == nil {
		return
	}
	if x.Content != nil {
		e.Description = *x.Content
	}
	if x.Excerpt != nil {
		e.Excerpt = *x.Excerpt
	}
	e.Password = x.Password
	if x.Title != nil {
		e.Title = *x.Title
	}
	if e.Password != nil && *e.Password != "" {
		protectedEvent(e, x)
	}
	if x.Meta == nil {
		return
	}
	if v, ok := x.Meta["_EventCost"]; ok {
		e.RawCost = &v
	}
	if u := x.Meta["_EventURL"]; u != "" {
		e.Website, e.WebsiteUnset = u, false
	}
	for key, dst := range map[string]*string{"_EventCurrencySymbol": &e.CurrencySymbol,
		"_EventCurrencyPosition": &e.CurrencyPosition, "_EventCurrencyCode": &e.CurrencyCode} {
		if v, ok := x.Meta[key]; ok {
			*dst = v
		}
	}
}

// protectedEvent fills in what the v1 record of a password-protected event leaves out (its
// terms, venue, organizers, map flags and website) from wp/v2's terms and meta.
func protectedEvent(e *Event, x *Extra) {
	terms := func(taxonomy string) []*Term {
		var out []*Term
		for _, id := range x.TermIDs[taxonomy] {
			out = append(out, &Term{ID: id, Taxonomy: taxonomy})
		}
		return out
	}
	if len(e.Categories) == 0 {
		e.Categories = terms("tribe_events_cat")
	}
	if len(e.Tags) == 0 {
		e.Tags = terms("post_tag")
	}
	if v := x.MetaIDs["_EventVenueID"]; e.VenueID == 0 && len(v) > 0 {
		e.VenueID = v[0]
	}
	if len(e.OrganizerIDs) == 0 {
		e.OrganizerIDs = x.MetaIDs["_EventOrganizerID"]
	}
	if x.Meta != nil {
		e.ShowMap, e.ShowMapLink = x.Meta["_EventShowMap"] != "", x.Meta["_EventShowMapLink"] != ""
		if x.Meta["_EventURL"] == "" {
			e.WebsiteUnset = true
		}
	}
}

// applyLinkedExtra takes a venue's or organizer's raw title and content from wp/v2 (v1 shows them
// rendered).
func applyLinkedExtra(title, content *string, x *Extra) {
	if x == nil {
		return
	}
	if x.Title != nil {
		*title = *x.Title
	}
	if x.Content != nil {
		*content = *x.Content
	}
}
