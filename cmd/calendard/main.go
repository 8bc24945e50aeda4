// Command calendard serves The Events Calendar's REST API from a WordPress database.
//
//	calendard serve     run the HTTP service (configured by CALENDAR_* variables)
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/wpdb"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "calendard:", err)
		os.Exit(2)
	}
}

const usage = `usage: calendard <command> [flags]

commands:
  serve    run the REST API service (configured by CALENDAR_* environment variables)`

func run(args []string) error {
	if len(args) == 0 {
		args = []string{"serve"}
	}
	switch args[0] {
	case "serve":
		return serve(args[1:])
	case "help", "-h", "--help":
		fmt.Println(usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// serve wires the database, the domain services and the HTTP layer, then runs until a signal.
func serve(args []string) error {
	cfg, err := loadConfig(args, osGetenv)
	if err != nil {
		return err
	}
	log := newLogger(cfg.LogLevel)

	db, err := wpdb.OpenMySQL(strings.TrimPrefix(cfg.DB, "mysql://"), cfg.TablePrefix)
	if err != nil {
		return &ConfigError{Var: "CALENDAR_DB", Err: err}
	}
	defer db.Close()

	clock := time.Now
	if cfg.Now != nil {
		frozen := *cfg.Now
		clock = func() time.Time { return frozen }
		log.Warn("CLOCK FROZEN by CALENDAR_NOW: every request sees this instant", "now", frozen.Format(time.DateTime))
	}

	store := wpdb.NewStore(db, wpdb.SiteOverrides{HomeURL: cfg.SiteURL})
	engine := handlers.New(handlers.Config{
		Environment:    cfg.Environment,
		TrustedProxies: cfg.TrustedProxies,
		Clock:          clock,
		Logger:         log,
	}, handlers.Deps{Site: store, DB: db, Users: db, Events: store, Linked: db, Writer: db, Posts: db, Terms: db, TermQuery: db})

	srv := &http.Server{
		Addr:              cfg.Listen,
		Handler:           engine,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("calendard listening", "addr", cfg.Listen, "environment", cfg.Environment)
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return &ConfigError{Var: "CALENDAR_LISTEN", Err: err}
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}
