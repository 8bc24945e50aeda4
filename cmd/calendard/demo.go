package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/calendard/calendard/internal/demo"
	"github.com/calendard/calendard/wpdb"
)

// demoCalendar is "calendard demo": it prepares the database like migrate, then fills it with a demo
// calendar through the write path the REST endpoints use. A calendar that already has events is
// left alone (exit status 0, saying why) unless --force.
func demoCalendar(args []string) error {
	o := demo.Options{}
	var user string
	var quiet bool
	var seed uint64
	cfg, err := loadConfigFor("demo", args, osGetenv, func(fs *flag.FlagSet) {
		fs.IntVar(&o.Events, "events", demo.DefaultEvents, "number of events")
		fs.Uint64Var(&seed, "seed", 1, "random seed: the same seed and --now give the same calendar")
		fs.IntVar(&o.Batch, "batch", 50, "events per transaction")
		fs.BoolVar(&o.Force, "force", false, "add the demo even when the calendar already has events")
		fs.StringVar(&user, "user", "", "login, e-mail or ID of the user who writes the demo (default: the administrator, user 1)")
		fs.BoolVar(&quiet, "quiet", false, "no progress lines")
	})
	if err != nil {
		return err
	}
	if o.Events < 1 || o.Events > 100_000 {
		return &ConfigError{Var: "--events", Err: fmt.Errorf("must be between 1 and 100000, got %d", o.Events)}
	}
	o.Seed = seed
	// --now (CALENDAR_NOW) anchors the dates; by default they are spread around the current time.
	o.Now = time.Now()
	if cfg.Now != nil {
		o.Now = *cfg.Now
	}
	if !quiet {
		o.Progress = func(done, total int) { fmt.Fprintf(os.Stderr, "events %d/%d\n", done, total) }
	}

	ctx := context.Background()
	db, err := openPrepared(ctx, cfg, os.Stdout)
	if err != nil {
		return err
	}
	defer db.Close()

	site, err := wpdb.NewStore(db, wpdb.SiteOverrides{HomeURL: cfg.SiteURL, CustomTablesDisabled: cfg.CustomTablesOff}).Site(ctx)
	if err != nil {
		return err
	}
	opts, err := db.Options(ctx, "admin_email")
	if err != nil {
		return err
	}
	author, err := demo.Author(ctx, db, site, user, opts["admin_email"])
	if err != nil {
		return err
	}
	sum, err := demo.Fill(ctx, db, site, author, o)
	if err != nil {
		return err
	}
	if !sum.Skipped {
		fmt.Printf("%s: written as %q\n", redact(cfg.DB), author.Login)
	}
	_, err = sum.WriteTo(os.Stdout)
	return err
}

// openPrepared opens the configured store, waits for it to answer and prepares it as migrate
// does (reporting what it did to report): what demo and import write into.
func openPrepared(ctx context.Context, cfg *Config, report io.Writer) (*wpdb.DB, error) {
	db, err := openStore(cfg)
	if err != nil {
		return nil, err
	}
	if err := connect(ctx, db, 0, nil); err != nil {
		db.Close()
		return nil, err
	}
	res, err := db.Migrate(ctx, defaultMigrateOptions(cfg), time.Now())
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("preparing %s: %w", redact(cfg.DB), err)
	}
	reportMigration(report, res)
	return db, nil
}
