// Command calendard-bench measures calendard: it generates calendars of given
// sizes shaped as WordPress and The Events Calendar store them (bench/gen), serves each with the
// real calendard binary on MariaDB and on SQLite, drives it from this separate process with the
// request mix of bench/mix.txt at several concurrencies, and writes the figures to BENCHMARKS.md.
//
//	calendard-bench [run] [flags]   the benchmark (see -h)
//	calendard-bench gen --db DB --events N [--seed S] [--now DATE] [--replace]
//	                                 write a generated calendar into a database
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/calendard/calendard/bench/gen"
	"github.com/calendard/calendard/wpdb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	args := os.Args[1:]
	var err error
	switch {
	case len(args) > 0 && args[0] == "gen":
		err = genCommand(ctx, args[1:])
	case len(args) > 0 && args[0] == "run":
		err = runCommand(ctx, args[1:])
	default:
		err = runCommand(ctx, args)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "calendard-bench:", err)
		os.Exit(1)
	}
}

// parseAnchor reads --now: "YYYY-MM-DD" or "YYYY-MM-DD HH:MM:SS" UTC; empty is today 00:00 UTC.
func parseAnchor(s string) (time.Time, error) {
	if s == "" {
		return time.Now().UTC().Truncate(24 * time.Hour), nil
	}
	for _, layout := range []string{time.DateTime, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--now %q: want YYYY-MM-DD or 'YYYY-MM-DD HH:MM:SS' (UTC)", s)
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(strings.ReplaceAll(strings.ReplaceAll(f, "_", ""), "k", "000"))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	return out, nil
}

// genCommand writes a generated calendar into an existing (or new SQLite) database.
func genCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	db := fs.String("db", os.Getenv("CALENDAR_DB"), "database: sqlite://PATH or mysql://DSN (default $CALENDAR_DB)")
	events := fs.Int("events", 10000, "number of events")
	seed := fs.Uint64("seed", 1, "random seed: the same seed, --now and base database give the same calendar")
	now := fs.String("now", "", "anchor of the dates, 'YYYY-MM-DD[ HH:MM:SS]' UTC (default today)")
	prefix := fs.String("table-prefix", "wp_", "WordPress table prefix")
	replace := fs.Bool("replace", false, "delete the database's events, venues, organizers, event categories and tags first")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the generation to this file")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: calendard-bench gen --db DB --events N [flags]\n\nWrites a calendar shaped as WordPress and The Events Calendar store it. Tables missing\nfrom the database are created first, as calendard migrate does.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *db == "" {
		return fmt.Errorf("gen needs --db")
	}
	anchor, err := parseAnchor(*now)
	if err != nil {
		return err
	}
	w, err := wpdb.Open(*db, *prefix)
	if err != nil {
		return err
	}
	res0, err := w.Migrate(ctx, wpdb.MigrateOptions{SiteURL: "http://127.0.0.1:8080", Timezone: "UTC", SiteName: "Calendar",
		AdminLogin: "admin", AdminEmail: "admin@example.com"}, time.Now())
	w.Close()
	if err != nil {
		return err
	}
	if res0.AppPassword != "" {
		fmt.Printf("created administrator %q with the application password %s\n", res0.AdminLogin, res0.AppPassword)
	}
	sqldb, store, err := gen.Open(*db)
	if err != nil {
		return err
	}
	defer sqldb.Close()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res, err := gen.Generate(ctx, sqldb, store, gen.Options{Events: *events, Seed: *seed, Now: anchor, Prefix: *prefix, Replace: *replace})
	if err != nil {
		return err
	}
	printResult(os.Stdout, string(store), res)
	return nil
}

func printResult(w *os.File, store string, res *gen.Result) {
	fmt.Fprintf(w, "%s: %d events (%d published, %d upcoming), %d venues, %d organizers in %s\n", store, res.Events,
		res.Published, res.Upcoming, res.Venues, res.Organizers, res.Elapsed.Round(time.Millisecond))
	var parts []string
	for _, t := range []string{"posts", "postmeta", "terms", "term_relationships", "tec_events", "tec_occurrences"} {
		parts = append(parts, fmt.Sprintf("%s %d", t, res.Rows[t]))
	}
	fmt.Fprintf(w, "  rows written: %s\n", strings.Join(parts, ", "))
	var phases []string
	for k, v := range res.Phases {
		phases = append(phases, fmt.Sprintf("%s %s", k, v.Round(time.Millisecond)))
	}
	sort.Strings(phases)
	fmt.Fprintf(w, "  steps: %s\n", strings.Join(phases, ", "))
}
