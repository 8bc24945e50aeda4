package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/calendard/calendard/importer"
	"github.com/calendard/calendard/internal/demo"
	"github.com/calendard/calendard/wpdb"
)

// importCalendar is "calendard import --from https://SITE": it prepares the target database like
// migrate, then writes every category, tag, venue, organizer and event the site's REST API shows
// through calendard's own write path, and prints a summary with every record it could not import.
// The exit status is 1 when some records failed (the others are written).
func importCalendar(args []string) error {
	o := importer.Options{}
	var user, checkpoint string
	var quiet, keep, follow bool
	var since string
	var interval time.Duration
	// --to is the target database: the configured store (CALENDAR_DB, --db) unless given.
	for i, a := range args {
		if a == "--to" || a == "-to" {
			args[i] = "--db"
		} else if v, ok := strings.CutPrefix(a, "--to="); ok {
			args[i] = "--db=" + v
		}
	}
	cfg, err := loadConfigFor("import", args, osGetenv, func(fs *flag.FlagSet) {
		fs.StringVar(&o.From, "from", "", "the WordPress site to import from (https://example.org)")
		fs.StringVar(&o.User, "user", "", "login of a source user, with an application password: drafts, private and pending items too")
		fs.StringVar(&o.Password, "app-password", "", "the user's application password (better: CALENDAR_IMPORT_APP_PASSWORD)")
		fs.IntVar(&o.Concurrency, "concurrency", 4, "pages fetched at once")
		fs.IntVar(&o.MaxPages, "max-pages", 2000, "pages of 50 read per list at most")
		fs.DurationVar(&o.Timeout, "timeout", time.Minute, "time limit of one request to the source")
		fs.StringVar(&checkpoint, "checkpoint", "", "checkpoint file (default: in the user cache directory, named after the source and target)")
		fs.StringVar(&user, "as", "", "login, e-mail or ID of the target user who writes (default: the administrator, user 1)")
		fs.BoolVar(&quiet, "quiet", false, "no progress output")
		fs.BoolVar(&keep, "keep-checkpoint", false, "keep the checkpoint file after a complete run")
		fs.BoolVar(&o.Prune, "prune", false, "delete the posts earlier runs imported that the source no longer has (needs --user)")
		fs.StringVar(&since, "since", "", `import only what changed since an RFC 3339 time, or "last": the start of the last complete run`)
		fs.BoolVar(&follow, "follow", false, "repeat the import every --interval (each round --since last) until SIGINT or SIGTERM")
		fs.DurationVar(&interval, "interval", time.Minute, "with --follow: the wait between rounds (at least 1s)")
	})
	if err != nil {
		return err
	}
	if o.From == "" {
		return &ConfigError{Var: "--from", Err: fmt.Errorf("the site to import from is required")}
	}
	if o.Password == "" {
		o.Password = os.Getenv("CALENDAR_IMPORT_APP_PASSWORD")
	}
	if o.User != "" && o.Password == "" {
		return &ConfigError{Var: "--user", Err: fmt.Errorf("needs an application password (CALENDAR_IMPORT_APP_PASSWORD or --app-password)")}
	}
	if o.Prune && o.User == "" {
		return &ConfigError{Var: "--prune", Err: fmt.Errorf("needs --user: an anonymous run does not see drafts, pending or private posts")}
	}
	switch since {
	case "":
		o.SinceLast = follow
	case "last":
		o.SinceLast = true
	default:
		if o.Since, err = time.Parse(time.RFC3339, since); err != nil {
			return &ConfigError{Var: "--since", Err: fmt.Errorf(`%q is neither an RFC 3339 time (2026-01-02T15:04:05Z) nor "last"`, since)}
		}
	}
	if follow && interval < time.Second {
		return &ConfigError{Var: "--interval", Err: fmt.Errorf("%s is less than 1s", interval)}
	}
	if checkpoint == "" {
		checkpoint = defaultCheckpoint(o.From, cfg.DB)
	}
	if checkpoint != "off" {
		o.Checkpoint = checkpoint
	}

	ctx, stopping := importSignals(follow)
	report := io.Writer(os.Stderr)
	if quiet {
		report = io.Discard
	}
	db, err := openPrepared(ctx, cfg, report)
	if err != nil {
		return err
	}
	defer db.Close()
	ov := wpdb.SiteOverrides{HomeURL: cfg.SiteURL, CustomTablesDisabled: cfg.CustomTablesOff}
	site, err := db.LoadSite(ctx, ov)
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
	target := &importer.WordPress{Writer: db, Site: site, User: author}
	if cfg.Now != nil {
		now := *cfg.Now
		target.Clock = func() time.Time { return now }
	}
	// The site's time zone comes from the source first: the records' dates are read in it.
	tgt := &siteReloader{WordPress: target, db: db, ov: ov}
	if follow {
		return followImport(ctx, stopping, tgt, o, interval)
	}
	if !quiet {
		o.Progress = newImportProgress(os.Stderr, term.IsTerminal(int(os.Stderr.Fd())))
	}
	sum, err := importer.Run(ctx, tgt, o)
	if p, ok := o.Progress.(*importProgress); ok {
		p.finish()
	}
	if sum != nil {
		_, _ = sum.WriteTo(os.Stdout)
	}
	if err != nil {
		if o.Checkpoint != "" {
			fmt.Fprintf(os.Stderr, "checkpoint: %s (the next run resumes after the finished resources)\n", o.Checkpoint)
		}
		return err
	}
	if len(sum.Failures) > 0 {
		return partialImport(len(sum.Failures))
	}
	return nil
}

// importSignals returns the run's context, cancelled by SIGINT or SIGTERM. With follow, the first
// signal closes stopping instead (the loop ends after the current round) and a second one cancels.
func importSignals(follow bool) (ctx context.Context, stopping <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer signal.Stop(sigs)
		if follow {
			<-sigs
			fmt.Fprintln(os.Stderr, "import: stopping after this round (signal again to stop now)")
			close(stop)
		}
		<-sigs
		cancel()
	}()
	return ctx, stop
}

// followImport runs a round, then another --since last every interval, until stopping closes
// (after the current round) or ctx ends. A round that fails is logged and the next one tries
// again: a source that is down for a while does not end the follow.
func followImport(ctx context.Context, stopping <-chan struct{}, target importer.Target, o importer.Options, interval time.Duration) error {
	for round := 1; ; round++ {
		began := time.Now()
		sum, err := importer.Run(ctx, target, o)
		if sum != nil {
			if sum.Elapsed == 0 {
				sum.Elapsed = time.Since(began)
			}
			_ = sum.WriteRound(os.Stdout, round)
		}
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(os.Stderr, "import: round %d interrupted: %v\n", round, err)
				return nil
			}
			fmt.Fprintf(os.Stderr, "import: round %d did not complete: %v\n", round, err)
		}
		o.Since, o.SinceLast = time.Time{}, true
		t := time.NewTimer(interval)
		select {
		case <-stopping:
			t.Stop()
			fmt.Fprintf(os.Stderr, "import: stopped after round %d\n", round)
			return nil
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// partialImport is a run that completed with some records not imported: exit status 1, where a
// run that could not complete exits with 2.
type partialImport int

func (n partialImport) Error() string {
	return fmt.Sprintf("%d records or pages not imported (listed above)", int(n))
}

func (partialImport) ExitCode() int { return 1 }

// siteReloader reloads the target's site settings after the import stored the source's, so the
// records are written in the source's time zone.
type siteReloader struct {
	*importer.WordPress
	db *wpdb.DB
	ov wpdb.SiteOverrides
}

func (s *siteReloader) SaveSite(ctx context.Context, idx *importer.Index) (bool, error) {
	wrote, err := s.WordPress.SaveSite(ctx, idx)
	if err != nil {
		return wrote, err
	}
	site, err := s.db.LoadSite(ctx, s.ov)
	if err != nil {
		return wrote, err
	}
	s.WordPress.Site = site
	return wrote, nil
}

// defaultCheckpoint is a file in the user's cache directory named after the source and the target,
// so two imports never share one.
func defaultCheckpoint(from, target string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "off"
	}
	h := sha256.Sum256([]byte(strings.TrimRight(from, "/") + "\x00" + target))
	return filepath.Join(dir, "calendard", "import-"+hex.EncodeToString(h[:8])+".json")
}

// importProgress is a bar per resource on a terminal, plain lines (every tenth) otherwise.
type importProgress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	bar   *progressbar.ProgressBar
	res   importer.Resource
	total int
	done  int
	next  int
}

func newImportProgress(w io.Writer, tty bool) *importProgress { return &importProgress{w: w, tty: tty} }

func (p *importProgress) Start(res importer.Resource, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked()
	p.res, p.total, p.done, p.next = res, total, 0, 0
	if p.tty && total > 0 {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetDescription("importing "+string(res)),
			progressbar.OptionSetWriter(p.w), progressbar.OptionShowCount(), progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
}

func (p *importProgress) Done(res importer.Resource, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if p.bar != nil {
		_ = p.bar.Set(p.done)
		return
	}
	if p.done >= p.next || p.done == p.total {
		fmt.Fprintf(p.w, "importing %s: %d/%d\n", res, p.done, p.total)
		p.next = p.done + max(p.total/10, 1)
	}
}

func (p *importProgress) finishLocked() {
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
}

func (p *importProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked()
}
