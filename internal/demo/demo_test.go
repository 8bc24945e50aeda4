package demo_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/demo"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/wpdb"
)

// The demo is written into a real embedded store (a SQLite file prepared by Migrate) and read back
// through the real HTTP stack.

// anchor is the instant the test calendars are built around (and the service clock).
var anchor = time.Date(2026, 3, 18, 14, 30, 0, 0, time.UTC)

const siteURL = "http://calendar.test"

type calendar struct {
	db      *wpdb.DB
	site    *calendard.Site
	admin   *calendard.User
	srv     *httptest.Server
	appPass string
}

// newCalendar prepares an empty calendar in a new SQLite file and serves it.
func newCalendar(t *testing.T) *calendar {
	t.Helper()
	db, err := wpdb.OpenSQLite(filepath.Join(t.TempDir(), "calendar.db"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	return newCalendarOn(t, db)
}

// newCalendarOn prepares an empty calendar in db and serves it.
func newCalendarOn(t *testing.T, db *wpdb.DB) *calendar {
	t.Helper()
	ctx := context.Background()
	t.Cleanup(func() { db.Close() })
	res, err := db.Migrate(ctx, wpdb.MigrateOptions{SiteURL: siteURL, Timezone: "UTC", SiteName: "Demo",
		AdminLogin: "admin", AdminEmail: "admin@example.com"}, anchor)
	if err != nil {
		t.Fatal(err)
	}
	live, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	store := service.Start(live, db, wpdb.SiteOverrides{}, service.Live)
	site, err := store.Site(ctx)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := demo.Author(ctx, db, site, "", "")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(service.Handler(handlers.Config{Environment: "local", Clock: func() time.Time { return anchor }}, store))
	t.Cleanup(srv.Close)
	return &calendar{db: db, site: site, admin: admin, srv: srv, appPass: res.AppPassword}
}

func (c *calendar) fill(t *testing.T, o demo.Options) *demo.Summary {
	t.Helper()
	if o.Now.IsZero() {
		o.Now = anchor
	}
	s, err := demo.Fill(context.Background(), c.db, c.site, c.admin, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// get answers a GET as the administrator (auth) or anonymously, failing on anything but 200.
func (c *calendar) get(t *testing.T, path string, auth bool) map[string]any {
	t.Helper()
	req, err := http.NewRequest("GET", c.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("admin:"+c.appPass)))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, raw)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return body
}

// all reads every page of a list ("events", "venues", ...); query is added to each request.
func (c *calendar) all(t *testing.T, list, query string, auth bool) []map[string]any {
	t.Helper()
	var out []map[string]any
	for page := 1; ; page++ {
		body := c.get(t, fmt.Sprintf("/wp-json/tribe/events/v1/%s?per_page=50&page=%d&%s", list, page, query), auth)
		items, _ := body[list].([]any)
		for _, it := range items {
			out = append(out, it.(map[string]any))
		}
		if pages, _ := body["total_pages"].(float64); float64(page) >= pages {
			return out
		}
	}
}

// allDates lists events whatever their dates; termsQuery lists terms without events too.
const (
	allDates   = "start_date=2000-01-01&end_date=2100-01-01"
	termsQuery = "hide_empty=false"
)

var listQuery = map[string]string{"categories": termsQuery, "tags": termsQuery}

func TestFillWritesACalendarTheAPIServes(t *testing.T) {
	c := newCalendar(t)
	sum := c.fill(t, demo.Options{Events: 240, Seed: 42})
	public := c.all(t, "events", allDates, false)
	venues := c.all(t, "venues", "", false)

	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"every published event is listed", func(t *testing.T) {
			want := sum.Events - sum.Drafts - sum.Pending - sum.Private
			if len(public) != want || want < 200 {
				t.Errorf("anonymous list has %d events, want %d (of %d)", len(public), want, sum.Events)
			}
		}},
		{"drafts, pending and private events are there for the administrator", func(t *testing.T) {
			for status, want := range map[string]int{"draft": sum.Drafts, "pending": sum.Pending, "private": sum.Private} {
				got := len(c.all(t, "events", allDates+"&status="+status, true))
				if got != want || want == 0 {
					t.Errorf("status=%s: %d events, want %d (> 0)", status, got, want)
				}
			}
		}},
		{"venues have addresses and stored coordinates", func(t *testing.T) {
			if len(venues) < 20 {
				t.Fatalf("%d venues, want about 20", len(venues))
			}
			ids := make([]int64, 0, len(venues))
			for _, v := range venues {
				if v["address"] == "" || v["city"] == "" || v["country"] == "" || v["phone"] == "" || v["website"] == "" {
					t.Errorf("venue %v lacks address data: %v", v["venue"], v)
				}
				ids = append(ids, int64(v["id"].(float64)))
			}
			// The free plugin's read path does not show coordinates (geo_lat/geo_lng are Pro's);
			// they are stored under Pro's meta keys.
			posts, err := c.db.LinkedPosts(context.Background(), ids)
			if err != nil {
				t.Fatal(err)
			}
			if len(posts) != len(ids) {
				t.Fatalf("loaded %d of %d venues", len(posts), len(ids))
			}
			for _, p := range posts {
				lat, err1 := strconv.ParseFloat(p.Meta.Value("_VenueLat"), 64)
				lng, err2 := strconv.ParseFloat(p.Meta.Value("_VenueLng"), 64)
				if err1 != nil || err2 != nil || lat == 0 || lng == 0 || lat < -90 || lat > 90 || lng < -180 || lng > 180 {
					t.Errorf("venue %q: coordinates %q, %q", p.Title, p.Meta.Value("_VenueLat"), p.Meta.Value("_VenueLng"))
				}
			}
		}},
		{"events are in many time zones, their UTC times matching the zone", func(t *testing.T) {
			zones := map[string]bool{}
			for _, e := range public {
				zones[e["timezone"].(string)] = true
				loc, err := time.LoadLocation(e["timezone"].(string))
				if err != nil {
					t.Fatal(err)
				}
				local, err := time.ParseInLocation(calendard.DBDateTime, e["start_date"].(string), loc)
				if err != nil {
					t.Fatal(err)
				}
				if got := local.UTC().Format(calendard.DBDateTime); got != e["utc_start_date"] {
					t.Errorf("event %v: start %v in %v is %s UTC, record says %v", e["id"], e["start_date"], e["timezone"], got, e["utc_start_date"])
				}
			}
			if len(zones) < 12 {
				t.Errorf("%d time zones, want at least 12: %v", len(zones), zones)
			}
		}},
		{"all-day and multi-day events are present", func(t *testing.T) {
			allDay, multi := 0, 0
			for _, e := range public {
				if e["all_day"] == true {
					allDay++
					if !strings.HasSuffix(e["start_date"].(string), "00:00:00") || !strings.HasSuffix(e["end_date"].(string), "23:59:59") {
						t.Errorf("all-day event %v runs %v – %v", e["id"], e["start_date"], e["end_date"])
					}
				}
				if e["start_date"].(string)[:10] != e["end_date"].(string)[:10] {
					multi++
				}
			}
			if allDay < 5 || multi < 5 {
				t.Errorf("%d all-day and %d multi-day events, want several of each", allDay, multi)
			}
		}},
		{"events are past, current and upcoming around the anchor", func(t *testing.T) {
			past, week, later := 0, 0, 0
			for _, e := range public {
				start, err1 := time.Parse(calendard.DBDateTime, e["utc_start_date"].(string))
				end, err2 := time.Parse(calendard.DBDateTime, e["utc_end_date"].(string))
				if err1 != nil || err2 != nil {
					t.Fatalf("event %v: UTC dates %v – %v", e["id"], e["utc_start_date"], e["utc_end_date"])
				}
				switch {
				case end.Before(anchor):
					past++
				case start.Before(anchor.AddDate(0, 0, 7)):
					week++
				default:
					later++
				}
			}
			if past < 20 || week < 10 || later < 80 {
				t.Errorf("%d past, %d this week, %d later", past, week, later)
			}
		}},
		{"costs are in several currencies and some events are free", func(t *testing.T) {
			symbols, free := map[string]bool{}, 0
			for _, e := range public {
				if s := e["cost_details"].(map[string]any)["currency_symbol"].(string); s != "" {
					symbols[s] = true
				}
				if e["cost"] == "Free" {
					free++
				}
			}
			if len(symbols) < 6 || free < 10 {
				t.Errorf("currency symbols %v, %d free events", symbols, free)
			}
		}},
		{"some events are featured, sticky or have several organizers", func(t *testing.T) {
			featured := len(c.all(t, "events", allDates+"&featured=true", false))
			sticky, multi := 0, 0
			for _, e := range public {
				if e["sticky"] == true {
					sticky++
				}
				if orgs, _ := e["organizer"].([]any); len(orgs) > 1 {
					multi++
				}
			}
			if featured == 0 || featured != sum.Featured || sticky == 0 || multi < 10 {
				t.Errorf("featured %d (summary %d), sticky %d, several organizers %d", featured, sum.Featured, sticky, multi)
			}
		}},
		{"the category tree has parents with children", func(t *testing.T) {
			cats := c.all(t, "categories", termsQuery, false)
			byID := map[float64]map[string]any{}
			for _, cat := range cats {
				byID[cat["id"].(float64)] = cat
			}
			children := 0
			for _, cat := range cats {
				if p := cat["parent"].(float64); p != 0 {
					children++
					if parent := byID[p]; parent == nil || parent["parent"].(float64) != 0 {
						t.Errorf("category %v: parent %v is not a top-level category", cat["name"], p)
					}
				}
			}
			if children < 10 || len(cats)-children < 4 {
				t.Errorf("%d categories, %d of them children", len(cats), children)
			}
		}},
		{"tags and organizers are listed", func(t *testing.T) {
			if n := len(c.all(t, "tags", termsQuery, false)); n < 15 {
				t.Errorf("%d tags", n)
			}
			if n := len(c.all(t, "organizers", "", false)); n < 15 {
				t.Errorf("%d organizers", n)
			}
		}},
		{"the summary counts what was written", func(t *testing.T) {
			if sum.Venues != len(venues) || sum.Events != 240 || sum.Zones < 12 || sum.Skipped {
				t.Errorf("summary %+v, %d venues listed", sum, len(venues))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.check)
	}
}

// snapshot is everything the API shows of a calendar, as the administrator sees it.
func snapshot(t *testing.T, c *calendar) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []struct{ list, query string }{
		{"events", allDates + "&status=publish"}, {"events", allDates + "&status=draft"}, {"events", allDates + "&status=pending"},
		{"events", allDates + "&status=private"}, {"venues", ""}, {"organizers", ""}, {"categories", termsQuery}, {"tags", termsQuery},
	} {
		enc, err := json.Marshal(c.all(t, q.list, q.query, true))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(enc)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestFillIsDeterministic(t *testing.T) {
	tests := []struct {
		name         string
		seedA, seedB uint64
		same         bool
	}{
		{"the same seed gives the same calendar", 7, 7, true},
		{"another seed gives another calendar", 7, 8, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := newCalendar(t), newCalendar(t)
			a.fill(t, demo.Options{Events: 60, Seed: tc.seedA, Batch: 7})
			b.fill(t, demo.Options{Events: 60, Seed: tc.seedB, Batch: 25})
			sa, sb := snapshot(t, a), snapshot(t, b)
			if (sa == sb) != tc.same {
				t.Errorf("snapshots equal = %v, want %v", sa == sb, tc.same)
			}
		})
	}
}

func TestFillOnACalendarWithEvents(t *testing.T) {
	tests := []struct {
		name        string
		force       bool
		wantSkipped bool
		wantEvents  int
	}{
		{"without force nothing is added", false, true, 50},
		{"with force events are added and venues, organizers and terms reused", true, false, 80},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCalendar(t)
			c.fill(t, demo.Options{Events: 50, Seed: 1})
			before := map[string]int{}
			for _, l := range []string{"venues", "organizers", "categories", "tags"} {
				before[l] = len(c.all(t, l, listQuery[l], true))
			}
			second := c.fill(t, demo.Options{Events: 30, Seed: 2, Force: tc.force})
			if second.Skipped != tc.wantSkipped || second.Existing != 50 {
				t.Errorf("second fill: skipped %v, existing %d", second.Skipped, second.Existing)
			}
			n, err := demo.ExistingEvents(context.Background(), c.db, c.site)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.wantEvents {
				t.Errorf("%d events, want %d", n, tc.wantEvents)
			}
			for l, want := range before {
				if got := len(c.all(t, l, listQuery[l], true)); got != want {
					t.Errorf("%s: %d, want %d (no duplicates)", l, got, want)
				}
			}
		})
	}
}

func TestAuthor(t *testing.T) {
	c := newCalendar(t)
	ctx := context.Background()
	tests := []struct {
		name, user, adminEmail string
		wantLogin              string
		wantErr                string
	}{
		{"the migrated administrator is the default", "", "", "admin", ""},
		{"a login names the user", "admin", "", "admin", ""},
		{"an e-mail names the user", "admin@example.com", "", "admin", ""},
		{"an ID names the user", "1", "", "admin", ""},
		{"an unknown user is refused", "nobody", "", "", `no user "nobody"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := demo.Author(ctx, c.db, c.site, tc.user, tc.adminEmail)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || u.Login != tc.wantLogin || !u.Can("publish_tribe_events") {
				t.Fatalf("user %+v, err %v", u, err)
			}
		})
	}
}

func TestFillRefusesUsersWhoCannotPublish(t *testing.T) {
	c := newCalendar(t)
	tests := []struct {
		name string
		user *calendard.User
	}{
		{"an anonymous visitor is refused", calendard.Anonymous},
		{"an author without manage_categories is refused", &calendard.User{ID: 9, Login: "author",
			Caps: map[string]bool{"publish_tribe_events": true, "publish_tribe_venues": true, "publish_tribe_organizers": true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := demo.Fill(context.Background(), c.db, c.site, tc.user, demo.Options{Events: 5, Now: anchor})
			if err == nil || !strings.Contains(err.Error(), "may not write the demo") {
				t.Fatalf("err = %v", err)
			}
			if n, err := demo.ExistingEvents(context.Background(), c.db, c.site); err != nil || n != 0 {
				t.Errorf("%d events written (%v)", n, err)
			}
		})
	}
}
