package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/search"
	"github.com/calendard/calendard/wpdb"
)

func TestSearchSettings(t *testing.T) {
	for _, tc := range []struct {
		name     string
		vars     map[string]string
		mode     string
		badVar   string
		geo      bool
		radiusKM float64
	}{
		{"no Meilisearch means sql search and geo off", nil, "sql", "", false, 25},
		{"a Meilisearch URL means meili search", map[string]string{"CALENDAR_MEILI_URL": "http://127.0.0.1:7700"}, "meili", "", false, 25},
		{"CALENDAR_SEARCH=sql keeps sql with a URL", map[string]string{"CALENDAR_MEILI_URL": "http://127.0.0.1:7700", "CALENDAR_SEARCH": "sql"}, "sql", "", false, 25},
		{"geo on with a radius", map[string]string{"CALENDAR_GEO": "on", "CALENDAR_GEO_RADIUS_KM": "40.5"}, "sql", "", true, 40.5},
		{"meili without a URL is refused", map[string]string{"CALENDAR_SEARCH": "meili"}, "", "CALENDAR_SEARCH", false, 0},
		{"an unknown search mode is refused", map[string]string{"CALENDAR_SEARCH": "fuzzy"}, "", "CALENDAR_SEARCH", false, 0},
		{"a URL that is no URL is refused", map[string]string{"CALENDAR_MEILI_URL": "localhost:7700"}, "", "CALENDAR_MEILI_URL", false, 0},
		{"a radius of 0 is refused", map[string]string{"CALENDAR_GEO_RADIUS_KM": "0"}, "", "CALENDAR_GEO_RADIUS_KM", false, 0},
		{"an index prefix with a slash is refused", map[string]string{"CALENDAR_MEILI_INDEX_PREFIX": "a/b"}, "", "CALENDAR_MEILI_INDEX_PREFIX", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"CALENDAR_DB": goodDB}
			for k, v := range tc.vars {
				vars[k] = v
			}
			cfg, err := loadConfig(nil, env(vars))
			if tc.badVar != "" {
				var ce *ConfigError
				if !errors.As(err, &ce) || ce.Var != tc.badVar {
					t.Fatalf("err = %v, want a ConfigError for %s", err, tc.badVar)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Search.Mode != tc.mode || cfg.Search.Geo != tc.geo || cfg.Search.GeoRadiusKM != tc.radiusKM {
				t.Fatalf("got %+v", cfg.Search)
			}
		})
	}
}

func TestMeiliTimeoutSetting(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  time.Duration
		bad   bool
	}{
		{"", search.DefaultTimeout, false},
		{"250ms", 250 * time.Millisecond, false},
		{"2s", 2 * time.Second, false},
		{"0", 0, true}, // no timeout would let a hung Meilisearch hold every search
		{"5ms", 0, true},
		{"2m", 0, true},
		{"soon", 0, true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			vars := map[string]string{"CALENDAR_DB": goodDB}
			if tc.value != "" {
				vars["CALENDAR_MEILI_TIMEOUT"] = tc.value
			}
			cfg, err := loadConfig(nil, env(vars))
			if tc.bad {
				var ce *ConfigError
				if !errors.As(err, &ce) || ce.Var != "CALENDAR_MEILI_TIMEOUT" {
					t.Fatalf("err = %v, want a ConfigError for CALENDAR_MEILI_TIMEOUT", err)
				}
				return
			}
			if err != nil || cfg.Search.MeiliTimeout != tc.want {
				t.Fatalf("MeiliTimeout %s, %v; want %s", cfg.Search.MeiliTimeout, err, tc.want)
			}
		})
	}
}

// TestReindexCommandFillsTheIndexes runs "calendard reindex" against the recorded calendar and a real
// Meilisearch and counts the documents it swapped in.
func TestReindexCommandFillsTheIndexes(t *testing.T) {
	testenv.SkipIfShort(t, "Meilisearch and mariadbd")
	dir := t.TempDir()
	m, err := testenv.StartMeilisearch(dir)
	if err != nil {
		t.Fatalf("starting Meilisearch: %v", err)
	}
	t.Cleanup(func() { m.Stop(); _ = os.RemoveAll(dir) })
	dsn := testenv.FixtureDB(t, fixture, "reindex_cmd")
	if err := run([]string{"reindex", "--db", "mysql://" + dsn, "--meili-url", m.URL, "--meili-key", m.Key, "--meili-index-prefix", "site"}); err != nil {
		t.Fatal(err)
	}
	client := meilisearch.New(m.URL, meilisearch.WithAPIKey(m.Key))
	// The fixture: 150 events, 13 venues and 9 organizers in statuses other than auto-draft.
	for uid, want := range map[string]int64{"site_events": 150, "site_venues": 13, "site_organizers": 9} {
		st, err := client.Index(uid).GetStatsWithContext(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.NumberOfDocuments != want {
			t.Errorf("%s holds %d documents, want %d", uid, st.NumberOfDocuments, want)
		}
	}
	if _, err := client.GetIndex("site_next_events"); err == nil {
		t.Error("the replaced index was left behind")
	}
	t.Run("reindex without Meilisearch names the variable", func(t *testing.T) {
		err := run([]string{"reindex", "--db", "mysql://" + dsn})
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Var != "CALENDAR_MEILI_URL" {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestSearchMetricsAreRegistered: with Meilisearch configured, /metrics carries whether searches go
// through it (0 here: nothing answers at that address).
func TestSearchMetricsAreRegistered(t *testing.T) {
	db, err := wpdb.Open("sqlite://"+filepath.Join(t.TempDir(), "c.db"), "wp_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cfg := &Config{Search: SearchConfig{MeiliURL: "http://127.0.0.1:1", MeiliPrefix: "calendard", MeiliTimeout: search.DefaultTimeout}}
	reg := newMetrics(&Config{Metrics: true})
	// Only the registration is looked at: the store need not run.
	searchServices(ctx, cfg, db, service.Start(context.Background(), db, wpdb.SiteOverrides{}, service.Cold), slog.New(slog.DiscardHandler), reg)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]float64{}
	for _, mf := range mfs {
		if strings.HasPrefix(mf.GetName(), "calendard_search_") {
			m := mf.GetMetric()[0]
			found[mf.GetName()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	if v, ok := found["calendard_search_meili_up"]; !ok || v != 0 {
		t.Errorf("calendard_search_meili_up: %v %v, want 0", v, ok)
	}
	if _, ok := found["calendard_search_meili_errors_total"]; !ok {
		t.Errorf("no calendard_search_meili_errors_total among %v", found)
	}
}
