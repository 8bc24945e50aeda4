package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Bounds on one record's fields: a longer value rejects the record (it is reported, nothing of it
// is written).
const (
	MaxTextField    = 64 << 10 // titles, names, addresses, URLs
	MaxContentField = 4 << 20  // descriptions and excerpts
)

// fields reads one JSON object's fields, collecting every problem instead of stopping at the first.
type fields struct {
	m    map[string]json.RawMessage
	errs []string
}

func newFields(raw json.RawMessage) (*fields, error) {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	return &fields{m: m}, nil
}

func (f *fields) bad(key, format string, a ...any) {
	f.errs = append(f.errs, key+": "+fmt.Sprintf(format, a...))
}

func (f *fields) err() error {
	if len(f.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(f.errs, "; "))
}

func (f *fields) has(key string) bool {
	v, ok := f.m[key]
	return ok && string(v) != "null"
}

// id reads a positive integer (a number or a numeric string); required says a missing one is bad.
func (f *fields) id(key string, required bool) int64 {
	raw, ok := f.m[key]
	if !ok || string(raw) == "null" || string(raw) == "false" || string(raw) == `""` {
		if required {
			f.bad(key, "missing")
		}
		return 0
	}
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		f.bad(key, "not an ID: %.40s", raw)
		return 0
	}
	return n
}

// str reads a string of at most limit bytes of valid UTF-8 (numbers are taken as PHP prints them).
func (f *fields) str(key string, limit int) string {
	raw, ok := f.m[key]
	if !ok || string(raw) == "null" {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var n json.Number
		if json.Unmarshal(raw, &n) == nil {
			return n.String()
		}
		if string(raw) == "false" {
			return ""
		}
		f.bad(key, "not a string: %.40s", raw)
		return ""
	}
	if len(s) > limit {
		f.bad(key, "%d bytes, more than the limit of %d", len(s), limit)
		return ""
	}
	if !utf8.ValidString(s) {
		f.bad(key, "not valid UTF-8")
		return ""
	}
	return s
}

// plain reads a string that must not hold markup (slugs, e-mail, zones, phone numbers).
func (f *fields) plain(key string, limit int) string {
	s := f.str(key, limit)
	if strings.ContainsAny(s, "<>") {
		f.bad(key, "holds markup where plain text is expected: %.60q", s)
		return ""
	}
	return s
}

// boolean reads a JSON boolean (or 0/1, "1"/"" as PHP sends them).
func (f *fields) boolean(key string) bool {
	raw, ok := f.m[key]
	if !ok {
		return false
	}
	switch strings.Trim(string(raw), `"`) {
	case "true", "1", "yes":
		return true
	case "false", "0", "", "null", "no":
		return false
	}
	f.bad(key, "not a boolean: %.40s", raw)
	return false
}

// DBDateTime is how WordPress stores dates.
const DBDateTime = "2006-01-02 15:04:05"

// date reads a "Y-m-d H:i:s" date (or the RFC 3339 form wp/v2 uses) and returns the DB form.
func (f *fields) date(key string, required bool) string {
	s := f.str(key, 64)
	if s == "0000-00-00 00:00:00" && !required {
		// WordPress' unset date: a draft's GMT dates float until it is published.
		return ""
	}
	if s == "" {
		if required {
			f.bad(key, "missing")
		}
		return ""
	}
	s = strings.Replace(s, "T", " ", 1)
	t, err := time.Parse(DBDateTime, s)
	if err != nil || t.Year() < 1000 {
		f.bad(key, "not a date: %.40q", s)
		return ""
	}
	return s
}

// object reads a nested object's fields (nil when absent, false or an empty list).
func (f *fields) object(key string) *fields {
	raw, ok := f.m[key]
	if !ok {
		return nil
	}
	switch string(raw) {
	case "null", "false", "[]", `""`:
		return nil
	}
	o, err := newFields(raw)
	if err != nil {
		f.bad(key, "not an object")
		return nil
	}
	return o
}

// list reads a nested list of objects.
func (f *fields) list(key string) []*fields {
	raw, ok := f.m[key]
	if !ok || string(raw) == "null" || string(raw) == "false" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		// A single object where a list is expected (the venue of an event).
		if o, err := newFields(raw); err == nil {
			return []*fields{o}
		}
		f.bad(key, "not a list")
		return nil
	}
	out := make([]*fields, 0, len(items))
	for i, it := range items {
		o, err := newFields(it)
		if err != nil {
			f.bad(key, "item %d is not an object", i)
			continue
		}
		out = append(out, o)
	}
	return out
}

// Common are the post fields every imported post has.
type Common struct {
	ID                    int64
	Author                int64
	Status                string
	Date, DateUTC         string
	Modified, ModifiedUTC string
	Slug                  string
	ImageID               int64
	ImageURL              string
}

var postStatuses = map[string]bool{"publish": true, "future": true, "draft": true, "pending": true, "private": true, "trash": true}

func (f *fields) common() Common { return f.commonOf(false) }

// commonOf reads the common fields; only attachments have the "inherit" status.
func (f *fields) commonOf(media bool) Common {
	c := Common{ID: f.id("id", true), Author: f.id("author", false), Status: f.plain("status", 20),
		Date: f.date("date", true), DateUTC: f.date("date_utc", false),
		Modified: f.date("modified", false), ModifiedUTC: f.date("modified_utc", false),
		Slug: f.plain("slug", 200)}
	if c.Status == "" {
		c.Status = "publish"
	} else if !postStatuses[c.Status] && !(media && c.Status == "inherit") {
		f.bad("status", "unknown status %q", c.Status)
	}
	if img := f.object("image"); img != nil {
		c.ImageID = img.id("id", false)
		c.ImageURL = img.str("url", MaxTextField)
		f.errs = append(f.errs, prefixed("image", img.errs)...)
	}
	return c
}

func prefixed(p string, errs []string) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = p + "." + e
	}
	return out
}

// Term is a category or tag as the plugin's API shows it.
type Term struct {
	ID, TaxonomyID int64
	Taxonomy       string
	Name, Slug     string
	Description    string
	Parent         int64
}

// decodeTerm reads and checks a term of the plugin's /categories or /tags.
func decodeTerm(raw json.RawMessage, taxonomy string) (*Term, error) {
	f, err := newFields(raw)
	if err != nil {
		return nil, err
	}
	t := &Term{ID: f.id("id", true), TaxonomyID: f.id("term_taxonomy_id", false), Taxonomy: taxonomy,
		Name: f.str("name", 200), Slug: f.plain("slug", 200), Description: f.str("description", MaxContentField),
		Parent: f.id("parent", false)}
	if tx := f.str("taxonomy", 64); tx != "" && tx != taxonomy {
		f.bad("taxonomy", "%q, not %q", tx, taxonomy)
	}
	if t.Name == "" && len(f.errs) == 0 {
		f.bad("name", "empty")
	}
	return t, f.err()
}

// Venue is a venue as the plugin's API shows it.
type Venue struct {
	Common
	Title, Description                                     string
	Address, City, Country, Province, State, StateProvince string
	Zip, Phone, Website                                    string
	ShowMap, ShowMapLink                                   bool
	Lat, Lng                                               string
}

func decodeVenue(raw json.RawMessage) (*Venue, error) {
	f, err := newFields(raw)
	if err != nil {
		return nil, err
	}
	v := &Venue{Common: f.common(), Title: f.str("venue", MaxTextField), Description: f.str("description", MaxContentField),
		Address: f.str("address", MaxTextField), City: f.str("city", MaxTextField), Country: f.str("country", MaxTextField),
		Province: f.str("province", MaxTextField), State: f.str("state", MaxTextField), StateProvince: f.str("stateprovince", MaxTextField),
		Zip: f.str("zip", MaxTextField), Phone: f.str("phone", MaxTextField), Website: f.str("website", MaxTextField),
		ShowMap: f.boolean("show_map"), ShowMapLink: f.boolean("show_map_link")}
	if f.has("geo_lat") {
		v.Lat, v.Lng = f.str("geo_lat", 64), f.str("geo_lng", 64)
		for _, c := range []struct{ k, s string }{{"geo_lat", v.Lat}, {"geo_lng", v.Lng}} {
			if _, err := strconv.ParseFloat(c.s, 64); err != nil && c.s != "" {
				f.bad(c.k, "not a number: %.40q", c.s)
			}
		}
	}
	if v.Title == "" && len(f.errs) == 0 {
		f.bad("venue", "empty")
	}
	return v, f.err()
}

// Organizer is an organizer as the plugin's API shows it.
type Organizer struct {
	Common
	Title, Description    string
	Email, Phone, Website string
}

func decodeOrganizer(raw json.RawMessage) (*Organizer, error) {
	f, err := newFields(raw)
	if err != nil {
		return nil, err
	}
	o := &Organizer{Common: f.common(), Title: f.str("organizer", MaxTextField), Description: f.str("description", MaxContentField),
		Email: f.plain("email", MaxTextField), Phone: f.str("phone", MaxTextField), Website: f.str("website", MaxTextField)}
	if o.Title == "" && len(f.errs) == 0 {
		f.bad("organizer", "empty")
	}
	return o, f.err()
}

// Event is an event as the plugin's API shows it, with its links by source ID.
type Event struct {
	Common
	Title, Description, Excerpt string
	AllDay                      bool
	Start, End                  string // wall-clock "Y-m-d H:i:s"
	StartUTC, EndUTC            string
	Timezone                    string
	Cost                        string
	CostValues                  []string
	CurrencySymbol              string
	CurrencyPosition            string
	CurrencyCode                string
	// RawCost is the stored _EventCost (wp/v2's meta); nil when only the display form is known.
	RawCost *string
	Website string
	// URL is the event's permalink at the source: a website equal to it is the plugin's fallback
	// for an event without _EventURL.
	URL string
	// WebsiteUnset says the event has no _EventURL (its website is the permalink).
	WebsiteUnset         bool
	Password             *string
	Parent               int64 // post_parent (source ID)
	ShowMap, ShowMapLink bool
	HideFromListings     bool
	Sticky, Featured     bool
	Categories, Tags     []*Term
	VenueID              int64
	OrganizerIDs         []int64
}

func decodeEvent(raw json.RawMessage) (*Event, error) {
	f, err := newFields(raw)
	if err != nil {
		return nil, err
	}
	e := &Event{Common: f.common(), Title: f.str("title", MaxTextField), Description: f.str("description", MaxContentField),
		Excerpt: f.str("excerpt", MaxContentField), AllDay: f.boolean("all_day"),
		Start: f.date("start_date", true), End: f.date("end_date", true),
		StartUTC: f.date("utc_start_date", false), EndUTC: f.date("utc_end_date", false),
		Timezone: f.plain("timezone", 64), Cost: f.str("cost", MaxTextField), Website: f.str("website", MaxTextField),
		URL:     f.str("url", MaxTextField),
		ShowMap: f.boolean("show_map"), ShowMapLink: f.boolean("show_map_link"), HideFromListings: f.boolean("hide_from_listings"),
		Sticky: f.boolean("sticky"), Featured: f.boolean("featured")}
	if e.Start != "" && e.End != "" && e.End < e.Start {
		f.bad("end_date", "%s is before start_date %s", e.End, e.Start)
	}
	if cd := f.object("cost_details"); cd != nil {
		e.CurrencySymbol = cd.str("currency_symbol", 64)
		e.CurrencyPosition = cd.plain("currency_position", 16)
		e.CurrencyCode = cd.plain("currency_code", 16)
		if raw, ok := cd.m["values"]; ok {
			var vals []json.Number
			if json.Unmarshal(raw, &vals) == nil {
				for _, v := range vals {
					e.CostValues = append(e.CostValues, v.String())
				}
			} else {
				var svals []string
				if json.Unmarshal(raw, &svals) == nil {
					e.CostValues = svals
				}
			}
		}
		f.errs = append(f.errs, prefixed("cost_details", cd.errs)...)
	}
	for _, tt := range []struct {
		key, taxonomy string
		out           *[]*Term
	}{{"categories", "tribe_events_cat", &e.Categories}, {"tags", "post_tag", &e.Tags}} {
		for _, tf := range f.list(tt.key) {
			t := &Term{ID: tf.id("id", true), TaxonomyID: tf.id("term_taxonomy_id", false), Taxonomy: tt.taxonomy,
				Name: tf.str("name", 200), Slug: tf.plain("slug", 200), Description: tf.str("description", MaxContentField),
				Parent: tf.id("parent", false)}
			f.errs = append(f.errs, prefixed(tt.key, tf.errs)...)
			*tt.out = append(*tt.out, t)
		}
	}
	for _, vf := range f.list("venue") {
		e.VenueID = vf.id("id", true)
		f.errs = append(f.errs, prefixed("venue", vf.errs)...)
	}
	for _, of := range f.list("organizer") {
		e.OrganizerIDs = append(e.OrganizerIDs, of.id("id", true))
		f.errs = append(f.errs, prefixed("organizer", of.errs)...)
	}
	if e.Title == "" && e.Description == "" && e.Excerpt == "" && len(f.errs) == 0 {
		f.bad("title", "title, description and excerpt are all empty")
	}
	return e, f.err()
}
