package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/calendard/calendard/wpdb"
)

// defaultMigrateOptions are the settings of a calendar created without flags.
func defaultMigrateOptions(cfg *Config) wpdb.MigrateOptions {
	site := cfg.SiteURL
	if site == "" {
		site = "http://" + cfg.Listen
	}
	return wpdb.MigrateOptions{SiteURL: site, Timezone: "UTC", SiteName: "Calendar", AdminLogin: "admin", AdminEmail: "admin@example.com"}
}

// migrate is "calendard migrate": tables, options and an administrator on an empty database.
func migrate(args []string) error {
	var o wpdb.MigrateOptions
	var dryRun bool
	var wait time.Duration
	cfg, err := loadConfigFor("migrate", args, osGetenv, func(fs *flag.FlagSet) {
		fs.StringVar(&o.Timezone, "timezone", "UTC", "site timezone (timezone_string), e.g. Europe/Berlin")
		fs.StringVar(&o.SiteName, "site-name", "Calendar", "site name (blogname)")
		fs.StringVar(&o.AdminLogin, "admin-login", "admin", "login of the administrator created on an empty site")
		fs.StringVar(&o.AdminEmail, "admin-email", "admin@example.com", "e-mail of that administrator")
		fs.BoolVar(&dryRun, "dry-run", false, "print what migrate would create or add (tables, indexes, options, the administrator) and change nothing")
		fs.DurationVar(&wait, "wait", 30*time.Second, "how long to keep trying a MySQL server that refuses connections or does not answer (wrong credentials stop at once)")
	})
	if err != nil {
		return err
	}
	def := defaultMigrateOptions(cfg)
	o.SiteURL = def.SiteURL
	if _, err := time.LoadLocation(o.Timezone); err != nil {
		return &ConfigError{Var: "--timezone", Err: err}
	}
	if path, ok := wpdb.SQLitePath(cfg.DB); ok && dryRun {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return planNewSQLite(cfg, path, o)
		}
	}
	db, err := openStore(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	if err := connect(ctx, db, wait, func(err error) {
		fmt.Fprintf(os.Stderr, "waiting up to %s for the database: %v\n", wait, err)
	}); err != nil {
		return err
	}
	if dryRun {
		plan, err := db.PlanMigrate(ctx, o)
		if err != nil {
			return err
		}
		fmt.Printf("%s: dry run, nothing was changed\n", redact(cfg.DB))
		reportPlan(os.Stdout, plan)
		return nil
	}
	res, err := db.Migrate(ctx, o, time.Now())
	if err != nil {
		return err
	}
	fmt.Printf("%s: tables ready\n", redact(cfg.DB))
	reportMigration(os.Stdout, res)
	return nil
}

// planNewSQLite is the dry run on a database file that does not exist yet: opening it would
// create it, so the plan is made on an empty file of its own, removed afterwards.
func planNewSQLite(cfg *Config, path string, o wpdb.MigrateOptions) error {
	dir, err := os.MkdirTemp("", "calendard-dry-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := wpdb.OpenSQLite(filepath.Join(dir, "plan.db"), cfg.TablePrefix)
	if err != nil {
		return &ConfigError{Var: "CALENDAR_DB", Err: err}
	}
	defer db.Close()
	plan, err := db.PlanMigrate(context.Background(), o)
	if err != nil {
		return err
	}
	fmt.Printf("%s: dry run, nothing was changed\nwould create the database file %s\n", redact(cfg.DB), path)
	reportPlan(os.Stdout, plan)
	return nil
}

// reportPlan prints what migrate would do.
func reportPlan(w io.Writer, p *wpdb.MigratePlan) {
	if len(p.Tables)+len(p.Indexes)+len(p.Options) == 0 && p.Admin == "" {
		fmt.Fprintln(w, "migrate would change nothing")
		return
	}
	if len(p.Tables) > 0 {
		fmt.Fprintf(w, "would create tables: %s\n", strings.Join(p.Tables, ", "))
	}
	if len(p.Indexes) > 0 {
		fmt.Fprintf(w, "would add indexes: %s\n", strings.Join(p.Indexes, ", "))
	}
	if len(p.Options) > 0 {
		fmt.Fprintf(w, "would add options: %s\n", strings.Join(p.Options, ", "))
	}
	if p.Admin != "" {
		fmt.Fprintf(w, "would create administrator %q with an application password\n", p.Admin)
	}
}

// reportMigration prints what a migration added; the application password is shown only here.
// tlsRule is WordPress' rule for application passwords, said where one is printed: outside the
// local environment a password sent over plain HTTP is ignored, and the write answers 401.
const tlsRule = "It is accepted over HTTPS (or behind a proxy listed in CALENDAR_TRUSTED_PROXIES), and over plain HTTP\n" +
	"only with CALENDAR_ENVIRONMENT=local, which make run sets.\n"

func reportMigration(w io.Writer, res *wpdb.MigrateResult) {
	if len(res.AddedOptions) > 0 {
		fmt.Fprintf(w, "added options: %s\n", strings.Join(res.AddedOptions, ", "))
	}
	if len(res.AddedIndexes) > 0 {
		fmt.Fprintf(w, "added indexes: %s\n", strings.Join(res.AddedIndexes, ", "))
	}
	if res.AppPassword != "" {
		fmt.Fprintf(w, "created administrator %q with the application password:\n\n    %s\n\n"+
			"Use it with HTTP Basic authentication (user %q). It is shown only once.\n%s", res.AdminLogin, res.AppPassword, res.AdminLogin, tlsRule)
	}
}
