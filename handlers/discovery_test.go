package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// fixtureHome is the fixture's home option.
const fixtureHome = "http://127.0.0.1:8088"

// disableTECAPI sets the plugin's rest-v1-disabled option in the fixture's options array.
const disableTECAPI = `UPDATE %s.wp_options SET option_value = REPLACE(option_value, 'a:14:{', 'a:15:{s:16:"rest-v1-disabled";s:1:"1";') WHERE option_name = 'tribe_events_calendar_options'`

func TestSitePagesCarryDiscoveryHeaders(t *testing.T) {
	enabled := map[string]string{
		"Link":              `<` + fixtureHome + `/wp-json/>; rel="https://api.w.org/"`,
		"X-Tec-Api-Version": "v1",
		"X-Tec-Api-Root":    fixtureHome + "/wp-json/tribe/events/v1/",
		"X-Tec-Api-Origin":  fixtureHome,
	}
	for store, srv := range bothStores(t, handlers.Config{WholeSite: true}) {
		for _, tc := range []struct {
			name, method, path string
			status             int
		}{
			{"site root GET is a page with the headers", "GET", "/", 200},
			{"site root HEAD has the headers and no body", "HEAD", "/", 200},
			{"site root with a query but no rest_route is a page", "GET", "/?p=35", 200},
			{"index.php is the site root", "GET", "/index.php", 200},
			{"unserved path of the whole site is a 404 page with the headers", "GET", "/events/harbour-gala/", 404},
			{"unserved path HEAD is a 404 with the headers", "HEAD", "/category/news", 404},
		} {
			t.Run(store+"/"+tc.name, func(t *testing.T) {
				a := call(t, srv, tc.method, tc.path, nil, "")
				if a.status != tc.status {
					t.Fatalf("status %d, want %d: %.200s", a.status, tc.status, a.raw)
				}
				for k, v := range enabled {
					if got := a.header.Get(k); got != v {
						t.Errorf("%s = %q, want %q", k, got, v)
					}
				}
				if ct := a.header.Get("Content-Type"); ct != "text/html; charset=UTF-8" {
					t.Errorf("Content-Type %q", ct)
				}
				if tc.method == "HEAD" {
					if a.raw != "" {
						t.Errorf("HEAD body %q", a.raw)
					}
					return
				}
				for _, tag := range []string{`<link rel="https://api.w.org/" href="` + fixtureHome + `/wp-json/" />`,
					`<meta name="tec-api-version" content="v1">`, `<meta name="tec-api-origin" content="` + fixtureHome + `">`,
					`<link rel="alternate" href="` + fixtureHome + `/wp-json/tribe/events/v1/" />`} {
					if !strings.Contains(a.raw, tag) {
						t.Errorf("page lacks %s:\n%s", tag, a.raw)
					}
				}
			})
		}
		t.Run(store+"/REST routes are unchanged", func(t *testing.T) {
			a := call(t, srv, "GET", "/wp-json/tribe/events/v1/nothing-here", nil, "")
			if a.status != 404 || a.body["code"] != "rest_no_route" || a.header.Get("X-Tec-Api-Version") != "" {
				t.Errorf("status %d code %v X-TEC-API-VERSION %q", a.status, a.body["code"], a.header.Get("X-Tec-Api-Version"))
			}
		})
	}

	t.Run("behind WordPress an unserved path stays the REST server's 404", func(t *testing.T) {
		srv, _, _ := serveFixture(t, handlers.Config{Environment: "local"}, "dn")
		a := call(t, srv, "GET", "/events/harbour-gala/", nil, "")
		if a.status != 404 || a.body["code"] != "rest_no_route" {
			t.Errorf("status %d body %.200s", a.status, a.raw)
		}
		root := call(t, srv, "HEAD", "/", nil, "")
		if root.status != 200 || root.header.Get("Link") != enabled["Link"] {
			t.Errorf("site root: status %d Link %q", root.status, root.header.Get("Link"))
		}
	})

	t.Run("with the plugin's API disabled the version header says disabled and nothing else", func(t *testing.T) {
		srv, _, _ := serveFixture(t, handlers.Config{Environment: "local", WholeSite: true}, "dd", disableTECAPI)
		a := call(t, srv, "GET", "/", nil, "")
		if a.status != 200 {
			t.Fatalf("status %d", a.status)
		}
		if got := a.header.Get("X-Tec-Api-Version"); got != "disabled" {
			t.Errorf("X-TEC-API-VERSION %q, want disabled", got)
		}
		for _, k := range []string{"X-Tec-Api-Root", "X-Tec-Api-Origin"} {
			if v, ok := a.header[k]; ok {
				t.Errorf("%s sent: %q", k, v)
			}
		}
		if a.header.Get("Link") != enabled["Link"] {
			t.Errorf("WordPress' Link header %q", a.header.Get("Link"))
		}
		if strings.Contains(a.raw, "tec-api") {
			t.Errorf("page names the disabled API:\n%s", a.raw)
		}
	})
}

// TestWPAPIDiscoverFindsTheAPI runs npm's wpapi@1.2.2 (handlers/testdata/wpapi) against a server
// whose site URL is its own address: WPAPI.discover(siteURL) must find /wp-json/ from the site
// root alone and read events through the routes it discovered. It needs node and npm (.ci/run
// installs them); without them it fails.
func TestWPAPIDiscoverFindsTheAPI(t *testing.T) {
	testenv.SkipIfShort(t, "node and npm (npm's wpapi), and mariadbd")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (apt-get install -y nodejs npm): wpapi's discovery cannot be tested")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "wpapi"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "wpapi", "package.json")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatal("npm is not installed: cannot install wpapi")
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}

	for _, store := range []string{"mysql", "sqlite"} {
		t.Run(store+"/discover binds to the site's wp-json and reads events", func(t *testing.T) {
			srv := httptest.NewUnstartedServer(nil)
			home := "http://" + srv.Listener.Addr().String()
			var db *wpdb.DB
			if store == "mysql" {
				db, err = wpdb.OpenMySQL(testenv.FixtureDB(t, fixture, testenv.DBName("dw", t)), "wp_")
			} else {
				db, err = wpdb.OpenSQLite(sqliteCopy(t), "wp_")
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			st := liveStore(t, db, wpdb.SiteOverrides{HomeURL: home})
			srv.Config.Handler = service.Handler(handlers.Config{Environment: "local", WholeSite: store == "sqlite",
				Clock: func() time.Time { return recordedNow }}, st)
			srv.Start()
			t.Cleanup(srv.Close)

			cmd := exec.Command(node, "discover.js", home)
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				stderr := ""
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("WPAPI.discover(%s) failed: %v\n%s", home, err, stderr)
			}
			var got struct {
				Endpoint string  `json:"endpoint"`
				Events   []int64 `json:"events"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got.Endpoint != home+"/wp-json/" {
				t.Errorf("endpoint %q, want %q", got.Endpoint, home+"/wp-json/")
			}
			// The same first page, asked for directly.
			resp, err := http.Get(home + "/wp-json/tribe/events/v1/events?per_page=2")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var direct struct {
				Events []struct {
					ID int64 `json:"id"`
				} `json:"events"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&direct); err != nil {
				t.Fatal(err)
			}
			if len(direct.Events) != 2 || len(got.Events) != 2 || got.Events[0] != direct.Events[0].ID || got.Events[1] != direct.Events[1].ID {
				t.Errorf("events through wpapi %v, directly %v", got.Events, direct.Events)
			}
		})
	}
}

// sqliteCopy is a fresh copy of the SQLite fixture file.
func sqliteCopy(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(sqliteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wp.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
