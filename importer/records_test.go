package importer

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// event is a valid v1 event record with some fields replaced (a nil value removes the field).
func event(t *testing.T, with map[string]any) json.RawMessage {
	t.Helper()
	rec := map[string]any{
		"id": 41, "author": "1", "status": "publish", "date": "2026-11-21 23:28:50", "date_utc": "2026-11-22 04:28:50",
		"title": "Gala", "description": "<p>Hi</p>", "excerpt": "", "slug": "gala", "all_day": false,
		"start_date": "2026-12-01 19:00:00", "end_date": "2026-12-01 22:00:00", "timezone": "America/New_York",
		"url": "https://example.org/event/gala/", "website": "https://example.org/event/gala/",
		"cost": "$10", "cost_details": map[string]any{"currency_symbol": "$", "currency_code": "USD", "currency_position": "prefix", "values": []any{"10"}},
		"categories": []any{map[string]any{"id": 2, "term_taxonomy_id": 7, "name": "Music", "slug": "music"}},
		"tags":       []any{},
		"venue":      map[string]any{"id": 10}, "organizer": []any{map[string]any{"id": 22}, map[string]any{"id": 23}},
		"image": map[string]any{"id": 5, "url": "https://example.org/wp-content/uploads/2026/11/image-1.jpg"},
	}
	for k, v := range with {
		if v == nil {
			delete(rec, k)
		} else {
			rec[k] = v
		}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeEventMapsTheRecord(t *testing.T) {
	e, err := decodeEvent(event(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != 41 || e.Author != 1 || e.Title != "Gala" || e.Start != "2026-12-01 19:00:00" || e.DateUTC != "2026-11-22 04:28:50" {
		t.Errorf("fields: %+v", e)
	}
	if e.VenueID != 10 || len(e.OrganizerIDs) != 2 || e.OrganizerIDs[1] != 23 || e.ImageID != 5 {
		t.Errorf("links: venue %d organizers %v image %d", e.VenueID, e.OrganizerIDs, e.ImageID)
	}
	if len(e.Categories) != 1 || e.Categories[0].ID != 2 || e.Categories[0].TaxonomyID != 7 {
		t.Errorf("categories: %+v", e.Categories)
	}
	if e.CurrencySymbol != "$" || e.CurrencyPosition != "prefix" || e.CurrencyCode != "USD" || len(e.CostValues) != 1 {
		t.Errorf("cost: %q %q %q %v", e.CurrencySymbol, e.CurrencyPosition, e.CurrencyCode, e.CostValues)
	}
}

// Every problem of a record is reported, each with its field, and the record is refused whole.
func TestDecodeEventRejectsBadFields(t *testing.T) {
	cases := []struct {
		name string
		with map[string]any
		want []string
	}{
		{"missing id", map[string]any{"id": nil}, []string{"id: missing"}},
		{"id of a wrong type", map[string]any{"id": map[string]any{}}, []string{"id: not an ID"}},
		{"negative id", map[string]any{"id": -3}, []string{"id: not an ID"}},
		{"title of a wrong type", map[string]any{"title": []any{1}}, []string{"title: not a string"}},
		{"10 MB description", map[string]any{"description": strings.Repeat("x", 10<<20)}, []string{"description: 10485760 bytes, more than the limit of 4194304"}},
		{"long title", map[string]any{"title": strings.Repeat("x", MaxTextField+1)}, []string{"title: 65537 bytes"}},
		{"invalid date", map[string]any{"start_date": "2026-13-45 99:00:00"}, []string{"start_date: not a date"}},
		{"missing date", map[string]any{"end_date": nil}, []string{"end_date: missing"}},
		{"end before start", map[string]any{"end_date": "2026-11-30 00:00:00"}, []string{"end_date: 2026-11-30 00:00:00 is before start_date"}},
		{"markup in a plain field", map[string]any{"timezone": "<b>UTC</b>"}, []string{"timezone: holds markup"}},
		{"unknown status", map[string]any{"status": "inherit"}, []string{`status: unknown status "inherit"`}},
		{"bad boolean", map[string]any{"all_day": "maybe"}, []string{"all_day: not a boolean"}},
		{"organizer without id", map[string]any{"organizer": []any{map[string]any{"name": "x"}}}, []string{"organizer.id: missing"}},
		{"venue not an object", map[string]any{"venue": 12}, []string{"venue: not a list"}},
		{"several problems", map[string]any{"id": nil, "start_date": "never"}, []string{"id: missing", "start_date: not a date"}},
		{"not an object", nil, []string{"not a JSON object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := event(t, c.with)
			if c.with == nil {
				raw = json.RawMessage(`[1,2]`)
			}
			_, err := decodeEvent(raw)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestDecodeDraftDates(t *testing.T) {
	// A draft's GMT date floats (0000-00-00): it is unset, not invalid.
	e, err := decodeEvent(event(t, map[string]any{"status": "draft", "date_utc": "0000-00-00 00:00:00"}))
	if err != nil || e.DateUTC != "" {
		t.Fatalf("draft: %v %q", err, e.DateUTC)
	}
	// wp/v2's form of a date is read as the database form.
	e, err = decodeEvent(event(t, map[string]any{"date": "2026-11-21T23:28:50"}))
	if err != nil || e.Date != "2026-11-21 23:28:50" {
		t.Fatalf("T form: %v %q", err, e.Date)
	}
}

func TestDecodeLinkedAndTerms(t *testing.T) {
	_, err := decodeVenue(json.RawMessage(`{"id":10,"date":"2026-11-21 23:28:51","venue":"Loft","geo_lat":"41.8","geo_lng":"x"}`))
	if err == nil || !strings.Contains(err.Error(), `geo_lng: not a number`) {
		t.Errorf("venue with a bad coordinate: %v", err)
	}
	if _, err = decodeVenue(json.RawMessage(`{"id":10,"date":"2026-11-21 23:28:51","venue":""}`)); err == nil {
		t.Error("venue without a name accepted")
	}
	if v, err := decodeVenue(json.RawMessage(`{"id":10,"date":"2026-11-21 23:28:51","venue":"Loft","zip":60601,"show_map":"1"}`)); err != nil || v.Zip != "60601" || !v.ShowMap {
		t.Errorf("venue numbers as PHP prints them: %v %+v", err, v)
	}
	if _, err := decodeOrganizer(json.RawMessage(`{"id":22,"date":"2026-11-21 23:28:51","organizer":"O","email":"<script>@x"}`)); err == nil ||
		!strings.Contains(err.Error(), "email: holds markup") {
		t.Errorf("organizer e-mail with markup: %v", err)
	}
	if _, err := decodeTerm(json.RawMessage(`{"id":2,"name":"Music","slug":"music","taxonomy":"post_tag"}`), "tribe_events_cat"); err == nil {
		t.Error("a tag accepted as a category")
	}
	tm, err := decodeTerm(json.RawMessage(`{"id":"3","name":"Jazz","slug":"jazz","parent":2}`), "tribe_events_cat")
	if err != nil || tm.ID != 3 || tm.Parent != 2 {
		t.Errorf("term: %v %+v", err, tm)
	}
}

func TestApplyEventExtra(t *testing.T) {
	raw := func(s string) *string { return &s }
	// Without wp/v2, a website equal to the permalink is the plugin's fallback: no _EventURL.
	e, _ := decodeEvent(event(t, nil))
	applyEventExtra(e, nil)
	if !e.WebsiteUnset {
		t.Error("permalink website kept as _EventURL")
	}
	// wp/v2's raw content, title, stored cost and website win over v1's rendered ones.
	e, _ = decodeEvent(event(t, map[string]any{"website": "https://tickets.example/a&amp;b"}))
	applyEventExtra(e, &Extra{ID: 41, Content: raw("Hi [audio]"), Excerpt: raw(""), Title: raw(`Jazz "Night"`),
		Meta: map[string]string{"_EventCost": "10-20", "_EventURL": "https://tickets.example/a&b", "_EventCurrencySymbol": ""}})
	if e.Description != "Hi [audio]" || e.Title != `Jazz "Night"` || e.RawCost == nil || *e.RawCost != "10-20" {
		t.Errorf("raw fields: %q %q %v", e.Description, e.Title, e.RawCost)
	}
	if e.WebsiteUnset || e.Website != "https://tickets.example/a&b" || e.CurrencySymbol != "" {
		t.Errorf("meta: %v %q %q", e.WebsiteUnset, e.Website, e.CurrencySymbol)
	}
	// A password-protected event's v1 record hides its links: wp/v2's terms and meta give them.
	e, _ = decodeEvent(event(t, map[string]any{"categories": []any{}, "venue": nil, "organizer": nil, "website": ""}))
	applyEventExtra(e, &Extra{ID: 41, Password: raw("secret"), TermIDs: map[string][]int64{"post_tag": {13, 19}, "tribe_events_cat": {4}},
		MetaIDs: map[string][]int64{"_EventVenueID": {18}, "_EventOrganizerID": {27, 24}},
		Meta:    map[string]string{"_EventShowMap": "1", "_EventURL": ""}})
	if len(e.Tags) != 2 || e.Tags[1].ID != 19 || len(e.Categories) != 1 || e.VenueID != 18 || len(e.OrganizerIDs) != 2 || !e.ShowMap || !e.WebsiteUnset {
		t.Errorf("protected: tags %v cats %v venue %d organizers %v map %v unset %v", e.Tags, e.Categories, e.VenueID, e.OrganizerIDs, e.ShowMap, e.WebsiteUnset)
	}
}

func TestDecodeExtra(t *testing.T) {
	x, err := decodeExtra(json.RawMessage(`{"id":49,"title":{"raw":"T","rendered":"R"},"content":{"raw":"C","rendered":"<p>C</p>"},
		"password":"","meta":{"_EventAllDay":true,"_EventShowMap":false,"_EventCost":"€20","_EventVenueID":[11],"footnotes":""},
		"tags":[17,16],"tribe_events_cat":[6]}`))
	if err != nil {
		t.Fatal(err)
	}
	if *x.Title != "T" || *x.Content != "C" || x.Excerpt != nil || x.Meta["_EventAllDay"] != "1" || x.Meta["_EventShowMap"] != "" ||
		x.Meta["_EventCost"] != "€20" || x.MetaIDs["_EventVenueID"][0] != 11 || len(x.TermIDs["post_tag"]) != 2 {
		t.Errorf("%+v", x)
	}
	// The view context (no credentials) has no raw fields: nothing is taken from it but the meta.
	x, err = decodeExtra(json.RawMessage(`{"id":49,"content":{"rendered":"<p>C</p>"},"meta":{}}`))
	if err != nil || x.Content != nil || x.Title != nil {
		t.Errorf("view context: %v %+v", err, x)
	}
	if _, err := decodeExtra(json.RawMessage(`{"id":49,"tags":"17"}`)); err == nil {
		t.Error("tags that are no list accepted")
	}
}

// wp/v2's media_details is turned back into the stored metadata byte for byte (site-a's image 2).
func TestAttachmentMetadata(t *testing.T) {
	const stored = `a:6:{s:5:"width";i:640;s:6:"height";i:480;s:4:"file";s:19:"2026/11/image-2.jpg";s:8:"filesize";i:12345;` +
		`s:5:"sizes";a:2:{s:9:"thumbnail";a:5:{s:4:"file";s:19:"image-2-150x150.jpg";s:5:"width";i:150;s:6:"height";i:150;` +
		`s:9:"mime-type";s:10:"image/jpeg";s:8:"filesize";i:2150;}s:6:"medium";a:5:{s:4:"file";s:19:"image-2-300x225.jpg";` +
		`s:5:"width";i:300;s:6:"height";i:225;s:9:"mime-type";s:10:"image/jpeg";s:8:"filesize";i:2300;}}s:10:"image_meta";` +
		`a:12:{s:8:"aperture";s:1:"0";s:6:"credit";s:0:"";s:6:"camera";s:0:"";s:7:"caption";s:0:"";s:17:"created_timestamp";` +
		`s:1:"0";s:9:"copyright";s:0:"";s:12:"focal_length";s:1:"0";s:3:"iso";s:1:"0";s:13:"shutter_speed";s:1:"0";` +
		`s:5:"title";s:0:"";s:11:"orientation";s:1:"0";s:8:"keywords";a:0:{}}}`
	const details = `{"width":640,"height":480,"file":"2026/11/image-2.jpg","filesize":12345,"sizes":{
		"thumbnail":{"file":"image-2-150x150.jpg","width":150,"height":150,"filesize":2150,"mime_type":"image/jpeg","source_url":"http://x/wp-content/uploads/2026/11/image-2-150x150.jpg"},
		"medium":{"file":"image-2-300x225.jpg","width":300,"height":225,"filesize":2300,"mime_type":"image/jpeg","source_url":"http://x/wp-content/uploads/2026/11/image-2-300x225.jpg"},
		"full":{"file":"image-2.jpg","width":640,"height":480,"mime_type":"image/jpeg","source_url":"http://x/wp-content/uploads/2026/11/image-2.jpg"}},
		"image_meta":{"aperture":"0","credit":"","camera":"","caption":"","created_timestamp":"0","copyright":"","focal_length":"0","iso":"0",
		"shutter_speed":"0","title":"","orientation":"0","keywords":[]}}`
	file, got, err := attachmentMetadata(json.RawMessage(details))
	if err != nil {
		t.Fatal(err)
	}
	if file != "2026/11/image-2.jpg" || got != stored {
		t.Errorf("file %q\n got %s\nwant %s", file, got, stored)
	}
	if file, got, err := attachmentMetadata(json.RawMessage(`{}`)); err != nil || file != "" || got != "" {
		t.Errorf("empty details: %q %q %v", file, got, err)
	}
}

func TestTermTaxonomyIDs(t *testing.T) {
	ids := termTaxonomyIDs([]json.RawMessage{event(t, nil), json.RawMessage(`{"tags":[{"id":11,"term_taxonomy_id":12}]}`), json.RawMessage(`garbage`)})
	im := &Importer{ttIDs: ids}
	for _, c := range []struct {
		t    *Term
		want int64
	}{
		{&Term{ID: 2, Taxonomy: "tribe_events_cat"}, 7},  // shown in an event
		{&Term{ID: 11, Taxonomy: "post_tag"}, 12},        // shown in an event
		{&Term{ID: 20, Taxonomy: "post_tag"}, 20},        // no event: its term ID, which no other term holds
		{&Term{ID: 12, Taxonomy: "tribe_events_cat"}, 0}, // no event, and tag 11 holds 12: a new one
		{&Term{ID: 3, TaxonomyID: 9, Taxonomy: "tribe_events_cat"}, 9},
	} {
		if got := im.taxonomyIDFor(c.t); got != c.want {
			t.Errorf("term %d: term_taxonomy_id %d, want %d", c.t.ID, got, c.want)
		}
	}
}

func TestCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "cp.json")
	cp, err := loadCheckpoint(path, "https://a.example/wp-json/")
	if err != nil || len(cp.Done) != 0 {
		t.Fatalf("fresh: %v %v", err, cp.Done)
	}
	if err := cp.finish(Categories, map[int64]int64{2: 2, 3: 31}); err != nil {
		t.Fatal(err)
	}
	again, err := loadCheckpoint(path, "https://a.example/wp-json/")
	if err != nil || again.Done[Categories][3] != 31 || len(again.Done) != 1 {
		t.Fatalf("resumed: %v %v", err, again.Done)
	}
	if _, err := loadCheckpoint(path, "https://b.example/wp-json/"); err == nil || !strings.Contains(err.Error(), "of another import") {
		t.Errorf("another source's checkpoint: %v", err)
	}
	if err := os.WriteFile(path, []byte("{half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCheckpoint(path, "https://a.example/wp-json/"); err == nil || !strings.Contains(err.Error(), "unreadable") {
		t.Errorf("corrupt checkpoint: %v", err)
	}
	if err := cp.remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("checkpoint left after remove: %v", err)
	}
	if err := cp.remove(); err != nil {
		t.Errorf("removing twice: %v", err)
	}
}

func TestAPIURL(t *testing.T) {
	q := url.Values{"page": {"2"}}
	if got := (API{Root: "https://a.example/wp-json"}).URL("/tribe/events/v1/events", q); got != "https://a.example/wp-json/tribe/events/v1/events?page=2" {
		t.Errorf("pretty: %s", got)
	}
	if got := (API{Root: "https://a.example/", RestRoute: true}).URL("/tribe/events/v1/events", q); got != "https://a.example/?page=2&rest_route=%2Ftribe%2Fevents%2Fv1%2Fevents" {
		t.Errorf("plain: %s", got)
	}
	if got := (API{Root: "https://a.example/index.php?lang=en", RestRoute: true}).URL("/", nil); got != "https://a.example/index.php?lang=en&rest_route=%2F" {
		t.Errorf("plain with a query: %s", got)
	}
}
