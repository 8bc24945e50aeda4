// Command calendard serves The Events Calendar's REST API from a WordPress database.
//
//	calendard serve        run the HTTP service (configured by CALENDAR_* variables)
//	calendard migrate      create the tables, options and an administrator on an empty database
//	calendard demo         fill a database with a demo calendar through the write path
//	calendard copy         copy a whole calendar between MySQL and SQLite
//	calendard import       migrate a live calendar from a WordPress site over its REST API
//	calendard reindex      rebuild the Meilisearch indexes and swap them in atomically
//	calendard healthcheck  exit 0 only when the configured service answers /healthz with 200
//	calendard user         list users; create, list and revoke application passwords
//	calendard version      print the version, its commit and the Go version
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/wpdb"
)

func main() {
	secrets.collect(os.Getenv, os.Args[1:])
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// -h printed the command's usage: asking for help is no failure.
			return
		}
		// One line, whatever the library quoted: configured passwords never reach the output.
		fmt.Fprintln(os.Stderr, "calendard:", secrets.scrub(strings.ReplaceAll(err.Error(), "\n", " ")))
		code := 2
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			code = ec.ExitCode()
		}
		os.Exit(code)
	}
}

const usage = `usage: calendard <command> [flags]

commands:
  serve    run the REST API service (configured by CALENDAR_* environment variables)
  migrate  create the WordPress tables, the options calendard needs and an administrator
           with an application password, on an empty database (idempotent)
  demo     fill the database with a demo calendar (venues, organizers, categories, tags, events)
           through the REST write path; does nothing when the calendar has events, unless --force
  copy     copy a whole calendar between databases: copy --from DB --to DB [--replace]
  import   migrate a live calendar from a WordPress site's REST API into the database:
           import --from https://SITE [--user LOGIN] (CALENDAR_IMPORT_APP_PASSWORD) [--to DB] [--prune]
  reindex  rebuild the Meilisearch indexes (CALENDAR_MEILI_URL) and swap them in atomically
  user     list users; create, list and revoke application passwords:
           user list | user app-password create|list|revoke LOGIN (see "calendard user -h")
  version  print the version, the commit it was built from and the Go version (also --version)
  healthcheck  ask the service at CALENDAR_LISTEN for /healthz; exit 0 only on 200 (the
           container image's HEALTHCHECK)

The database is CALENDAR_DB (or --db): sqlite://PATH (default sqlite://calendard.db) or
mysql://USER:PASS@tcp(HOST:PORT)/DBNAME. Run "calendard <command> -h" for a command's flags.`

func run(args []string) error {
	if len(args) == 0 {
		args = []string{"serve"}
	}
	switch args[0] {
	case "serve":
		return serve(args[1:])
	case "migrate":
		return migrate(args[1:])
	case "demo":
		return demoCalendar(args[1:])
	case "copy":
		return copyCalendar(args[1:])
	case "import":
		return importCalendar(args[1:])
	case "reindex":
		return reindex(args[1:])
	case "healthcheck":
		return healthcheck(args[1:])
	case "user":
		return userCommand(args[1:])
	case "version", "-version", "--version":
		fmt.Println(versionString())
		return nil
	case "help", "-h", "--help":
		fmt.Println(usage)
		return nil
	}
	fmt.Fprintln(os.Stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	var h slog.Handler = slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})
	if !secrets.empty() {
		h = scrubHandler{h}
	}
	return slog.New(h)
}

// indexFilePath resolves CALENDAR_INDEX_FILE: "" for off; for auto, PATH.index next to an embedded
// database, or a file in the user's cache directory named after the MySQL database and prefix
// ("" when there is no cache directory).
func indexFilePath(cfg *Config) string {
	switch cfg.IndexFile {
	case "off":
		return ""
	case "auto":
	default:
		return cfg.IndexFile
	}
	if path, ok := strings.CutPrefix(cfg.DB, "sqlite://"); ok {
		return path + ".index"
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(cfg.DB + "\x00" + cfg.TablePrefix))
	return filepath.Join(dir, "calendard", "index-"+hex.EncodeToString(sum[:8]))
}

// openStore opens the configured database.
func openStore(cfg *Config) (*wpdb.DB, error) {
	db, err := wpdb.Open(cfg.DB, cfg.TablePrefix)
	if err != nil {
		return nil, &ConfigError{Var: "CALENDAR_DB", Err: err}
	}
	return db, nil
}

// serve wires the database, the domain services and the HTTP layer, then runs until a signal.
func serve(args []string) error {
	cfg, err := loadConfig(args, osGetenv)
	if err != nil {
		return err
	}
	log := newLogger(cfg.LogLevel)
	setGCPercent(os.LookupEnv)

	db, err := openStore(cfg)
	if err != nil {
		return err
	}
	defer db.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Wrong credentials or database name stop the start; a database not reachable yet does not:
	// the service answers 503 (and /healthz says so) until it is, and stops if it then refuses.
	fatal := make(chan error, 1)
	if err := connect(ctx, db, 0, nil); err != nil {
		if errors.As(err, new(*ConfigError)) {
			return err
		}
		log.Warn("database not reachable yet: answering 503 until it is", "err", err)
		go watchConfig(ctx, db, fatal)
	}
	if db.Dialect() == wpdb.SQLite {
		// The embedded store needs no setup: a new file gets its tables and an administrator.
		res, err := db.Migrate(context.Background(), defaultMigrateOptions(cfg), time.Now())
		if err != nil {
			return fmt.Errorf("preparing %s: %w", redact(cfg.DB), err)
		}
		reportMigration(os.Stderr, res)
	}

	clock := time.Now
	if cfg.Now != nil {
		frozen := *cfg.Now
		clock = func() time.Time { return frozen }
		log.Warn("CLOCK FROZEN by CALENDAR_NOW: every request sees this instant", "now", frozen.Format(time.DateTime))
	}

	// The address is taken first: a port that is not free stops the start at once, before any work.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return &ConfigError{Var: "CALENDAR_LISTEN", Err: err}
	}
	defer ln.Close()

	store := service.Start(ctx, db, wpdb.SiteOverrides{HomeURL: cfg.SiteURL, CustomTablesDisabled: cfg.CustomTablesOff}, wpdb.StartOptions{WatchInterval: cfg.WatchInterval, Reconcile: cfg.Reconcile, NoIndex: !cfg.EventIndex, Records: cfg.RecordCache, IndexFile: indexFilePath(cfg),
		SyncRetention: cfg.SyncRetention, OnError: func(err error) { log.Warn("keeping in step with the database", "err", err) }})
	debugStore.Store(store)
	if ix := store.Index(); ix != nil {
		debugIndex.Store(ix)
	}
	if ix := store.Index(); ix != nil && db.Dialect() == wpdb.SQLite {
		// A small embedded calendar is indexed before the first request; a large one waits for
		// its index in the first list, which is faster there than SQL. 50 ms covers a calendar of
		// a few thousand events. On MariaDB the first lists come from SQL, and a first build
		// waits for the first of them (wpdb's firstBuildGrace), so waiting here would only delay
		// the first answer.
		waitCtx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		ix.WaitReady(waitCtx)
		cancel()
	}
	metrics := newMetrics(cfg)
	if err := useReplicas(cfg, db, log, metrics); err != nil {
		return err
	}
	watchMetrics(cfg, db.Changes(), metrics)
	found := searchServices(ctx, cfg, db, store, log, metrics)
	stopMetrics, err := serveMetrics(cfg, metrics)
	if err != nil {
		return err
	}
	defer stopMetrics()
	respCache, err := openCache(cfg, store, db, log, metrics)
	if err != nil {
		return err
	}
	defer respCache.Close()
	keys, err := loggedInKeys(cfg)
	if err != nil {
		return err
	}
	engine := service.Handler(handlers.Config{
		Environment:    cfg.Environment,
		TrustedProxies: cfg.TrustedProxies,
		Clock:          clock,
		Logger:         log,
		AccessLog:      cfg.AccessLog,

		// Limits (docs/reliability.md).
		MaxBodyBytes:    cfg.MaxBodyBytes,
		MaxBodyValues:   cfg.MaxBodyValues,
		MaxDecodedBytes: cfg.MaxDecodedBytes,
		BodyMemory:      offIfZero(cfg.BodyMemory),
		BodyTimeout:     cfg.BodyTimeout,
		MaxURIBytes:     cfg.MaxURIBytes,
		DBTimeout:       offIfZero(cfg.DBTimeout),
		Logins: handlers.LoginLimit{Off: !cfg.LoginLimit, PerAccount: offIfZero(cfg.LoginsPerAccount),
			PerAddress: offIfZero(cfg.LoginsPerAddress), Window: cfg.LoginWindow},
		CORSOrigins:   cfg.CORSOrigins,
		StrictReads:   cfg.StrictReads,
		ICalMaxEvents: cfg.ICalMaxEvents,

		Cache:        respCache,
		CacheHeader:  cfg.CacheHeader,
		PublicMaxAge: cfg.PublicMaxAge,
		Metrics:      metrics,
		// /metrics is on the API listener only when asked for (newMetrics).
		PublicMetrics: cfg.PublicMetrics,
		// The embedded store has no WordPress in front of it: calendard is the whole site.
		WholeSite:   db.Dialect() == wpdb.SQLite,
		Geo:         cfg.Search.Geo,
		GeoRadiusKM: cfg.Search.GeoRadiusKM,
	}, store, service.WithSearch(found), service.WithLoggedInKeys(keys))

	if len(cfg.Webhooks) > 0 {
		stopHooks, err := startWebhooks(ctx, cfg, store, engine, log, metrics)
		if err != nil {
			return err
		}
		defer stopHooks()
	}

	srv := httpServer(cfg, engine)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("calendard listening", "addr", ln.Addr().String(), "environment", cfg.Environment, "store", db.Dialect().String())
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return &ConfigError{Var: "CALENDAR_LISTEN", Err: err}
	case err := <-fatal:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// httpServer is the service's HTTP server. Headers must arrive within 10 s, all of them (request
// line included) in MaxHeaderBytes; the body then has BodyTimeout, which the handlers enforce
// themselves so that a slow body gets its own answer (408).
func httpServer(cfg *Config, h http.Handler) *http.Server {
	const headerTimeout = 10 * time.Second
	return &http.Server{
		Addr:              cfg.Listen,
		Handler:           h,
		ReadHeaderTimeout: headerTimeout,
		ReadTimeout:       headerTimeout + cfg.BodyTimeout + time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
	}
}

// offIfZero maps a configuration's 0 ("none") to the handlers' negative "off".
func offIfZero[T int | int64 | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// serveGCPercent is the collector's target for serve (GOGC) unless GOGC is set: most of the heap
// is the event index, which lives as long as the process, so Go's default of 100 (collect when the
// heap has doubled) would let garbage grow to the size of the whole index. At 50 the garbage may
// reach half of it. The index is a few hundred large objects (slabs of events, blocks of text), so
// each collection is cheap even on a large calendar (docs/architecture.md).
const serveGCPercent = 50

// setGCPercent applies serveGCPercent unless the environment sets GOGC, which the runtime has
// then already applied.
func setGCPercent(lookup func(string) (string, bool)) {
	if _, set := lookup("GOGC"); !set {
		debug.SetGCPercent(serveGCPercent)
	}
}
