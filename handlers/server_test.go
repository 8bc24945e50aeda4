package handlers_test

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var fixture = filepath.Join("..", "compat-tests", "testdata", "site-a", "fixture.sql")

// recordedNow is the clock of the recorded set's first cases.
var recordedNow = time.Date(2026, 11, 22, 4, 29, 22, 0, time.UTC)

// newServer serves the recorded fixture through the real HTTP stack.
func newServer(t *testing.T, cfg handlers.Config) *httptest.Server {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = func() time.Time { return recordedNow }
	}
	if cfg.Environment == "" {
		cfg.Environment = "local"
	}
	srv, _, _ := serveFixture(t, cfg, "h")
	return srv
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func get(t *testing.T, srv *httptest.Server, path string, hdr map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

func basic(user, pass string) map[string]string {
	return map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))}
}

const adminPass = "OracleAppPassw0rd0000000"

// Hostile and malformed parameters get WordPress-shaped 4xx errors or a normal answer, never a 5xx.
func TestBadParametersNeverCauseServerErrors(t *testing.T) {
	srv := newServer(t, handlers.Config{})
	hostile := []string{
		"", "0", "-1", "abc", "2.5", "99999999999999999999999", "1e400", "NaN", " ", "%00", "'", `"`,
		"1' OR '1'='1", "1; DROP TABLE wp_posts; --", "\\", "%", "_", "1,2,,3", "[]", "{}", "null",
		"9999-99-99", "0000-00-00 00:00:00", "+999999999 years", "@-99999999999999", strings.Repeat("a", 5000),
		"日本語", "🎉", "<script>alert(1)</script>", "true", "FALSE",
	}
	params := []string{"page", "per_page", "start_date", "end_date", "starts_before", "starts_after", "ends_before",
		"ends_after", "strict_dates", "search", "categories", "tags", "venue", "organizer", "featured", "status",
		"geoloc", "geoloc_lat", "geoloc_lng", "include", "post_parent", "ticketed", "_fields", "_method"}
	for _, p := range params {
		for _, v := range hostile {
			for _, form := range []string{p + "=" + url.QueryEscape(v), p + "[]=" + url.QueryEscape(v), p + "[x][y]=" + url.QueryEscape(v)} {
				a := get(t, srv, "/wp-json/tribe/events/v1/events?"+form, nil)
				if a.status >= 500 {
					t.Errorf("%s: status %d: %.300s", form, a.status, a.raw)
					continue
				}
				if a.status >= 400 {
					data, _ := a.body["data"].(map[string]any)
					if a.body["code"] == nil || a.body["message"] == nil || data["status"] == nil {
						t.Errorf("%s: error body not WordPress-shaped: %.300s", form, a.raw)
					}
				}
			}
		}
	}
	for _, path := range []string{"/wp-json/tribe/events/v1/events/99999999999999999999999", "/wp-json/tribe/events/v1/events/by-slug/%00%27",
		"/wp-json/tribe/events/v1/events/by-slug/" + strings.Repeat("x", 3000), "/?rest_route[]=x", "/?rest_route=%00"} {
		if a := get(t, srv, path, nil); a.status >= 500 {
			t.Errorf("%s: status %d: %.300s", path, a.status, a.raw)
		}
	}
}

func TestBadParameterAnswersMatchTheReference(t *testing.T) {
	srv := newServer(t, handlers.Config{})
	tests := []struct {
		name, query, code string
		status            int
	}{
		{"huge per_page is capped, not refused", "per_page=1000000", "", 200},
		{"SQL-ish search is just text", "search=" + url.QueryEscape("x' OR 1=1 --"), "", 200},
		{"absurd date is a 400", "start_date=2027-13-45", "rest_invalid_param", 400},
		{"non-numeric page is a 400", "page=abc", "rest_invalid_param", 400},
		{"unknown category is a 400", "categories=no-such", "rest_invalid_param", 400},
		{"non-boolean featured is a type error", "featured=maybe", "rest_invalid_param", 400},
		{"page past the end is a 404", "page=999", "event-archive-page-not-found", 404},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := get(t, srv, "/wp-json/tribe/events/v1/events?"+tc.query, nil)
			if a.status != tc.status || (tc.code != "" && a.body["code"] != tc.code) {
				t.Errorf("status %d code %v, want %d %s: %.200s", a.status, a.body["code"], tc.status, tc.code, a.raw)
			}
		})
	}
}

func TestAuthentication(t *testing.T) {
	srv := newServer(t, handlers.Config{})
	draftList := "/wp-json/tribe/events/v1/events?status=draft&start_date=2020-01-01&end_date=2030-12-31"
	tests := []struct {
		name   string
		hdr    map[string]string
		status int
		code   string
	}{
		{"application password logs in", basic("admin", adminPass), 200, ""},
		{"spaced application password logs in", basic("admin", "Orac leAp pPas sw0r d000 0000"), 200, ""},
		{"login is case-insensitive", basic("ADMIN", adminPass), 200, ""},
		{"e-mail works as login", basic("admin@example.com", adminPass), 200, ""},
		{"login password is not an application password", basic("admin", "admin-password"), 401, "incorrect_password"},
		{"lower-cased application password fails", basic("admin", strings.ToLower(adminPass)), 401, "incorrect_password"},
		{"another user's password fails", basic("editor", adminPass), 401, "incorrect_password"},
		{"unknown login", basic("nobody", adminPass), 401, "invalid_username"},
		{"unknown e-mail", basic("nobody@example.com", adminPass), 401, "invalid_email"},
		{"empty user is an attempt", basic("", adminPass), 401, "invalid_username"},
		{"empty password is anonymous", basic("admin", ""), 400, "rest_invalid_param"},
		{"bearer token is anonymous", map[string]string{"Authorization": "Bearer x"}, 400, "rest_invalid_param"},
		{"undecodable basic token is anonymous", map[string]string{"Authorization": "Basic !!!"}, 400, "rest_invalid_param"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := get(t, srv, draftList, tc.hdr)
			if a.status != tc.status || (tc.code != "" && a.body["code"] != tc.code) {
				t.Errorf("status %d code %v, want %d %s", a.status, a.body["code"], tc.status, tc.code)
			}
		})
	}
	t.Run("wrong credentials fail even on unknown routes", func(t *testing.T) {
		a := get(t, srv, "/wp-json/tribe/events/v1/nope", basic("admin", "wrong"))
		if a.status != 401 || a.body["code"] != "incorrect_password" {
			t.Errorf("status %d code %v", a.status, a.body["code"])
		}
	})
	t.Run("logged-in answers are not cacheable", func(t *testing.T) {
		a := get(t, srv, "/wp-json/tribe/events/v1/events", basic("admin", adminPass))
		if !strings.Contains(a.header.Get("Cache-Control"), "no-store") || a.header.Get("Allow") != "GET, POST" {
			t.Errorf("Cache-Control %q Allow %q", a.header.Get("Cache-Control"), a.header.Get("Allow"))
		}
	})
}

func TestApplicationPasswordsNeedTLSOutsideLocal(t *testing.T) {
	proxy := netip.MustParsePrefix("127.0.0.1/32")
	srv := newServer(t, handlers.Config{Environment: "production", TrustedProxies: []netip.Prefix{proxy}})
	draftList := "/wp-json/tribe/events/v1/events?status=draft&start_date=2020-01-01&end_date=2030-12-31"
	if a := get(t, srv, draftList, basic("admin", adminPass)); a.status != 400 {
		t.Errorf("plain HTTP in production: credentials must be ignored (anonymous 400), got %d", a.status)
	}
	if a := get(t, srv, draftList, basic("admin", "wrong")); a.status != 400 {
		t.Errorf("plain HTTP in production: even wrong credentials are ignored, got %d", a.status)
	}
	hdr := basic("admin", adminPass)
	hdr["X-Forwarded-Proto"] = "https"
	if a := get(t, srv, draftList, hdr); a.status != 200 {
		t.Errorf("trusted proxy saying https: want 200, got %d %.200s", a.status, a.raw)
	}
}

// An operator who sends the printed application password over plain HTTP to a production service
// gets WordPress' answer (the request is anonymous), and the log says why, once.
func TestPlainHTTPCredentialsAreExplainedOnceInTheLog(t *testing.T) {
	var log testenv.SyncBuffer
	srv := newServer(t, handlers.Config{Environment: "production", Logger: slog.New(slog.NewTextHandler(&log, nil))})
	draftList := "/wp-json/tribe/events/v1/events?status=draft&start_date=2020-01-01&end_date=2030-12-31"
	for range 3 {
		if a := get(t, srv, draftList, basic("admin", adminPass)); a.status != 400 {
			t.Fatalf("plain HTTP in production: want WordPress' anonymous 400, got %d", a.status)
		}
	}
	if n := log.Count("application password ignored"); n != 1 {
		t.Fatalf("the warning was logged %d times, want once", n)
	}
	if log.Count(adminPass) != 0 {
		t.Fatal("the log holds the password")
	}
	for _, hint := range []string{"CALENDAR_ENVIRONMENT=local", "CALENDAR_TRUSTED_PROXIES", "TLS"} {
		if log.Count(hint) == 0 {
			t.Errorf("the warning does not mention %s", hint)
		}
	}
}

func TestUntrustedForwardedProtoIsIgnored(t *testing.T) {
	srv := newServer(t, handlers.Config{Environment: "production"})
	hdr := basic("admin", adminPass)
	hdr["X-Forwarded-Proto"] = "https"
	if a := get(t, srv, "/wp-json/tribe/events/v1/events?status=draft", hdr); a.status != 400 {
		t.Errorf("X-Forwarded-Proto from an untrusted peer must not enable credentials, got %d", a.status)
	}
}

func TestRoutingForms(t *testing.T) {
	srv := newServer(t, handlers.Config{})
	tests := []struct {
		name, path string
		status     int
	}{
		{"pretty form", "/wp-json/calendar/events/v1/events/34", 200},
		{"query form", "/?rest_route=/calendar/events/v1/events/34", 200},
		{"index.php query form", "/index.php?rest_route=/tribe/events/v1/events/34", 200},
		{"trailing slash is ignored", "/wp-json/tribe/events/v1/events/34/", 200},
		{"routes match case-insensitively", "/wp-json/TRIBE/events/v1/EVENTS/34", 200},
		{"id must be digits", "/wp-json/tribe/events/v1/events/abc", 404},
		{"unknown route", "/wp-json/tribe/events/v1/nope", 404},
		{"unknown namespace", "/wp-json/other/v1/events", 404},
		{"not a REST path", "/feed/", 404},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := get(t, srv, tc.path, nil)
			if a.status != tc.status {
				t.Errorf("status %d, want %d: %.200s", a.status, tc.status, a.raw)
			}
			if tc.status == 404 && a.body["code"] != "rest_no_route" {
				t.Errorf("code %v, want rest_no_route", a.body["code"])
			}
		})
	}
	t.Run("wrong method is rest_no_route, never 405", func(t *testing.T) {
		req, _ := http.NewRequest("PUT", srv.URL+"/wp-json/tribe/events/v1/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("status %d", resp.StatusCode)
		}
	})
	t.Run("envelope wraps status and headers", func(t *testing.T) {
		a := get(t, srv, "/wp-json/tribe/events/v1/events?page=999&_envelope=1", nil)
		if a.status != 200 || a.body["status"] != float64(404) {
			t.Errorf("status %d body %.200s", a.status, a.raw)
		}
	})
	t.Run("jsonp wraps the body", func(t *testing.T) {
		a := get(t, srv, "/wp-json/tribe/events/v1/events/34?_jsonp=cb", nil)
		if !strings.HasPrefix(a.raw, "/**/cb({") || !strings.HasPrefix(a.header.Get("Content-Type"), "application/javascript") {
			t.Errorf("got %.60s (%s)", a.raw, a.header.Get("Content-Type"))
		}
		if a := get(t, srv, "/wp-json/tribe/events/v1/events/34?_jsonp=a(b", nil); a.status != 400 || a.body["code"] != "rest_callback_invalid" {
			t.Errorf("bad callback: %d %v", a.status, a.body["code"])
		}
	})
	t.Run("_fields keeps the listed keys", func(t *testing.T) {
		a := get(t, srv, "/wp-json/tribe/events/v1/events/34?_fields=id,title", nil)
		if len(a.body) != 2 || a.body["title"] != "Annual Meetup" {
			t.Errorf("got %v", a.body)
		}
	})
}

func TestHealthz(t *testing.T) {
	srv := newServer(t, handlers.Config{})
	if a := get(t, srv, "/healthz", nil); a.status != 200 || a.body["status"] != "ok" {
		t.Errorf("healthz = %d %s", a.status, a.raw)
	}
}

func TestUnreachableDatabaseAnswers503(t *testing.T) {
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	db, err := wpdb.OpenMySQL("root@tcp(127.0.0.1:"+itoa(port)+")/wp?timeout=1s", "wp_")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Cold: no database answers, so there is nothing to keep in step with.
	store := service.Start(context.Background(), db, wpdb.SiteOverrides{}, service.Cold)
	srv := httptest.NewServer(service.Handler(handlers.Config{}, store))
	defer srv.Close()
	if a := get(t, srv, "/healthz", nil); a.status != 503 || a.body["status"] != "unavailable" || strings.Contains(a.raw, "127.0.0.1") {
		t.Errorf("healthz = %d %s", a.status, a.raw)
	}
	if a := get(t, srv, "/wp-json/tribe/events/v1/events", nil); a.status != 503 || a.body["code"] != "service_unavailable" {
		t.Errorf("events = %d %s", a.status, a.raw)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Generic WordPress clients (node-wpapi's discover()) follow the Link header to /wp-json/ and read the
// namespaces and routes there.
func TestDiscoveryIndexListsTheServedRoutes(t *testing.T) {
	srv := newServer(t, handlers.Config{})
	a := get(t, srv, "/wp-json/tribe/events/v1/events/34", nil)
	link := a.header.Get("Link")
	if link != "<http://127.0.0.1:8088/wp-json/>; rel=\"https://api.w.org/\"" {
		t.Fatalf("Link = %q", link)
	}
	for _, path := range []string{"/wp-json/", "/wp-json", "/?rest_route=/"} {
		idx := get(t, srv, path, nil)
		if idx.status != 200 {
			t.Fatalf("%s: status %d", path, idx.status)
		}
		ns, _ := idx.body["namespaces"].([]any)
		if len(ns) != 3 || ns[0] != "calendar/events/v1" || ns[1] != "tribe/events/v1" || ns[2] != "wp/v2" {
			t.Errorf("%s: namespaces = %v", path, ns)
		}
		routes, _ := idx.body["routes"].(map[string]any)
		for _, want := range []string{"/", "/calendar/events/v1", "/tribe/events/v1/events", `/calendar/events/v1/venues/(?P<id>\d+)`,
			`/tribe/events/v1/tags/(?P<id>\d+)`, "/calendar/events/v1/doc"} {
			if _, ok := routes[want]; !ok {
				t.Errorf("%s: route %s missing", path, want)
			}
		}
		if idx.body["gmt_offset"] != float64(-5) || idx.body["timezone_string"] != "America/New_York" {
			t.Errorf("%s: gmt_offset %v timezone %v", path, idx.body["gmt_offset"], idx.body["timezone_string"])
		}
	}
}
