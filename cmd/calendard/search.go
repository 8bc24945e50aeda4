package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/search"
	"github.com/calendard/calendard/wpdb"
)

// SearchConfig configures Meilisearch search and the geo filters (docs/api.md, "Search and geo").
type SearchConfig struct {
	MeiliURL, MeiliKey string
	// Mode is "sql" (the plugin's substring match) or "meili"; empty until resolved: meili when
	// MeiliURL is set.
	Mode        string
	MeiliPrefix string
	Geo         bool
	GeoRadiusKM float64
	// MeiliTimeout bounds a search through Meilisearch on the request path.
	MeiliTimeout time.Duration
}

// The search rows of the configuration table.
func init() {
	settings = append(settings,
		setting{"CALENDAR_MEILI_URL", "meili-url", "", "Meilisearch URL (http://HOST:PORT): search= and geo filters through it (default: none, SQL only)", func(c *Config, v string) error {
			if v == "" {
				c.Search.MeiliURL = ""
				return nil
			}
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
				return fmt.Errorf("must be an http(s) URL, got %q", redact(v))
			}
			c.Search.MeiliURL = strings.TrimRight(v, "/")
			return nil
		}},
		setting{"CALENDAR_MEILI_KEY", "meili-key", "", "Meilisearch API key (master key or a key allowed to manage the indexes)", func(c *Config, v string) error {
			c.Search.MeiliKey = v
			return nil
		}},
		setting{"CALENDAR_MEILI_INDEX_PREFIX", "meili-index-prefix", "calendard", "prefix of the Meilisearch index names (PREFIX_events, PREFIX_venues, PREFIX_organizers)", func(c *Config, v string) error {
			for _, r := range v {
				if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
					return fmt.Errorf("must contain only letters, digits, - and _, got %q", v)
				}
			}
			if v == "" || len(v) > 200 {
				return fmt.Errorf("must be 1 to 200 characters, got %q", v)
			}
			c.Search.MeiliPrefix = v
			return nil
		}},
		setting{"CALENDAR_MEILI_TIMEOUT", "meili-timeout", search.DefaultTimeout.String(), "longest a search= or geo query may wait on Meilisearch before it is answered from SQL (Go duration); repeated failures send searches to SQL at once until Meilisearch answers again", func(c *Config, v string) error {
			d, err := parseDuration(v, 10*time.Millisecond, time.Minute, false)
			c.Search.MeiliTimeout = d
			return err
		}},
		setting{"CALENDAR_SEARCH", "search", "", "sql|meili: how search= is answered (default: meili when CALENDAR_MEILI_URL is set, else sql)", func(c *Config, v string) error {
			switch v {
			case "", "sql", "meili":
				c.Search.Mode = v
				return nil
			}
			return fmt.Errorf("must be sql or meili, got %q", v)
		}},
		setting{"CALENDAR_GEO", "geo", "off", "on|off: the paid edition's geoloc filters on events (and venues, with geoloc_radius); off: the free plugin's behaviour", func(c *Config, v string) error {
			b, err := parseSwitch(v)
			c.Search.Geo = b
			return err
		}},
		setting{"CALENDAR_GEO_RADIUS_KM", "geo-radius-km", "25", "default geoloc_radius in km", func(c *Config, v string) error {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || !(f > 0 && f <= 20040) {
				return fmt.Errorf("must be a number of km above 0 and at most 20040, got %q", v)
			}
			c.Search.GeoRadiusKM = f
			return nil
		}},
	)
}

// resolveSearch checks the search rows against each other once all are read.
func (c *Config) resolveSearch() error {
	switch {
	case c.Search.Mode == "meili" && c.Search.MeiliURL == "":
		return &ConfigError{Var: "CALENDAR_SEARCH", Err: fmt.Errorf("meili needs CALENDAR_MEILI_URL")}
	case c.Search.Mode == "" && c.Search.MeiliURL != "":
		c.Search.Mode = "meili"
	case c.Search.Mode == "":
		c.Search.Mode = "sql"
	}
	return nil
}

// searchServices wires Meilisearch in front of the store when configured: event and linked-post
// searches, relevance order and the geo service; without it, the store answers everything (the geo
// service from SQL) and ranked is nil.
func searchServices(ctx context.Context, cfg *Config, db *wpdb.DB, store *wpdb.Store, log *slog.Logger, reg *prometheus.Registry) service.Search {
	if err := cfg.resolveSearch(); err != nil || cfg.Search.Mode != "meili" {
		return service.Search{Geo: &search.Geo{DB: db}}
	}
	var r prometheus.Registerer
	if reg != nil {
		r = reg
	}
	ix := search.New(search.Config{URL: cfg.Search.MeiliURL, Key: cfg.Search.MeiliKey, Prefix: cfg.Search.MeiliPrefix, Logger: log,
		Timeout: cfg.Search.MeiliTimeout, Registerer: r}, db)
	ix.Follow(db.Changes())
	ix.Start(ctx)
	log.Info("search through Meilisearch", "url", redact(cfg.Search.MeiliURL), "prefix", cfg.Search.MeiliPrefix)
	events := &search.Events{EventService: store, Index: ix}
	if x := store.Index(); x != nil {
		events.Substrings = x
	}
	return service.Search{Events: events, Ranked: events, Linked: &search.Linked{LinkedService: store, Index: ix}, Geo: &search.Geo{DB: db, Index: ix}}
}

// reindex is "calendard reindex": fresh Meilisearch indexes built from the database and swapped in
// atomically, with a progress bar on a terminal.
func reindex(args []string) error {
	cfg, err := loadConfigFor("reindex", args, osGetenv, nil)
	if err != nil {
		return err
	}
	if err := cfg.resolveSearch(); err != nil {
		return err
	}
	if cfg.Search.MeiliURL == "" {
		return &ConfigError{Var: "CALENDAR_MEILI_URL", Err: fmt.Errorf("reindex needs Meilisearch")}
	}
	db, err := openStore(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	log := newLogger(cfg.LogLevel)
	ix := search.New(search.Config{URL: cfg.Search.MeiliURL, Key: cfg.Search.MeiliKey, Prefix: cfg.Search.MeiliPrefix, Logger: log}, db)
	var bar *progressbar.ProgressBar
	tty := term.IsTerminal(int(os.Stderr.Fd()))
	start := time.Now()
	err = ix.Rebuild(context.Background(), func(done, total int) {
		if !tty {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetDescription("indexing posts"),
				progressbar.OptionSetWriter(os.Stderr), progressbar.OptionShowCount(), progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	})
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return err
	}
	fmt.Printf("reindexed into %s_{events,venues,organizers} in %s\n", cfg.Search.MeiliPrefix, time.Since(start).Round(time.Millisecond))
	return nil
}
