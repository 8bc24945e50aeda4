package main

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/calendard/calendard/internal/service"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

const goodDB = "mysql://root:pw@tcp(127.0.0.1:3306)/wp"

func TestLoadConfigDefaults(t *testing.T) {
	c, err := loadConfig(nil, env(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8080" || c.TablePrefix != "wp_" || c.Environment != "production" || c.Now != nil || c.SiteURL != "" {
		t.Errorf("unexpected defaults: %+v", c)
	}
	if c.DB != "sqlite://calendard.db" {
		t.Errorf("default database %q, want the embedded sqlite://calendard.db", c.DB)
	}
}

func TestLoadConfigAcceptsBothStores(t *testing.T) {
	for _, db := range []string{goodDB, "sqlite:///var/lib/calendard/cal.db", "sqlite://cal.db"} {
		c, err := loadConfig(nil, env(map[string]string{"CALENDAR_DB": db}))
		if err != nil || c.DB != db {
			t.Errorf("CALENDAR_DB=%s: %v, %+v", db, err, c)
		}
	}
}

func TestLoadConfigRejectsBadValuesNamingTheVariable(t *testing.T) {
	tests := []struct {
		name, variable, value string
	}{
		{"listen without port", "CALENDAR_LISTEN", "localhost"},
		{"db with another scheme", "CALENDAR_DB", "postgres://x"},
		{"sqlite without a path", "CALENDAR_DB", "sqlite://"},
		{"db DSN without database", "CALENDAR_DB", "mysql://root@tcp(127.0.0.1:3306)/"},
		{"prefix with SQL", "CALENDAR_TABLE_PREFIX", "wp_;drop"},
		{"relative site URL", "CALENDAR_SITE_URL", "example.com"},
		{"site URL with query", "CALENDAR_SITE_URL", "http://e.com/?a=1"},
		{"now in another format", "CALENDAR_NOW", "2026-11-22T04:29:21Z"},
		{"unknown environment", "CALENDAR_ENVIRONMENT", "prod"},
		{"bad proxy address", "CALENDAR_TRUSTED_PROXIES", "10.0.0.0/99"},
		{"bad log level", "CALENDAR_LOG_LEVEL", "loud"},
	}
	for _, tc := range tests {
		t.Run(tc.name+" names "+tc.variable, func(t *testing.T) {
			vars := map[string]string{"CALENDAR_DB": goodDB, tc.variable: tc.value}
			_, err := loadConfig(nil, env(vars))
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Var != tc.variable {
				t.Fatalf("err = %v, want a ConfigError for %s", err, tc.variable)
			}
		})
	}
}

func TestLoadConfigParsesValues(t *testing.T) {
	c, err := loadConfig([]string{"--environment", "local"}, env(map[string]string{
		"CALENDAR_DB": goodDB, "CALENDAR_NOW": "2026-11-22 04:29:21", "CALENDAR_SITE_URL": "https://cal.example.com/",
		"CALENDAR_TRUSTED_PROXIES": "10.0.0.1, 192.168.0.0/16", "CALENDAR_ENVIRONMENT": "staging",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Now == nil || c.Now.Format("2006-01-02 15:04:05") != "2026-11-22 04:29:21" || c.Now.Location().String() != "UTC" {
		t.Errorf("now = %v", c.Now)
	}
	if c.SiteURL != "https://cal.example.com" {
		t.Errorf("site URL = %q (trailing slash must go)", c.SiteURL)
	}
	if c.Environment != "local" {
		t.Errorf("flag must override the environment variable, got %q", c.Environment)
	}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[0].String() != "10.0.0.1/32" {
		t.Errorf("proxies = %v", c.TrustedProxies)
	}
}

// serve collects at half the heap by default (the index is most of it), and leaves the
// collector as GOGC says when it is set.
func TestServeGCPercent(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	for _, tc := range []struct {
		name string
		env  map[string]string
		want int
	}{
		{"unset GOGC gives serveGCPercent", nil, serveGCPercent},
		{"a set GOGC is left to the runtime", map[string]string{"GOGC": "200"}, 100},
		{"GOGC=off is left to the runtime", map[string]string{"GOGC": "off"}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			setGCPercent(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if got := debug.SetGCPercent(100); got != tc.want {
				t.Fatalf("GC percent %d, want %d", got, tc.want)
			}
		})
	}
}

// service.Live, the store the tests run, is the store serve runs with the default configuration.
func TestLiveStoreIsTheDefaultConfiguration(t *testing.T) {
	c, err := loadConfig(nil, env(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	l := service.Live
	if c.WatchInterval != l.WatchInterval || c.Reconcile != l.Reconcile || c.RecordCache != l.Records || c.EventIndex == l.NoIndex {
		t.Errorf("defaults: watch %v, reconcile %v, records %d, index %v; service.Live %+v", c.WatchInterval, c.Reconcile, c.RecordCache, c.EventIndex, l)
	}
}

// CALENDAR_WEBHOOKS: a bad value names the variable and quotes no secret; webhooks need the sync
// journal, which CALENDAR_WATCH_INTERVAL=0 switches off; the secrets are registered for scrubbing
// and masked in -h.
func TestLoadConfigWebhooks(t *testing.T) {
	const key = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw=="
	good := `[{"url":"https://h.test/hook","secret":"whsec_` + key + `"}]`
	cfg, err := loadConfig(nil, env(map[string]string{"CALENDAR_DB": goodDB, "CALENDAR_WEBHOOKS": good}))
	if err != nil || len(cfg.Webhooks) != 1 || cfg.Webhooks[0].URL != "https://h.test/hook" {
		t.Fatalf("%v %+v", err, cfg)
	}
	for _, tc := range []struct{ name, hooks, watch string }{
		{"a short secret", `[{"url":"https://h.test/","secret":"whsec_` + key[:8] + `"}]`, "1s"},
		{"a bad URL", `[{"url":"h.test","secret":"whsec_` + key + `"}]`, "1s"},
		{"no watermark poll", good, "0"},
	} {
		_, err := loadConfig(nil, env(map[string]string{"CALENDAR_DB": goodDB, "CALENDAR_WEBHOOKS": tc.hooks, "CALENDAR_WATCH_INTERVAL": tc.watch}))
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Var != "CALENDAR_WEBHOOKS" || strings.Contains(err.Error(), key[:8]) {
			t.Errorf("%s: err = %v, want a ConfigError for CALENDAR_WEBHOOKS quoting no secret", tc.name, err)
		}
	}
	s := &scrubber{}
	s.collect(env(map[string]string{"CALENDAR_WEBHOOKS": good}), []string{"--webhooks=" + good})
	if got := s.scrub("signing with whsec_" + key + " (" + key + ")"); strings.Contains(got, key) {
		t.Errorf("scrubbed: %q", got)
	}
	if got := redactWebhooks(good); strings.Contains(got, key) || !strings.Contains(got, "https://h.test/hook") {
		t.Errorf("redactWebhooks: %q", got)
	}
}
