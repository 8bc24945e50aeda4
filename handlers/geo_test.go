package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/search"
	"github.com/calendard/calendard/wpdb"
)

// geoServer serves the fixture with the geo filters on or off, answered from SQL (search.Geo
// without an index; the index's answers are held equal to these in package search).
func geoServer(t *testing.T, on bool) *httptest.Server {
	t.Helper()
	dsn := testenv.FixtureDB(t, fixture, testenv.DBName("geo", t))
	db, err := wpdb.OpenMySQL(dsn, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 11, 22, 4, 29, 21, 0, time.UTC)
	srv := httptest.NewServer(service.Handler(handlers.Config{Environment: "local", Clock: func() time.Time { return now },
		Geo: on, GeoRadiusKM: 25}, liveStore(t, db, wpdb.SiteOverrides{}), service.WithSearch(service.Search{Geo: &search.Geo{DB: db}})))
	t.Cleanup(srv.Close)
	return srv
}

const wide = "/wp-json/tribe/events/v1/events?per_page=50&start_date=2020-01-01&end_date=2030-12-31"

func eventIDs(t *testing.T, a answer) []int64 {
	t.Helper()
	if a.status != 200 {
		t.Fatalf("status %d: %s", a.status, a.raw)
	}
	var out []int64
	list, _ := a.body["events"].([]any)
	for _, e := range list {
		out = append(out, int64(e.(map[string]any)["id"].(float64)))
	}
	return out
}

func TestGeoFiltersOffAreTheFreePlugins(t *testing.T) {
	srv := geoServer(t, false)
	all := call(t, srv, "GET", wide, nil, "")
	for _, q := range []string{"&geoloc=1", "&geoloc=1&geoloc_lat=40.7", "&geoloc=1&geoloc_lat=north&geoloc_lng=west", "&geoloc=1&geoloc_lat=40.7&geoloc_lng=-74&geoloc_radius=1"} {
		t.Run(q+" lists every event", func(t *testing.T) {
			a := call(t, srv, "GET", wide+q, nil, "")
			if a.status != 200 || a.header.Get("X-TEC-Total") != all.header.Get("X-TEC-Total") {
				t.Fatalf("status %d, total %s, want 200 and %s", a.status, a.header.Get("X-TEC-Total"), all.header.Get("X-TEC-Total"))
			}
		})
	}
}

func TestGeoFiltersOn(t *testing.T) {
	srv := geoServer(t, true)
	byVenues := func(venues ...int64) []int64 {
		s := make([]string, len(venues))
		for i, v := range venues {
			s[i] = fmt.Sprint(v)
		}
		return eventIDs(t, call(t, srv, "GET", wide+"&venue="+strings.Join(s, ","), nil, ""))
	}
	all := eventIDs(t, call(t, srv, "GET", wide, nil, ""))
	// Venues with coordinates in the fixture: 10 Chicago, 11 Madrid, 12 New York, 13 Dublin,
	// 14 Adelaide, 16 Berlin, 17 Bengaluru, 18 Toronto, 19 Milan, 20 Paris.
	for _, tc := range []struct {
		name, query string
		want        []int64
	}{
		{"geoloc alone lists the events at venues with coordinates", "&geoloc=1", byVenues(10, 11, 12, 13, 14, 16, 17, 18, 19, 20)},
		{"New York within 1200 km lists New York, Chicago and Toronto", "&geoloc=1&geoloc_lat=40.7128&geoloc_lng=-74.006&geoloc_radius=1200", byVenues(10, 12, 18)},
		{"the default radius (25 km) around Lincoln Center lists New York only", "&geoloc=1&geoloc_lat=40.7725&geoloc_lng=-73.9835", byVenues(12)},
		{"combined with a venue filter the sets intersect", "&geoloc=1&geoloc_lat=40.7128&geoloc_lng=-74.006&geoloc_radius=1200&venue=12,20", byVenues(12)},
		{"nowhere near a venue lists nothing", "&geoloc=1&geoloc_lat=-60&geoloc_lng=-30&geoloc_radius=100", nil},
		{"geoloc=0 filters nothing", "&geoloc=0&geoloc_lat=-60&geoloc_lng=-30", all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := eventIDs(t, call(t, srv, "GET", wide+tc.query, nil, ""))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	geo := call(t, srv, "GET", wide+"&geoloc=1", nil, "").header.Get("X-TEC-Total")
	every := call(t, srv, "GET", wide, nil, "").header.Get("X-TEC-Total")
	if geo == "" || geo == "0" || geo == every {
		t.Fatalf("geoloc=1 lists %s of %s events: the fixture should tell them apart", geo, every)
	}
	for _, tc := range []struct{ name, query, param string }{
		{"a latitude without a longitude is a 400", "&geoloc=1&geoloc_lat=40.7", "geoloc_lng"},
		{"a longitude without a latitude is a 400", "&geoloc=1&geoloc_lng=-74", "geoloc_lat"},
		{"a latitude that is no number is a 400", "&geoloc=1&geoloc_lat=north&geoloc_lng=-74", "geoloc_lat"},
		{"a latitude past 90 is a 400", "&geoloc=1&geoloc_lat=91&geoloc_lng=-74", "geoloc_lat"},
		{"a negative radius is a 400", "&geoloc=1&geoloc_lat=40&geoloc_lng=-74&geoloc_radius=-5", "geoloc_radius"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := call(t, srv, "GET", wide+tc.query, nil, "")
			params, _ := a.body["data"].(map[string]any)["params"].(map[string]any)
			if a.status != 400 || a.body["code"] != "rest_invalid_param" || params[tc.param] == nil {
				t.Fatalf("status %d: %s", a.status, a.raw)
			}
		})
	}
	t.Run("published venues within 1000 km of Paris are Berlin, Milan and Dublin (the Paris venue is a draft)", func(t *testing.T) {
		a := call(t, srv, "GET", "/wp-json/tribe/events/v1/venues?per_page=50&geoloc=1&geoloc_lat=48.8776&geoloc_lng=2.3019&geoloc_radius=1000", nil, "")
		if a.status != 200 {
			t.Fatalf("status %d: %s", a.status, a.raw)
		}
		var got []int64
		for _, v := range a.body["venues"].([]any) {
			got = append(got, int64(v.(map[string]any)["id"].(float64)))
		}
		slices.Sort(got)
		if !slices.Equal(got, []int64{13, 16, 19}) {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("orderby=distance lists New York's events, then Toronto's, then Chicago's", func(t *testing.T) {
		a := call(t, srv, "GET", wide+"&geoloc=1&geoloc_lat=40.7128&geoloc_lng=-74.006&geoloc_radius=1200&orderby=distance", nil, "")
		got := eventIDs(t, a)
		want := append(append(byVenues(12), byVenues(18)...), byVenues(10)...)
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		if a.header.Get("X-TEC-Total") != fmt.Sprint(len(want)) {
			t.Fatalf("total %s, want %d", a.header.Get("X-TEC-Total"), len(want))
		}
	})
	t.Run("orderby=title is ignored, as the plugin ignores it", func(t *testing.T) {
		plain := call(t, srv, "GET", wide, nil, "")
		a := call(t, srv, "GET", wide+"&orderby=title", nil, "")
		if a.status != 200 || !slices.Equal(eventIDs(t, a), eventIDs(t, plain)) {
			t.Fatalf("status %d, %v; without orderby %v", a.status, eventIDs(t, a), eventIDs(t, plain))
		}
	})
	t.Run("organizers declare no extension", func(t *testing.T) {
		a := call(t, srv, "GET", "/wp-json/tribe/events/v1/doc", nil, "")
		var doc struct {
			Paths map[string]struct {
				Get struct {
					Parameters []struct{ Name string }
				}
			}
		}
		if err := json.Unmarshal([]byte(a.raw), &doc); err != nil {
			t.Fatal(err)
		}
		for _, p := range doc.Paths["/organizers"].Get.Parameters {
			if p.Name == "orderby" || strings.HasPrefix(p.Name, "geoloc") {
				t.Errorf("/organizers declares %s", p.Name)
			}
		}
		if len(doc.Paths["/organizers"].Get.Parameters) == 0 {
			t.Fatal("no /organizers parameters in /doc")
		}
	})
	t.Run("the extensions are listed in the route's arguments", func(t *testing.T) {
		a := call(t, srv, "GET", "/wp-json/tribe/events/v1/", nil, "")
		if !strings.Contains(a.raw, `"geoloc_radius"`) || !strings.Contains(a.raw, `"orderby"`) {
			t.Fatal("geoloc_radius is not declared")
		}
	})
}

// Geo parameters that cannot apply are not dropped in silence. Events Calendar Pro ignores
// geoloc_lat and geoloc_lng on events without geoloc=1 (its query hook returns at once), and so
// does calendard; calendard's own parameters — geoloc_radius, and on venues all three — are a 400
// rest_invalid_param that names what is missing.
func TestGeoParametersWithoutGeolocAreRefusedOrIgnoredAsThePlugin(t *testing.T) {
	srv := geoServer(t, true)
	all := eventIDs(t, call(t, srv, "GET", wide, nil, ""))
	for _, q := range []string{"&geoloc_lat=-60&geoloc_lng=-30", "&geoloc_lat=40.7", "&geoloc=0&geoloc_lat=-60&geoloc_lng=-30"} {
		if got := eventIDs(t, call(t, srv, "GET", wide+q, nil, "")); !slices.Equal(got, all) {
			t.Errorf("events %s: %d events, want all %d (as Events Calendar Pro)", q, len(got), len(all))
		}
	}
	venues := "/wp-json/tribe/events/v1/venues?per_page=50"
	for _, tc := range []struct{ path, want, missing string }{
		{venues + "&geoloc_lat=48.8776&geoloc_lng=2.3019", "geoloc_lat,geoloc_lng", "geoloc=1"},
		{venues + "&geoloc=0&geoloc_lng=2.3019", "geoloc_lng", "geoloc=1"},
		{venues + "&geoloc_radius=1000", "geoloc_radius", "geoloc=1"},
		{venues + "&geoloc=1&geoloc_radius=1000", "geoloc_radius", "geoloc_lat"},
		{wide + "&geoloc_lat=40.7&geoloc_lng=-74&geoloc_radius=1200", "geoloc_radius", "geoloc=1"},
		{wide + "&geoloc=1&geoloc_radius=1200", "geoloc_radius", "geoloc_lat"},
	} {
		a := call(t, srv, "GET", tc.path, nil, "")
		data, _ := a.body["data"].(map[string]any)
		params, _ := data["params"].(map[string]any)
		var names []string
		for k := range params {
			names = append(names, k)
		}
		slices.Sort(names)
		msg, _ := params[strings.Split(tc.want, ",")[0]].(string)
		if a.status != 400 || a.body["code"] != "rest_invalid_param" || !wpShaped(a) || strings.Join(names, ",") != tc.want ||
			!strings.Contains(msg, tc.missing) {
			t.Errorf("%s: %d %.300s, want 400 rest_invalid_param on %s saying %s is missing", tc.path, a.status, a.raw, tc.want, tc.missing)
		}
	}
}
