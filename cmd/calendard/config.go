package main

import (
	"flag"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/calendard/calendard/wpdb"
)

// Config is the service configuration, read from CALENDAR_* environment variables (flags of the same
// name without the prefix override them).
type Config struct {
	Listen         string
	DB             string // "sqlite://PATH" or "mysql://<go-sql-driver DSN>"
	TablePrefix    string
	SiteURL        string
	Now            *time.Time
	Environment    string
	TrustedProxies []netip.Prefix
	LogLevel       string
	// WatchInterval is how often the change feed polls the database for changes made outside
	// calendard (0: never; calendard is then the only writer).
	WatchInterval time.Duration
	// EventIndex answers event lists from the in-memory index (off: every list from SQL).
	EventIndex bool
}

// setting is one row of the configuration table.
type setting struct {
	env, flag, def, help string
	apply                func(c *Config, v string) error
}

var settings = []setting{
	{"CALENDAR_LISTEN", "listen", "127.0.0.1:8080", "address to listen on (host:port)", func(c *Config, v string) error {
		if _, _, err := net.SplitHostPort(v); err != nil {
			return fmt.Errorf("must be host:port, got %q", v)
		}
		c.Listen = v
		return nil
	}},
	{"CALENDAR_DB", "db", "sqlite://calendard.db", "database: sqlite://PATH (embedded, the default) or mysql://USER:PASS@tcp(HOST:PORT)/DBNAME?PARAMS", func(c *Config, v string) error {
		if dsn, ok := strings.CutPrefix(v, "mysql://"); ok {
			if _, err := wpdb.MySQLConfig(dsn); err != nil {
				return fmt.Errorf("invalid MySQL DSN: %v", err)
			}
			c.DB = v
			return nil
		}
		if _, ok := wpdb.SQLitePath(v); ok {
			c.DB = v
			return nil
		}
		return fmt.Errorf("must be sqlite://PATH or mysql://USER:PASS@tcp(HOST:PORT)/DBNAME, got %q", v)
	}},
	{"CALENDAR_TABLE_PREFIX", "table-prefix", "wp_", "WordPress table prefix", func(c *Config, v string) error {
		if !wpdb.ValidPrefix(v) {
			return fmt.Errorf("must contain only letters, digits and underscores, got %q", v)
		}
		c.TablePrefix = v
		return nil
	}},
	{"CALENDAR_SITE_URL", "site-url", "", "public site URL used in every url/rest_url (default: the database's home option)", func(c *Config, v string) error {
		if v == "" {
			return nil
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("must be an absolute http(s) URL without query, got %q", v)
		}
		c.SiteURL = strings.TrimRight(v, "/")
		return nil
	}},
	{"CALENDAR_NOW", "now", "", "freeze the clock at this UTC instant (YYYY-MM-DD HH:MM:SS), for tests", func(c *Config, v string) error {
		if v == "" {
			return nil
		}
		t, err := time.ParseInLocation("2006-01-02 15:04:05", v, time.UTC)
		if err != nil {
			return fmt.Errorf("must be YYYY-MM-DD HH:MM:SS (UTC), got %q", v)
		}
		c.Now = &t
		return nil
	}},
	{"CALENDAR_ENVIRONMENT", "environment", "production", "WordPress environment type: local|development|staging|production", func(c *Config, v string) error {
		switch v {
		case "local", "development", "staging", "production":
			c.Environment = v
			return nil
		}
		return fmt.Errorf("must be one of local, development, staging, production, got %q", v)
	}},
	{"CALENDAR_TRUSTED_PROXIES", "trusted-proxies", "", "comma-separated IPs/CIDRs of proxies whose X-Forwarded-Proto is believed", func(c *Config, v string) error {
		c.TrustedProxies = nil
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if !strings.Contains(part, "/") {
				a, err := netip.ParseAddr(part)
				if err != nil {
					return fmt.Errorf("invalid IP %q", part)
				}
				c.TrustedProxies = append(c.TrustedProxies, netip.PrefixFrom(a, a.BitLen()))
				continue
			}
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return fmt.Errorf("invalid CIDR %q", part)
			}
			c.TrustedProxies = append(c.TrustedProxies, p.Masked())
		}
		return nil
	}},
	{"CALENDAR_LOG_LEVEL", "log-level", "info", "debug|info|warn|error", func(c *Config, v string) error {
		switch v {
		case "debug", "info", "warn", "error":
			c.LogLevel = v
			return nil
		}
		return fmt.Errorf("must be one of debug, info, warn, error, got %q", v)
	}},
	{"CALENDAR_WATCH_INTERVAL", "watch-interval", "1s", "how often to look for changes WordPress makes directly in the database (Go duration; 0 = never)", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || (d > 0 && d < 100*time.Millisecond) || d > time.Hour {
			return fmt.Errorf("must be 0 or a duration from 100ms to 1h, got %q", v)
		}
		c.WatchInterval = d
		return nil
	}},
	{"CALENDAR_EVENT_INDEX", "event-index", "on", "on|off: answer event lists from the in-memory index", func(c *Config, v string) error {
		switch v {
		case "on", "off":
			c.EventIndex = v == "on"
			return nil
		}
		return fmt.Errorf("must be on or off, got %q", v)
	}},
}

// ConfigError names the variable that is wrong.
type ConfigError struct {
	Var string
	Err error
}

func (e *ConfigError) Error() string { return e.Var + ": " + e.Err.Error() }

// loadConfig reads the environment, then flags; the first invalid value is returned as a ConfigError.
func loadConfig(args []string, getenv func(string) string) (*Config, error) {
	return loadConfigFor("serve", args, getenv, nil)
}

// loadConfigFor is loadConfig for a command that declares flags of its own (extra defines them).
func loadConfigFor(command string, args []string, getenv func(string) string, extra func(fs *flag.FlagSet)) (*Config, error) {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	if extra != nil {
		extra(fs)
	}
	values := make([]*string, len(settings))
	for i, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		values[i] = fs.String(s.flag, def, s.help+" ["+s.env+"]")
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	c := &Config{}
	for i, s := range settings {
		if err := s.apply(c, *values[i]); err != nil {
			return nil, &ConfigError{Var: s.env, Err: err}
		}
	}
	return c, nil
}

func osGetenv(k string) string { return os.Getenv(k) }
