package tribe

import (
	"path"
	"slices"
	"strings"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/cost"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
	"github.com/calendard/calendard/internal/phpserial"
	"github.com/calendard/calendard/internal/wptext"
)

// eventRecord builds the plugin's event object (reference-behaviour §4.1), every key always present,
// in the plugin's order. Single-event answers (single) also carry the JSON-LD of the event and of its
// venue and organizers.
func (rs *records) eventRecord(r *handlers.Request, e *calendard.Event, single bool) *phpjson.Object {
	site := r.Site
	m := e.Meta
	// The plugin renders the venue, then the organizers, then the event's own content; the order
	// matters because shortcodes such as [audio] number their instances per request.
	venues := e.Venues
	if rs.strictReads {
		venues = slices.DeleteFunc(slices.Clone(venues), func(v *calendard.Venue) bool { return !mayEmbed(r, v.Post) })
	}
	var venue any = []any{}
	switch len(venues) {
	case 0:
	case 1:
		venue = venueRecord(r, venues[0], single)
	default:
		vs := make([]any, len(venues))
		for i, v := range venues {
			vs[i] = venueRecord(r, v, single)
		}
		venue = vs
	}
	orgs := make([]any, 0, len(e.Organizers))
	for _, org := range e.Organizers {
		if rs.strictReads && !mayEmbed(r, org.Post) {
			continue
		}
		orgs = append(orgs, organizerRecord(r, org, single))
	}

	o := phpjson.NewObject()
	o.Set("id", e.ID)
	o.Set("global_id", site.GlobalID(e.ID))
	o.Set("global_id_lineage", lineage(site, e.Post))
	o.Set("author", handlers.Itoa(e.Author))
	o.Set("status", e.Status)
	o.Set("date", e.Date)
	o.Set("date_utc", e.DateGMT)
	o.Set("modified", e.Modified)
	o.Set("modified_utc", e.ModifiedGMT)
	o.Set("url", r.Permalink(e.Post))
	o.Set("rest_url", r.RestURL("events/"+handlers.Itoa(e.ID)))
	o.Set("title", wptext.Title(e.Title))
	o.Set("description", wptext.Content(e.Content, r.Render))
	o.Set("excerpt", wptext.Excerpt(e.Excerpt))
	o.Set("slug", e.Name)
	if e.Image != nil {
		o.Set("image", imageRecord(r, e.Image))
	} else {
		o.Set("image", false)
	}
	o.Set("all_day", calendard.IsTruthyWord(m.Value("_EventAllDay")))
	for _, d := range []struct{ key, meta string }{
		{"start_date", "_EventStartDate"}, {"end_date", "_EventEndDate"},
		{"utc_start_date", "_EventStartDateUTC"}, {"utc_end_date", "_EventEndDateUTC"},
	} {
		v, has := m.Get(d.meta)
		if has {
			o.Set(d.key, v)
		} else {
			o.Set(d.key, nil)
		}
		o.Set(d.key+"_details", dateDetails(v))
	}
	o.Set("timezone", m.Value("_EventTimezone"))
	o.Set("timezone_abbr", m.Value("_EventTimezoneAbbr"))
	settings := costSettings(site)
	o.Set("cost", cost.Display(m["_EventCost"], m.Value("_EventCurrencySymbol"), m.Value("_EventCurrencyPosition"), settings))
	values := []any{}
	for _, v := range cost.DetailValues(m["_EventCost"]) {
		values = append(values, v)
	}
	o.Set("cost_details", phpjson.Obj(
		"currency_symbol", m.Value("_EventCurrencySymbol"),
		"currency_code", m.Value("_EventCurrencyCode"),
		"currency_position", m.Value("_EventCurrencyPosition"),
		"values", values))
	if w, has := m.Get("_EventURL"); has {
		o.Set("website", wptext.EscHTML(w))
	} else {
		o.Set("website", r.Permalink(e.Post))
	}
	o.Set("show_map", mapFlag(m, "_EventShowMap"))
	o.Set("show_map_link", mapFlag(m, "_EventShowMapLink"))
	o.Set("hide_from_listings", m.Value("_EventHideFromUpcoming") == "yes")
	o.Set("sticky", e.MenuOrder == -1)
	o.Set("featured", isFeatured(m))
	o.Set("categories", termList(r, e.Categories))
	o.Set("tags", termList(r, e.Tags))
	o.Set("venue", venue)
	o.Set("organizer", orgs)
	o.Set("custom_fields", customFields(site, m))
	if single {
		if ld := eventJSONLD(r, e); ld != nil {
			o.Set("json_ld", ld)
		}
	}
	return o
}

func costSettings(site *calendard.Site) cost.Settings {
	return cost.Settings{DefaultSymbol: site.DefaultCurrencySymbol, ReversePosition: site.ReverseCurrencyPosition,
		DefaultCode: site.DefaultCurrencyCode}
}

// lineage is global_id followed by the importer's lineage rows.
func lineage(site *calendard.Site, p *calendard.Post) []any {
	out := []any{site.GlobalID(p.ID)}
	for _, v := range p.Meta["_tribe_aggregator_global_id_lineage"] {
		out = append(out, v)
	}
	return out
}

// mapFlag is the (bool) cast of a map flag; events that never stored it show the map.
func mapFlag(m calendard.Meta, key string) bool {
	v, has := m.Get(key)
	if !has {
		return true
	}
	return calendard.TruthyMeta(v)
}

// isFeatured: _tribe_featured loosely equal to 1.
func isFeatured(m calendard.Meta) bool {
	v, has := m.Get("_tribe_featured")
	if !has {
		return false
	}
	return php.IsNumericString(v) && php.Float(v) == 1
}

// dateDetails splits a DB datetime into string components; unparsable values read as the epoch.
func dateDetails(v string) *phpjson.Object {
	y, mo, d, h, mi, s := "1970", "01", "01", "00", "00", "00"
	if len(v) >= 19 && v[4] == '-' && v[7] == '-' && v[10] == ' ' && v[13] == ':' && v[16] == ':' {
		y, mo, d, h, mi, s = v[0:4], v[5:7], v[8:10], v[11:13], v[14:16], v[17:19]
	}
	return phpjson.Obj("year", y, "month", mo, "day", d, "hour", h, "minutes", mi, "seconds", s)
}

// customFields renders Pro additional fields that have a value; [] when none.
func customFields(site *calendard.Site, m calendard.Meta) any {
	o := phpjson.NewObject()
	for _, f := range site.CustomFields {
		if v := m.Value(f.Name); v != "" {
			o.Set(f.Name, phpjson.Obj("label", f.Label, "value", v))
		}
	}
	return o
}

// termList renders embedded event terms (shape (a) of §4.5).
func termList(r *handlers.Request, terms []*calendard.Term) []any {
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		out = append(out, embeddedTerm(r, t))
	}
	return out
}

func embeddedTerm(r *handlers.Request, t *calendard.Term) *phpjson.Object {
	return phpjson.Obj(
		"name", t.Name, "slug", t.Slug, "term_group", t.Group, "term_taxonomy_id", t.TaxonomyID,
		"taxonomy", t.Taxonomy, "description", t.Description, "parent", t.Parent, "count", t.Count,
		"filter", "raw", "id", t.ID, "urls", termURLs(r, t, true))
}

// termURLs is the plugin's prepare_term_data urls: up when the term data has a parent, which an
// event's terms (WP_Term arrays) always have, and archive records only for hierarchical taxonomies
// (the core controller's schema has parent for those alone).
func termURLs(r *handlers.Request, t *calendard.Term, hasParent bool) *phpjson.Object {
	base := "categories"
	if t.Taxonomy == calendard.TaxonomyTag {
		base = "tags"
	}
	u := phpjson.Obj("self", r.RestURL(base+"/"+handlers.Itoa(t.ID)), "collection", r.RestURL(base))
	if hasParent && t.Parent != 0 {
		u.Set("up", r.RestURL(base+"/"+handlers.Itoa(t.Parent)))
	}
	return u
}

// venueRecord builds a venue (§4.6): empty values are removed, then the map flags and global ids are
// appended. Password-protected venues are redacted unless unlocked.
func venueRecord(r *handlers.Request, v *calendard.Venue, single bool) *phpjson.Object {
	m := v.Meta
	o := phpjson.NewObject()
	linkedPostHead(r, o, v.Post, "venue", v.Image)
	for _, f := range []struct{ key, meta string }{
		{"address", "_VenueAddress"}, {"city", "_VenueCity"}, {"country", "_VenueCountry"},
		{"province", "_VenueProvince"}, {"state", "_VenueState"}, {"zip", "_VenueZip"},
		{"phone", "_VenuePhone"}, {"website", "_VenueURL"}, {"stateprovince", "_VenueStateProvince"},
	} {
		o.Set(f.key, m.Value(f.meta))
	}
	if single {
		if ld := placeJSONLD(r, v); ld != nil {
			o.Set("json_ld", ld)
		}
	}
	removeEmpty(o)
	o.Set("show_map", mapFlag(m, "_VenueShowMap"))
	o.Set("show_map_link", mapFlag(m, "_VenueShowMapLink"))
	o.Set("global_id", r.Site.GlobalID(v.ID))
	o.Set("global_id_lineage", lineage(r.Site, v.Post))
	if v.HasPassword() && !unlocked(r, v.Post) {
		redact(o)
	}
	return o
}

// organizerRecord builds an organizer (§4.7); empty values are removed at the end.
func organizerRecord(r *handlers.Request, org *calendard.Organizer, single bool) *phpjson.Object {
	m := org.Meta
	o := phpjson.NewObject()
	linkedPostHead(r, o, org.Post, "organizer", org.Image)
	o.Set("phone", m.Value("_OrganizerPhone"))
	o.Set("website", m.Value("_OrganizerWebsite"))
	o.Set("email", m.Value("_OrganizerEmail"))
	if single {
		if ld := personJSONLD(r, org); ld != nil {
			o.Set("json_ld", ld)
		}
	}
	o.Set("global_id", r.Site.GlobalID(org.ID))
	o.Set("global_id_lineage", lineage(r.Site, org.Post))
	removeEmpty(o)
	if org.HasPassword() && !unlocked(r, org.Post) {
		redact(o)
	}
	return o
}

// linkedPostHead writes the keys venues and organizers share, up to the image.
func linkedPostHead(r *handlers.Request, o *phpjson.Object, p *calendard.Post, nameKey string, img *calendard.Attachment) {
	o.Set("id", p.ID)
	o.Set("author", handlers.Itoa(p.Author))
	o.Set("status", p.Status)
	o.Set("date", p.Date)
	o.Set("date_utc", p.DateGMT)
	o.Set("modified", p.Modified)
	o.Set("modified_utc", p.ModifiedGMT)
	o.Set("url", r.Permalink(p))
	o.Set(nameKey, wptext.Title(p.Title))
	o.Set("description", wptext.Content(p.Content, r.Render))
	o.Set("excerpt", wptext.Excerpt(p.Excerpt))
	o.Set("slug", p.Name)
	if img != nil {
		o.Set("image", imageRecord(r, img))
	}
}

// unlocked reports whether the request may see a password-protected post unredacted: the password
// parameter matches, or context=edit by a user who can edit it.
// mayEmbed is the strict-reads rule for a venue or organizer inside an event: only what its own
// single route would show the caller (the plugin embeds them whatever their status, §4).
func mayEmbed(r *handlers.Request, p *calendard.Post) bool {
	return p.Status == "publish" || r.User.CanReadPost(&calendard.PostRef{ID: p.ID, Type: p.Type, Status: p.Status, Author: p.Author})
}

func unlocked(r *handlers.Request, p *calendard.Post) bool {
	if pw, ok := r.Param("password"); ok {
		if s, isStr := pw.(string); isStr && s == p.Password {
			return true
		}
	}
	if ctx, _ := r.Param("context"); ctx == "edit" && r.User.CanEditPost(&calendard.PostRef{ID: p.ID, Type: p.Type, Status: p.Status, Author: p.Author}) {
		return true
	}
	return false
}

// removeEmpty drops PHP-empty values ("", "0", 0, false, null, []) as array_filter does.
func removeEmpty(o *phpjson.Object) {
	for _, k := range append([]string(nil), o.Keys()...) {
		v, _ := o.Get(k)
		if php.Empty(v) {
			o.Delete(k)
		}
	}
}

// Password redaction (§4.11).
var (
	redactEmptyString = map[string]bool{"description": true, "excerpt": true, "cost": true, "website": true,
		"virtual_url": true, "virtual_video_source": true, "email": true, "phone": true, "stateprovince": true,
		"zip": true, "province": true, "country": true, "city": true, "address": true}
	redactNull = map[string]bool{"all_day": true, "show_map": true, "show_map_link": true,
		"hide_from_listings": true, "sticky": true, "featured": true, "ticketed": true, "is_virtual": true}
	redactList = map[string]bool{"categories": true, "tags": true, "venue": true, "organizer": true, "custom_fields": true}
)

// redact blanks the protected fields of a record, descending into nested objects whose key is not
// itself redacted.
func redact(o *phpjson.Object) {
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		switch {
		case redactEmptyString[k]:
			o.Set(k, "")
		case redactNull[k]:
			o.Set(k, nil)
		case redactList[k]:
			o.Set(k, []any{})
		case k == "image":
			o.Set(k, false)
		case k == "cost_details":
			o.Set(k, phpjson.Obj("currency_symbol", "", "currency_position", "", "currency_code", "", "values", []any{}))
		case k == "attendance":
			o.Set(k, phpjson.Obj("total_attendees", nil, "checked_in", nil, "not_checked_in", nil))
		case k == "geo_lat" || k == "geo_lng":
			o.Set(k, 0)
		default:
			switch x := v.(type) {
			case *phpjson.Object:
				redact(x)
			case []any:
				for _, e := range x {
					if eo, ok := e.(*phpjson.Object); ok {
						redact(eo)
					}
				}
			}
		}
	}
}

// imageRecord builds the featured image object (§4.4).
func imageRecord(r *handlers.Request, a *calendard.Attachment) *phpjson.Object {
	file := a.Meta.Value("_wp_attached_file")
	url := r.UploadURL(file)
	if file == "" {
		url = r.SSLFrontEnd(a.GUID)
	}
	ext := strings.TrimPrefix(path.Ext(file), ".")
	o := phpjson.Obj("url", url, "id", a.ID, "extension", ext)
	mv, err := phpserial.Unmarshal(a.Meta.Value("_wp_attachment_metadata"))
	meta, isArr := mv.(*phpserial.Array)
	if err != nil || !isArr {
		return o
	}
	_, hasFile := meta.Get("file")
	_, hasSizes := meta.Get("sizes")
	_, hasImageMeta := meta.Get("image_meta")
	if !hasFile || !hasSizes || !hasImageMeta {
		return o
	}
	dir := url[:strings.LastIndex(url, "/")+1]
	for _, e := range meta.Entries() {
		k, _ := e.Key.(string)
		if k == "" || k == "file" || k == "image_meta" {
			continue
		}
		v := handlers.SerialToJSON(e.Value)
		if k == "sizes" {
			v = sizesRecord(e.Value, dir)
		}
		if php.Empty(v) {
			continue
		}
		o.Set(k, v)
	}
	return o
}

// sizesRecord renders intermediate sizes: the file key is replaced by a url key at the end.
func sizesRecord(v any, dir string) any {
	sizes, ok := v.(*phpserial.Array)
	if !ok {
		return handlers.SerialToJSON(v)
	}
	out := phpjson.NewObject()
	for _, e := range sizes.Entries() {
		size, ok := e.Value.(*phpserial.Array)
		if !ok {
			continue
		}
		so := phpjson.NewObject()
		file := ""
		for _, se := range size.Entries() {
			k := handlers.KeyString(se.Key)
			if k == "file" {
				file, _ = se.Value.(string)
				continue
			}
			so.Set(k, handlers.SerialToJSON(se.Value))
		}
		so.Set("url", dir+file)
		out.Set(handlers.KeyString(e.Key), so)
	}
	return out
}
