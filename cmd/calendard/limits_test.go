package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/wpdb"
)

func TestLimitDefaults(t *testing.T) {
	c, err := loadConfig(nil, env(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{MaxBodyBytes: 8 << 20, MaxBodyValues: 10000, MaxDecodedBytes: 16 << 20, BodyMemory: 64 << 20,
		BodyTimeout: 30 * time.Second, MaxURIBytes: 8 << 10, MaxHeaderBytes: 32 << 10, DBTimeout: 5 * time.Second,
		LoginLimit: true, LoginsPerAccount: 10, LoginsPerAddress: 20, LoginWindow: 15 * time.Minute}
	got := Config{MaxBodyBytes: c.MaxBodyBytes, MaxBodyValues: c.MaxBodyValues, MaxDecodedBytes: c.MaxDecodedBytes,
		BodyMemory: c.BodyMemory, BodyTimeout: c.BodyTimeout, MaxURIBytes: c.MaxURIBytes, MaxHeaderBytes: c.MaxHeaderBytes,
		DBTimeout: c.DBTimeout, LoginLimit: c.LoginLimit, LoginsPerAccount: c.LoginsPerAccount,
		LoginsPerAddress: c.LoginsPerAddress, LoginWindow: c.LoginWindow, CORSOrigins: c.CORSOrigins, StrictReads: c.StrictReads}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("limits\n got %+v\nwant %+v", got, want)
	}
}

func TestLimitSettingsParse(t *testing.T) {
	c, err := loadConfig([]string{"--strict-reads", "on"}, env(map[string]string{
		"CALENDAR_MAX_BODY_BYTES": "1MiB", "CALENDAR_MAX_BODY_VALUES": "500", "CALENDAR_MAX_DECODED_BYTES": "2048K",
		"CALENDAR_BODY_MEMORY": "0", "CALENDAR_BODY_TIMEOUT": "2s", "CALENDAR_MAX_URI_BYTES": "4096",
		"CALENDAR_MAX_HEADER_BYTES": "16KiB", "CALENDAR_DB_TIMEOUT": "0", "CALENDAR_LOGIN_LIMIT": "off",
		"CALENDAR_LOGIN_MAX_PER_ACCOUNT": "0", "CALENDAR_LOGIN_MAX_PER_ADDRESS": "5", "CALENDAR_LOGIN_WINDOW": "1h",
		"CALENDAR_CORS_ORIGINS": "https://a.example, http://localhost:3000/ ,null",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxBodyBytes != 1<<20 || c.MaxBodyValues != 500 || c.MaxDecodedBytes != 2<<20 || c.BodyMemory != 0 ||
		c.BodyTimeout != 2*time.Second || c.MaxURIBytes != 4096 || c.MaxHeaderBytes != 16<<10 || c.DBTimeout != 0 ||
		c.LoginLimit || c.LoginsPerAccount != 0 || c.LoginsPerAddress != 5 || c.LoginWindow != time.Hour || !c.StrictReads {
		t.Errorf("parsed %+v", c)
	}
	if !reflect.DeepEqual(c.CORSOrigins, []string{"https://a.example", "http://localhost:3000/", "null"}) {
		t.Errorf("origins %q", c.CORSOrigins)
	}
	for _, any := range []string{"*", "https://a.example,*"} {
		if c, err := loadConfig(nil, env(map[string]string{"CALENDAR_CORS_ORIGINS": any})); err != nil || c.CORSOrigins != nil {
			t.Errorf("%q: %v %q, want any origin", any, err, c.CORSOrigins)
		}
	}
	// 0 means "none" in the configuration, negative "off" for the handlers.
	if offIfZero(int64(0)) != -1 || offIfZero(5) != 5 || offIfZero(time.Duration(0)) != -1 {
		t.Error("offIfZero")
	}
}

func TestLimitSettingsRejectBadValues(t *testing.T) {
	for _, tc := range []struct{ variable, value string }{
		{"CALENDAR_MAX_BODY_BYTES", "8 megs"}, {"CALENDAR_MAX_BODY_BYTES", "0"}, {"CALENDAR_MAX_BODY_BYTES", "2GiB"},
		{"CALENDAR_MAX_BODY_VALUES", "0"}, {"CALENDAR_MAX_BODY_VALUES", "-1"}, {"CALENDAR_MAX_DECODED_BYTES", "1"},
		{"CALENDAR_BODY_MEMORY", "-5"}, {"CALENDAR_BODY_MEMORY", "1MiB"}, // less than the largest body
		{"CALENDAR_BODY_TIMEOUT", "0"}, {"CALENDAR_BODY_TIMEOUT", "30"}, {"CALENDAR_MAX_URI_BYTES", "10"},
		{"CALENDAR_MAX_HEADER_BYTES", "4KiB"}, // less than the longest URI
		{"CALENDAR_DB_TIMEOUT", "-1s"}, {"CALENDAR_DB_TIMEOUT", "1ms"}, {"CALENDAR_LOGIN_LIMIT", "maybe"},
		{"CALENDAR_LOGIN_MAX_PER_ACCOUNT", "ten"}, {"CALENDAR_LOGIN_MAX_PER_ADDRESS", "-2"}, {"CALENDAR_LOGIN_WINDOW", "0"},
		{"CALENDAR_CORS_ORIGINS", "example.com"}, {"CALENDAR_CORS_ORIGINS", "https://a.example/path"},
		{"CALENDAR_CORS_ORIGINS", "ftp://a.example"}, {"CALENDAR_CORS_ORIGINS", ","}, {"CALENDAR_STRICT_READS", "yes please"},
	} {
		_, err := loadConfig(nil, env(map[string]string{tc.variable: tc.value}))
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Var != tc.variable {
			t.Errorf("%s=%q: err = %v, want a ConfigError naming it", tc.variable, tc.value, err)
		}
	}
}

// The HTTP server enforces the header limits: a request target over CALENDAR_MAX_URI_BYTES gets the
// handlers' WordPress-shaped 414; a header block over CALENDAR_MAX_HEADER_BYTES is refused by Go's
// server itself (431) before any handler runs.
func TestHTTPServerHeaderLimits(t *testing.T) {
	c, err := loadConfig(nil, env(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BodyTimeout != 30*time.Second {
		t.Fatal(c.BodyTimeout)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	db, err := wpdb.Open("sqlite://"+filepath.Join(t.TempDir(), "c.db"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// Cold: every request here is refused before a route runs.
	srv := httpServer(c, service.Handler(handlers.Config{MaxURIBytes: c.MaxURIBytes}, service.Start(context.Background(), db, wpdb.SiteOverrides{}, service.Cold)))
	if srv.MaxHeaderBytes != 32<<10 || srv.ReadHeaderTimeout != 10*time.Second || srv.ReadTimeout < c.BodyTimeout {
		t.Errorf("server %+v", srv)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	base := "http://" + l.Addr().String()
	send := func(path string, hdr map[string]string) (int, string) {
		req, err := http.NewRequest("GET", base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := send("/wp-json/tribe/events/v1/events?search="+strings.Repeat("x", 9<<10), nil); status != 414 ||
		!strings.Contains(body, `"code":"rest_uri_too_long"`) || !strings.Contains(body, `"status":414`) {
		t.Errorf("long URI: %d %.200s", status, body)
	}
	if status, _ := send("/wp-json/tribe/events/v1/events", map[string]string{"X-Big": strings.Repeat("y", 40<<10)}); status != 431 {
		t.Errorf("40 KiB of headers: %d, want 431", status)
	}
}
