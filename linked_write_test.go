package calendard_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// linkedFixture is the recorded site in a fresh database: the writer, the site and a raw connection
// to inspect rows.
type linkedFixture struct {
	db   *wpdb.DB
	site *calendard.Site
	raw  *sql.DB
}

func newLinkedFixture(t *testing.T) *linkedFixture {
	t.Helper()
	dsn := testenv.FixtureDB(t, filepath.Join("compat-tests", "testdata", "site-a", "fixture.sql"), testenv.DBName("linked", t))
	db, err := wpdb.OpenMySQL(dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	site, err := service.Start(context.Background(), db, wpdb.SiteOverrides{}, service.Cold).Site(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return &linkedFixture{db: db, site: site, raw: raw}
}

// recordedNow is the clock of the recorded venue/organizer write cases.
var recordedNow = time.Date(2026, 11, 22, 4, 31, 20, 0, time.UTC)

// admin has the capabilities the writes consult (the recorded administrator, user 1).
var admin = &calendard.User{ID: 1, Login: "admin", Caps: map[string]bool{
	"publish_tribe_events": true, "read_private_tribe_events": true, "edit_tribe_venues": true,
	"edit_tribe_organizers": true, "unfiltered_html": true,
}}

func (f *linkedFixture) write(t *testing.T, fn func(tx calendard.WriteTx) error) error {
	t.Helper()
	return f.db.Write(context.Background(), func() time.Time { return recordedNow }, fn)
}

// meta returns a post's meta rows (values per key in meta_id order).
func (f *linkedFixture) meta(t *testing.T, id int64) map[string][]string {
	t.Helper()
	rows, err := f.raw.Query("SELECT meta_key, meta_value FROM wp_postmeta WHERE post_id = ? ORDER BY meta_id", id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		out[k] = append(out[k], v)
	}
	return out
}

func (f *linkedFixture) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := f.raw.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCreateLinkedVenueStoresThePluginRows(t *testing.T) {
	f := newLinkedFixture(t)
	data := calendard.LinkedArray{
		{Key: "post_date", Value: false}, {Key: "post_date_gmt", Value: false}, {Key: "post_status", Value: "publish"},
		{Key: "Venue", Value: "New Venue “Q”"}, {Key: "Description", Value: "<p>desc</p>"}, {Key: "Address", Value: "9 Road"},
		{Key: "Province", Value: "Osaka"}, {Key: "State", Value: ""}, {Key: "FeaturedImage", Value: "5"},
		{Key: "ShowMap", Value: "1"}, {Key: "ShowMapLink", Value: "false"},
	}
	var id int64
	if err := f.write(t, func(tx calendard.WriteTx) error {
		var err error
		id, err = calendard.CreateLinked(context.Background(), tx, f.site, admin, calendard.PostTypeVenue, data, true)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var name, title, content, status string
	if err := f.raw.QueryRow("SELECT post_name, post_title, post_content, post_status FROM wp_posts WHERE ID = ?", id).
		Scan(&name, &title, &content, &status); err != nil {
		t.Fatal(err)
	}
	if name != "new-venue-q" || title != "New Venue “Q”" || content != "<p>desc</p>" || status != "publish" {
		t.Errorf("post row: %q %q %q %q", name, title, content, status)
	}
	want := map[string][]string{
		"_VenueOrigin": {"events-calendar"}, "_EventShowMapLink": {""}, "_EventShowMap": {"1"},
		"_VenueShowMapLink": {""}, "_VenueShowMap": {"1"}, "_thumbnail_id": {"5"}, "_Venuepost_date": {""},
		"_Venuepost_date_gmt": {""}, "_VenueDescription": {"desc"}, "_VenueAddress": {"9 Road"},
		"_VenueProvince": {"Osaka"}, "_VenueState": {""}, "_VenueStateProvince": {"Osaka"},
	}
	got := f.meta(t, id)
	delete(got, "_tribe_modified_fields")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("meta:\n got %v\nwant %v", got, want)
	}
}

func TestCreateLinkedDerivesStateProvince(t *testing.T) {
	f := newLinkedFixture(t)
	tests := []struct {
		name string
		data calendard.LinkedArray
		want string
	}{
		{"state of a US venue", calendard.LinkedArray{{Key: "State", Value: "IL"}, {Key: "Country", Value: "United States"}}, "IL"},
		{"state without a country", calendard.LinkedArray{{Key: "State", Value: "IL"}}, "IL"},
		{"state with country code US", calendard.LinkedArray{{Key: "State", Value: "IL"}, {Key: "Country", Value: "US"}}, "IL"},
		{"province outside the US", calendard.LinkedArray{{Key: "State", Value: "Bayern"}, {Key: "Country", Value: "Germany"}, {Key: "Province", Value: "BY"}}, "BY"},
		{"state outside the US is dropped", calendard.LinkedArray{{Key: "State", Value: "Bayern"}, {Key: "Country", Value: "Germany"}}, ""},
		{"explicit value wins", calendard.LinkedArray{{Key: "StateProvince", Value: "X"}, {Key: "State", Value: "IL"}}, "X"},
		{"empty explicit value is derived", calendard.LinkedArray{{Key: "StateProvince", Value: ""}, {Key: "Province", Value: "P"}}, "P"},
		{"state \"0\" counts as given", calendard.LinkedArray{{Key: "State", Value: "0"}}, "0"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := append(calendard.LinkedArray{{Key: "Venue", Value: "Derived " + string(rune('A'+i))},
				{Key: "post_status", Value: "publish"}}, tc.data...)
			var id int64
			if err := f.write(t, func(tx calendard.WriteTx) error {
				var err error
				id, err = calendard.CreateLinked(context.Background(), tx, f.site, admin, calendard.PostTypeVenue, data, true)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if got := f.meta(t, id)["_VenueStateProvince"]; !reflect.DeepEqual(got, []string{tc.want}) {
				t.Errorf("_VenueStateProvince = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCreateLinkedReusesAPostWithTheSameName(t *testing.T) {
	f := newLinkedFixture(t)
	tests := []struct {
		name      string
		postType  string
		data      calendard.LinkedArray
		wantReuse int64 // 0: a new post
	}{
		{"same venue title reuses the venue", calendard.PostTypeVenue,
			calendard.LinkedArray{{Key: "Venue", Value: "chicago riverside loft"}}, 10},
		{"same organizer title reuses the organizer", calendard.PostTypeOrganizer,
			calendard.LinkedArray{{Key: "Organizer", Value: "Jazz Collective"}}, 22},
		{"a different description makes a new venue", calendard.PostTypeVenue,
			calendard.LinkedArray{{Key: "Venue", Value: "Chicago Riverside Loft"}, {Key: "Description", Value: "other"}}, 0},
		{"trashed venues are not reused", calendard.PostTypeVenue,
			calendard.LinkedArray{{Key: "Venue", Value: "Trashed Venue"}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := f.count(t, "SELECT COUNT(*) FROM wp_posts")
			var id int64
			if err := f.write(t, func(tx calendard.WriteTx) error {
				var err error
				data := append(tc.data, calendard.KV{Key: "post_status", Value: "publish"})
				id, err = calendard.CreateLinked(context.Background(), tx, f.site, admin, tc.postType, data, true)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			after := f.count(t, "SELECT COUNT(*) FROM wp_posts")
			if tc.wantReuse != 0 {
				if id != tc.wantReuse || after != before {
					t.Errorf("id %d (want %d), posts %d -> %d", id, tc.wantReuse, before, after)
				}
				return
			}
			if id <= 207 || after != before+1 {
				t.Errorf("want a new post: id %d, posts %d -> %d", id, before, after)
			}
		})
	}
	// The reused venue's meta was overwritten with the (empty) submitted data.
	if got := f.meta(t, 10)["_VenueStateProvince"]; !reflect.DeepEqual(got, []string{""}) {
		t.Errorf("reused venue _VenueStateProvince = %q", got)
	}
}

func TestUpdateLinkedVenueRewritesFlagsAndImage(t *testing.T) {
	f := newLinkedFixture(t)
	data := calendard.LinkedArray{{Key: "VenueID", Value: int64(11)}, {Key: "post_date", Value: false},
		{Key: "post_date_gmt", Value: false}, {Key: "post_status", Value: "publish"}, {Key: "Venue", Value: "Renamed"},
		{Key: "FeaturedImage", Value: false}}
	if err := f.write(t, func(tx calendard.WriteTx) error {
		return calendard.UpdateLinked(context.Background(), tx, f.site, admin, calendard.PostTypeVenue, 11, data)
	}); err != nil {
		t.Fatal(err)
	}
	m := f.meta(t, 11)
	for _, k := range []string{"_EventShowMap", "_EventShowMapLink", "_VenueShowMap", "_VenueShowMapLink"} {
		if !reflect.DeepEqual(m[k], []string{"1"}) {
			t.Errorf("%s = %q, want on", k, m[k])
		}
	}
	if _, ok := m["_thumbnail_id"]; ok {
		t.Error("featured image kept")
	}
	if !reflect.DeepEqual(m["_VenueStateProvince"], []string{""}) || !reflect.DeepEqual(m["_VenueCity"], []string{"Madrid"}) {
		t.Errorf("state/province %q, city %q", m["_VenueStateProvince"], m["_VenueCity"])
	}
	if _, ok := m["_VenueVenueID"]; ok {
		t.Error("the ID was stored as meta")
	}
	if n := f.count(t, "SELECT COUNT(*) FROM wp_posts WHERE post_type = 'revision' AND post_parent = 11 AND post_title = 'Renamed'"); n != 1 {
		t.Errorf("revisions = %d, want 1", n)
	}
}

func TestTrashLinkedUnlinksTheFirstUpcomingEvents(t *testing.T) {
	f := newLinkedFixture(t)
	linkedTo := func(org string) []int64 {
		rows, err := f.raw.Query("SELECT post_id FROM wp_postmeta WHERE meta_key = '_EventOrganizerID' AND meta_value = ? ORDER BY post_id", org)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	if err := f.write(t, func(tx calendard.WriteTx) error {
		p, err := tx.LockPost(context.Background(), 25)
		if err != nil {
			return err
		}
		_, err = calendard.TrashLinked(context.Background(), tx, f.site, admin, p)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// Organizer 25 had 11 upcoming published events; the first 10 (by start) lose every organizer
	// row, the 11th (104) and the past or private ones keep theirs.
	if got, want := linkedTo("25"), []int64{39, 40, 104, 106}; !reflect.DeepEqual(got, want) {
		t.Errorf("events still linked to organizer 25: %v, want %v", got, want)
	}
	if got := f.meta(t, 160)["_EventOrganizerID"]; got != nil {
		t.Errorf("event 160 kept organizers %v", got)
	}
	m := f.meta(t, 25)
	if !reflect.DeepEqual(m["_wp_trash_meta_status"], []string{"publish"}) || len(m["_wp_trash_meta_time"]) != 1 {
		t.Errorf("trash meta: %v", m)
	}
	var status, name string
	if err := f.raw.QueryRow("SELECT post_status, post_name FROM wp_posts WHERE ID = 25").Scan(&status, &name); err != nil {
		t.Fatal(err)
	}
	if status != "trash" || name != "stadtische-kulturbehorde__trashed" {
		t.Errorf("post: %s %s", status, name)
	}
}

func TestLinkedWriteLeavesNoRowsWhenTheRequestFails(t *testing.T) {
	f := newLinkedFixture(t)
	posts, meta := f.count(t, "SELECT COUNT(*) FROM wp_posts"), f.count(t, "SELECT COUNT(*) FROM wp_postmeta")
	boom := errors.New("later step failed")
	err := f.write(t, func(tx calendard.WriteTx) error {
		ctx := context.Background()
		if _, err := calendard.CreateLinked(ctx, tx, f.site, admin, calendard.PostTypeOrganizer,
			calendard.LinkedArray{{Key: "Organizer", Value: "Half Written"}, {Key: "post_status", Value: "publish"}}, true); err != nil {
			return err
		}
		p, err := tx.LockPost(ctx, 12)
		if err != nil {
			return err
		}
		if _, err := calendard.TrashLinked(ctx, tx, f.site, admin, p); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if p, m := f.count(t, "SELECT COUNT(*) FROM wp_posts"), f.count(t, "SELECT COUNT(*) FROM wp_postmeta"); p != posts || m != meta {
		t.Errorf("rows changed: posts %d -> %d, meta %d -> %d", posts, p, meta, m)
	}
}

func TestScaleBackStatusUsesTheEventPublishCapability(t *testing.T) {
	contributor := &calendard.User{ID: 4, Caps: map[string]bool{"edit_tribe_venues": true, "publish_tribe_venues": true}}
	tests := []struct {
		name   string
		user   *calendard.User
		status string
		want   string
	}{
		{"publisher without status publishes", admin, "", "publish"},
		{"publisher keeps any status", admin, "draft", "draft"},
		{"non-publisher asking to publish gets pending", contributor, "publish", "pending"},
		{"non-publisher asking for future gets pending", contributor, "future", "pending"},
		{"non-publisher without status gets draft", contributor, "", "draft"},
		{"non-publisher keeps other statuses", contributor, "private", "private"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := calendard.ScaleBackStatus(tc.user, tc.status); got != tc.want {
				t.Errorf("ScaleBackStatus(%q) = %q, want %q", tc.status, got, tc.want)
			}
		})
	}
}

func TestTribeIsTruthy(t *testing.T) {
	tests := []struct {
		in   any
		want bool
	}{
		{true, true}, {"1", true}, {"yes", true}, {"TRUE", true}, {"on", true}, {"y", true}, {"Enabled", true},
		{1, true}, {2.5, true}, {false, false}, {"", false}, {"0", false}, {"false", false}, {"no", false},
		{"abc", false}, {0, false}, {nil, false},
	}
	for _, tc := range tests {
		name := "falsy"
		if tc.want {
			name = "truthy"
		}
		t.Run(fmt.Sprintf("%#v is %s", tc.in, name), func(t *testing.T) {
			if got := calendard.TribeIsTruthy(tc.in); got != tc.want {
				t.Errorf("TribeIsTruthy(%#v) = %v", tc.in, got)
			}
		})
	}
}
