package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/internal/wpauth"
	"github.com/calendard/calendard/webhook"
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
	AccessLog      bool
	// WPConfig, LoggedInKey and LoggedInSalt give the keys of WordPress' logged-in cookie
	// (loggedInKeys).
	WPConfig, LoggedInKey, LoggedInSalt string
	// Limits (docs/reliability.md); 0 switches off the ones that may be switched off.
	MaxBodyBytes     int64
	MaxBodyValues    int
	MaxDecodedBytes  int64
	BodyMemory       int64 // 0: no process-wide budget
	BodyTimeout      time.Duration
	MaxURIBytes      int
	MaxHeaderBytes   int
	DBTimeout        time.Duration // 0: no deadline
	LoginLimit       bool
	LoginsPerAccount int // 0: no per-account limit
	LoginsPerAddress int // 0: no per-address limit
	LoginWindow      time.Duration
	CORSOrigins      []string // nil: any origin, as WordPress
	StrictReads      bool
	// CustomTablesOff is wp-config.php's TEC_CUSTOM_TABLES_V1_DISABLED: the plugin's custom tables
	// are not used whatever the options say.
	CustomTablesOff bool
	// WatchInterval is how often the change feed polls the database for changes made outside
	// calendard (0: never; calendard is then the only writer).
	WatchInterval time.Duration
	// Reconcile is how often the changes no watermark sees are looked for (wpdb.Feed.Reconcile).
	Reconcile time.Duration
	// SyncRetention is how long the sync journal keeps its entries (wpdb.StartOptions).
	SyncRetention time.Duration
	// EventIndex answers event lists from the in-memory index (off: every list from SQL).
	EventIndex bool
	// RecordCache is how many loaded event records are kept for reuse.
	RecordCache int
	// ICalMaxEvents caps the events of an events list answered as iCalendar.
	ICalMaxEvents int
	// IndexFile is CALENDAR_INDEX_FILE as given: auto, off or a path (see indexFilePath).
	IndexFile string
	// Response cache and HTTP caching (docs/caching.md).
	RedisURL     string
	Cache        cache.Mode
	CacheTTL     time.Duration
	CacheBytes   int64
	CachePrefix  string
	RedisTimeout time.Duration
	RedisPush    time.Duration
	CacheHeader  bool
	PublicMaxAge time.Duration
	CachePrivate cache.Private
	// Metrics: Prometheus series are kept; served at /metrics on the diagnostics listener, on
	// MetricsAddr, and on the API listener only when PublicMetrics.
	Metrics       bool
	PublicMetrics bool
	MetricsAddr   string
	// Search is Meilisearch and the geo filters (search.go).
	Search SearchConfig
	// DBReplicas are the read replicas' DSNs (without "mysql://"); ReplicaMaxLag how long one may
	// take to apply the primary's commits before it is left out.
	DBReplicas    []string
	ReplicaMaxLag time.Duration
	// Webhooks are the endpoints of CALENDAR_WEBHOOKS (nil: no dispatcher).
	Webhooks []webhook.Endpoint
	// Args are the command's arguments other than flags.
	Args []string
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
		return fmt.Errorf("must be sqlite://PATH or mysql://USER:PASS@tcp(HOST:PORT)/DBNAME, got %q", redact(v))
	}},
	{"CALENDAR_DB_REPLICAS", "db-replicas", "", "comma-separated MariaDB or MySQL read replicas (GTID replication) of a mysql:// CALENDAR_DB (mysql://USER:PASS@tcp(HOST:PORT)/DBNAME,mysql://…): reads go to them, writes and logins to CALENDAR_DB", func(c *Config, v string) error {
		c.DBReplicas = nil
		for _, spec := range splitReplicas(v) {
			dsn, ok := strings.CutPrefix(spec, "mysql://")
			if !ok {
				return fmt.Errorf("each replica must be mysql://USER:PASS@tcp(HOST:PORT)/DBNAME, got %q", redact(spec))
			}
			if _, err := wpdb.MySQLConfig(dsn); err != nil {
				return fmt.Errorf("invalid MySQL DSN %q: %v", redact(spec), scrubValue(err.Error(), spec))
			}
			if slices.Contains(c.DBReplicas, dsn) {
				return fmt.Errorf("%q is listed twice", redact(spec))
			}
			c.DBReplicas = append(c.DBReplicas, dsn)
		}
		return nil
	}},
	{"CALENDAR_REPLICA_MAX_LAG", "replica-max-lag", "5s", "how long a read replica may take to apply what the primary committed before reads leave it out (Go duration, 100ms to 1h)", func(c *Config, v string) error {
		d, err := parseDuration(v, 100*time.Millisecond, time.Hour, false)
		c.ReplicaMaxLag = d
		return err
	}},
	{"CALENDAR_WEBHOOKS", "webhooks", "", `signed webhooks (Standard Webhooks) for every change of the sync journal: a JSON array of {"url","secret":"whsec_…","resources":[…],"query":"…","timeout","retry_min","retry_max"}, or @PATH of a file holding one (docs/webhooks.md)`, func(c *Config, v string) error {
		eps, err := webhook.Parse(v)
		c.Webhooks = eps
		return err
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
	{"CALENDAR_WP_CONFIG", "wp-config", "", "path of the site's wp-config.php, read for LOGGED_IN_KEY and LOGGED_IN_SALT (logged-in users on the iCal exports)", func(c *Config, v string) error {
		c.WPConfig = v
		return nil
	}},
	{"CALENDAR_LOGGED_IN_KEY", "logged-in-key", "", "WordPress' LOGGED_IN_KEY (instead of CALENDAR_WP_CONFIG)", func(c *Config, v string) error {
		c.LoggedInKey = v
		return nil
	}},
	{"CALENDAR_LOGGED_IN_SALT", "logged-in-salt", "", "WordPress' LOGGED_IN_SALT (instead of CALENDAR_WP_CONFIG)", func(c *Config, v string) error {
		c.LoggedInSalt = v
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
	{"CALENDAR_ACCESS_LOG", "access-log", "off", "on|off: one log line per request (method, route, path, redacted query, status, duration, bytes, cache result, request ID) and an X-Request-ID on answers", func(c *Config, v string) error {
		b, err := parseSwitch(v)
		c.AccessLog = b
		return err
	}},
	{"CALENDAR_MAX_BODY_BYTES", "max-body-bytes", "8MiB", "largest request body (bytes, or with KiB/MiB): 413 beyond", func(c *Config, v string) error {
		n, err := parseSize(v, 1<<10, 1<<30)
		c.MaxBodyBytes = n
		return err
	}},
	{"CALENDAR_MAX_BODY_VALUES", "max-body-values", "10000", "most values one JSON body may hold: 400 rest_request_too_complex beyond", func(c *Config, v string) error {
		n, err := parseCount(v, 1, 10_000_000)
		c.MaxBodyValues = n
		return err
	}},
	{"CALENDAR_MAX_DECODED_BYTES", "max-decoded-bytes", "16MiB", "most bytes the values decoded from one body may take: 400 rest_request_too_complex beyond", func(c *Config, v string) error {
		n, err := parseSize(v, 1<<10, 4<<30)
		c.MaxDecodedBytes = n
		return err
	}},
	{"CALENDAR_BODY_MEMORY", "body-memory", "64MiB", "process-wide budget of request bodies being read and decoded: 503 with Retry-After beyond (0 = none)", func(c *Config, v string) error {
		if v == "0" {
			c.BodyMemory = 0
			return nil
		}
		n, err := parseSize(v, 64<<10, 64<<30)
		c.BodyMemory = n
		return err
	}},
	{"CALENDAR_BODY_TIMEOUT", "body-timeout", "30s", "time a request body has to arrive whole: 408 beyond (Go duration)", func(c *Config, v string) error {
		d, err := parseDuration(v, 100*time.Millisecond, 10*time.Minute, false)
		c.BodyTimeout = d
		return err
	}},
	{"CALENDAR_MAX_URI_BYTES", "max-uri-bytes", "8KiB", "longest request target (path and query): 414 beyond", func(c *Config, v string) error {
		n, err := parseSize(v, 256, 1<<20)
		c.MaxURIBytes = int(n)
		return err
	}},
	{"CALENDAR_MAX_HEADER_BYTES", "max-header-bytes", "32KiB", "largest request line and headers together (Go's http.Server answers 431 beyond)", func(c *Config, v string) error {
		n, err := parseSize(v, 1<<10, 1<<20)
		c.MaxHeaderBytes = int(n)
		return err
	}},
	{"CALENDAR_DB_TIMEOUT", "db-timeout", "5s", "deadline of a request's database work: 503 beyond (Go duration; 0 = none)", func(c *Config, v string) error {
		d, err := parseDuration(v, 50*time.Millisecond, 10*time.Minute, true)
		c.DBTimeout = d
		return err
	}},
	{"CALENDAR_LOGIN_LIMIT", "login-limit", "on", "on|off: limit failed logins (429 with Retry-After)", func(c *Config, v string) error {
		b, err := parseSwitch(v)
		c.LoginLimit = b
		return err
	}},
	{"CALENDAR_LOGIN_MAX_PER_ACCOUNT", "login-max-per-account", "10", "failed logins of one account per window before it is locked (0 = no per-account limit)", func(c *Config, v string) error {
		n, err := parseCount(v, 0, 1_000_000)
		c.LoginsPerAccount = n
		return err
	}},
	{"CALENDAR_LOGIN_MAX_PER_ADDRESS", "login-max-per-address", "20", "failed logins from one client address per window before it is locked (0 = no per-address limit)", func(c *Config, v string) error {
		n, err := parseCount(v, 0, 1_000_000)
		c.LoginsPerAddress = n
		return err
	}},
	{"CALENDAR_LOGIN_WINDOW", "login-window", "15m", "period failed logins are counted in, and the longest lockout (Go duration)", func(c *Config, v string) error {
		d, err := parseDuration(v, time.Second, 24*time.Hour, false)
		c.LoginWindow = d
		return err
	}},
	{"CALENDAR_CORS_ORIGINS", "cors-origins", "*", "comma-separated origins (scheme://host[:port], or null) answered with CORS headers; * = any, as WordPress", func(c *Config, v string) error {
		c.CORSOrigins = nil
		for _, o := range strings.Split(v, ",") {
			o = strings.TrimSpace(o)
			switch {
			case o == "":
				continue
			case o == "*":
				c.CORSOrigins = nil
				return nil
			case o != "null":
				u, err := url.Parse(o)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.TrimRight(u.Path, "/") != "" || u.RawQuery != "" || u.User != nil {
					return fmt.Errorf("%q is not an origin (scheme://host[:port]), null or *", o)
				}
			}
			c.CORSOrigins = append(c.CORSOrigins, o)
		}
		if len(c.CORSOrigins) == 0 {
			return fmt.Errorf("must list origins, or be *")
		}
		return nil
	}},
	{"CALENDAR_STRICT_READS", "strict-reads", "off", "on|off: lists show only what single records would (read_post), not all the plugin lists", func(c *Config, v string) error {
		b, err := parseSwitch(v)
		c.StrictReads = b
		return err
	}},
	{"CALENDAR_CUSTOM_TABLES", "custom-tables", "auto", "auto|off: off is what TEC_CUSTOM_TABLES_V1_DISABLED in wp-config.php does to the plugin (events on postmeta only); auto follows the site's options", func(c *Config, v string) error {
		switch v {
		case "auto":
			c.CustomTablesOff = false
		case "off":
			c.CustomTablesOff = true
		default:
			return fmt.Errorf("must be auto or off, got %q", v)
		}
		return nil
	}},
	{"CALENDAR_WATCH_INTERVAL", "watch-interval", "1s", "how often to look for changes WordPress makes directly in the database (Go duration; 0 = never)", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || (d > 0 && d < 100*time.Millisecond) || d > time.Hour {
			return fmt.Errorf("must be 0 or a duration from 100ms to 1h, got %q", v)
		}
		c.WatchInterval = d
		return nil
	}},
	{"CALENDAR_RECONCILE_INTERVAL", "reconcile-interval", "5m", "how often to look for changes the watermark cannot see (a bare SQL meta UPDATE): with the sync journal, a fingerprint diff that reloads only what changed; without it, everything kept in memory is reloaded (Go duration; 0 = never)", func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || (d > 0 && d < time.Second) {
			return fmt.Errorf("must be 0 or a duration of at least 1s, got %q", v)
		}
		c.Reconcile = d
		return nil
	}},
	{"CALENDAR_SYNC_RETENTION", "sync-retention", "720h", "how long the sync journal keeps its entries; a sync token older than that answers 410 (Go duration, 1h to 8760h)", func(c *Config, v string) error {
		d, err := parseDuration(v, time.Hour, 8760*time.Hour, false)
		c.SyncRetention = d
		return err
	}},
	{"CALENDAR_RECORD_CACHE", "record-cache", "5000", "how many loaded event records to keep in memory for reuse (0 = none)", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 10_000_000 {
			return fmt.Errorf("must be a whole number from 0 to 10000000, got %q", v)
		}
		c.RecordCache = n
		return nil
	}},
	{"CALENDAR_ICAL_MAX_EVENTS", "ical-max-events", "1000", "most events an events list answered as iCalendar (Accept: text/calendar or format=ical) holds", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100_000 {
			return fmt.Errorf("must be a whole number from 1 to 100000, got %q", v)
		}
		c.ICalMaxEvents = n
		return nil
	}},
	{"CALENDAR_INDEX_FILE", "index-file", "auto", "where the event index keeps its last build for a fast start: auto (PATH.index next to an embedded database; the user's cache directory for MySQL), off, or a file path", func(c *Config, v string) error {
		if v == "" {
			return fmt.Errorf("must be auto, off or a file path")
		}
		c.IndexFile = v
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
	{"CALENDAR_REDIS_URL", "redis-url", "", "Redis shared by every instance for the response cache: redis://[user:pass@]host:port/db (or rediss://)", func(c *Config, v string) error {
		if v == "" {
			return nil
		}
		if err := cache.ParseRedisURL(v); err != nil {
			return errors.New(scrubValue(err.Error(), v))
		}
		c.RedisURL = v
		return nil
	}},
	{"CALENDAR_CACHE", "cache", "auto", "off|memory|redis: where whole GET answers are kept (auto: redis when CALENDAR_REDIS_URL is set, else memory)", func(c *Config, v string) error {
		if v == "auto" {
			c.Cache = cache.Memory
			if c.RedisURL != "" {
				c.Cache = cache.Redis
			}
			return nil
		}
		m, err := cache.ParseMode(v)
		if err == nil && m == cache.Redis && c.RedisURL == "" {
			err = fmt.Errorf("redis needs CALENDAR_REDIS_URL")
		}
		c.Cache = m
		return err
	}},
	{"CALENDAR_CACHE_TTL", "cache-ttl", "5m", "longest life of a cached answer (Go duration); changes end it sooner", func(c *Config, v string) error {
		d, err := parseDuration(v, time.Second, 24*time.Hour, false)
		c.CacheTTL = d
		return err
	}},
	{"CALENDAR_CACHE_SIZE", "cache-size", "64MiB", "memory the in-process response cache may hold (bytes, or with KiB/MiB/GiB)", func(c *Config, v string) error {
		n, err := parseSize(v, 1<<20, 64<<30)
		c.CacheBytes = n
		return err
	}},
	{"CALENDAR_CACHE_PREFIX", "cache-prefix", "calendard:", "prefix of the Redis keys; sites sharing one Redis database need different prefixes", func(c *Config, v string) error {
		if v == "" || len(v) > 100 {
			return fmt.Errorf("must be 1 to 100 characters, got %q", v)
		}
		c.CachePrefix = v
		return nil
	}},
	{"CALENDAR_REDIS_TIMEOUT", "redis-timeout", "50ms", "longest a Redis call may take before the answer comes from the database (Go duration)", func(c *Config, v string) error {
		d, err := parseDuration(v, time.Millisecond, 10*time.Second, false)
		c.RedisTimeout = d
		return err
	}},
	{"CALENDAR_REDIS_PUSH", "redis-push", "0", "0, or how often (Go duration, e.g. 100ms) each instance reads the shared generation in the background: hits in its memory then trust the generation other instances announce by pub/sub instead of reading it per hit (a write elsewhere shows within the announcement's delay, at worst this interval); 0: every hit reads it", func(c *Config, v string) error {
		d, err := parseDuration(v, 10*time.Millisecond, time.Minute, true)
		c.RedisPush = d
		return err
	}},
	{"CALENDAR_CACHE_HEADER", "cache-header", "on", "on|off: X-Cache: HIT|MISS|BYPASS on answers", func(c *Config, v string) error {
		b, err := parseSwitch(v)
		c.CacheHeader = b
		return err
	}},
	{"CALENDAR_HTTP_MAX_AGE", "http-max-age", "0s", "how long shared caches may keep answers to anonymous requests (Cache-Control: public, max-age); 0 = revalidate every time (ETag)", func(c *Config, v string) error {
		d, err := parseDuration(v, time.Second, 24*time.Hour, true)
		c.PublicMaxAge = d
		return err
	}},
	{"CALENDAR_CACHE_PRIVATE", "cache-private", "local", "local|shared|off: where answers to authenticated users are kept (local: this process's memory only; shared: in Redis too; off: nowhere)", func(c *Config, v string) error {
		p, err := cache.ParsePrivate(v)
		c.CachePrivate = p
		return err
	}},
	{"CALENDAR_METRICS", "metrics", "on", "on|off|public: Prometheus metrics at /metrics on the diagnostics listener (CALENDAR_DEBUG_ADDR) and CALENDAR_METRICS_ADDR; public: on the API listener too", func(c *Config, v string) error {
		if v == "public" {
			c.Metrics, c.PublicMetrics = true, true
			return nil
		}
		b, err := parseSwitch(v)
		if err != nil {
			return fmt.Errorf("must be on, off or public, got %q", v)
		}
		c.Metrics = b
		return nil
	}},
	{"CALENDAR_METRICS_ADDR", "metrics-addr", "", "address (host:port) of a listener serving only /metrics, for a scraper on a private network; empty: none", func(c *Config, v string) error {
		if v == "" {
			return nil
		}
		if _, _, err := net.SplitHostPort(v); err != nil {
			return fmt.Errorf("must be host:port, got %q", v)
		}
		c.MetricsAddr = v
		return nil
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

// commandSettings are the settings each command offers as flags (serve: all of them). The others
// still come from the environment, so that every command sees one configuration.
var commandSettings = map[string][]string{
	"migrate":     {"db", "table-prefix", "site-url", "listen", "log-level"},
	"demo":        {"db", "table-prefix", "site-url", "listen", "now", "custom-tables"},
	"import":      {"db", "table-prefix", "site-url", "now", "custom-tables"},
	"reindex":     {"db", "table-prefix", "meili-url", "meili-key", "meili-index-prefix", "log-level"},
	"healthcheck": {"listen"},
	"user":        {"db", "table-prefix"},
}

// loadConfigFor is loadConfig for a command that declares flags of its own (extra defines them).
func loadConfigFor(command string, args []string, getenv func(string) string, extra func(fs *flag.FlagSet)) (*Config, error) {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	if extra != nil {
		extra(fs)
	}
	own, listed := commandSettings[command]
	values := make([]*string, len(settings))
	for i, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		values[i] = &def
		if listed && !slices.Contains(own, s.flag) {
			// Not this command's setting: the environment still applies, no flag is offered.
			continue
		}
		values[i] = fs.String(s.flag, def, s.help+" ["+s.env+"]")
		if secretSettings[s.flag] && def != "" {
			// -h shows the default, which may come from the environment.
			if s.flag == "meili-key" {
				fs.Lookup(s.flag).DefValue = mask
			} else if s.flag == "webhooks" {
				fs.Lookup(s.flag).DefValue = redactWebhooks(def)
			} else if s.flag == "db-replicas" {
				fs.Lookup(s.flag).DefValue = redactReplicas(def)
			} else {
				fs.Lookup(s.flag).DefValue = redact(def)
			}
		}
	}
	// Flags may follow the command's arguments (user app-password create LOGIN --name N).
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional, args = append(positional, fs.Arg(0)), fs.Args()[1:]
	}
	c := &Config{Args: positional}
	for i, s := range settings {
		if err := s.apply(c, *values[i]); err != nil {
			return nil, &ConfigError{Var: s.env, Err: err}
		}
	}
	if err := c.resolveSearch(); err != nil {
		return nil, err
	}
	if err := c.checkReplicas(); err != nil {
		return nil, err
	}
	if len(c.Webhooks) > 0 && c.WatchInterval == 0 {
		return nil, &ConfigError{Var: "CALENDAR_WEBHOOKS", Err: errors.New("needs the sync journal, which CALENDAR_WATCH_INTERVAL=0 switches off")}
	}
	return c, c.checkLimits()
}

var replicaSep = regexp.MustCompile(`,\s*mysql://`)

// splitReplicas splits a CALENDAR_DB_REPLICAS value at the commas that start another mysql://
// value, so that a comma inside a password does not.
func splitReplicas(v string) []string {
	var out []string
	for i, part := range replicaSep.Split(v, -1) {
		part = strings.TrimSpace(part)
		if i > 0 {
			part = "mysql://" + part
		}
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// checkReplicas refuses read replicas of an embedded store.
func (c *Config) checkReplicas() error {
	if len(c.DBReplicas) > 0 && !strings.HasPrefix(c.DB, "mysql://") {
		return &ConfigError{Var: "CALENDAR_DB_REPLICAS", Err: errors.New("read replicas need a mysql:// CALENDAR_DB (the embedded SQLite store has none)")}
	}
	return nil
}

// checkLimits refuses limits that contradict each other.
func (c *Config) checkLimits() error {
	if c.BodyMemory != 0 && c.BodyMemory < c.MaxBodyBytes {
		return &ConfigError{Var: "CALENDAR_BODY_MEMORY", Err: fmt.Errorf("%d is less than CALENDAR_MAX_BODY_BYTES (%d): no body that large could ever be read", c.BodyMemory, c.MaxBodyBytes)}
	}
	if c.MaxHeaderBytes < c.MaxURIBytes {
		return &ConfigError{Var: "CALENDAR_MAX_HEADER_BYTES", Err: fmt.Errorf("%d is less than CALENDAR_MAX_URI_BYTES (%d)", c.MaxHeaderBytes, c.MaxURIBytes)}
	}
	return nil
}

// parseSize reads a byte count: digits with an optional KiB, MiB or GiB (also K, M, G) suffix.
func parseSize(v string, lo, hi int64) (int64, error) {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = rest, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > hi/mult || n*mult < lo {
		return 0, fmt.Errorf("must be a size from %d to %d bytes (suffix KiB, MiB or GiB allowed), got %q", lo, hi, v)
	}
	return n * mult, nil
}

// parseCount reads a whole number in [lo, hi].
func parseCount(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be a whole number from %d to %d, got %q", lo, hi, v)
	}
	return n, nil
}

// parseDuration reads a Go duration in [lo, hi] (or 0 when zero is allowed).
func parseDuration(v string, lo, hi time.Duration, zero bool) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err == nil && ((zero && d == 0) || (d >= lo && d <= hi)) {
		return d, nil
	}
	if zero {
		return 0, fmt.Errorf("must be 0 or a duration from %v to %v, got %q", lo, hi, v)
	}
	return 0, fmt.Errorf("must be a duration from %v to %v, got %q", lo, hi, v)
}

// parseSwitch reads on|off (also 1|0, true|false).
func parseSwitch(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "1", "true":
		return true, nil
	case "off", "0", "false":
		return false, nil
	}
	return false, fmt.Errorf("must be on or off, got %q", v)
}

func osGetenv(k string) string { return os.Getenv(k) }

// loggedInKeys are the keys of WordPress' logged-in cookie: from CALENDAR_WP_CONFIG when set, else
// CALENDAR_LOGGED_IN_KEY and CALENDAR_LOGGED_IN_SALT (none: the cookie is ignored).
func loggedInKeys(c *Config) (wpauth.LoggedInKeys, error) {
	if c.WPConfig != "" {
		k, err := wpauth.ReadWPConfig(c.WPConfig)
		if err != nil {
			return wpauth.LoggedInKeys{}, &ConfigError{Var: "CALENDAR_WP_CONFIG", Err: err}
		}
		return k, nil
	}
	return wpauth.LoggedInKeys{Key: c.LoggedInKey, Salt: c.LoggedInSalt}, nil
}
