package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/schollz/progressbar/v3"

	"github.com/calendard/calendard/wpdb"
)

// copyCalendar is "calendard copy --from DB --to DB": the whole calendar, with a progress bar, and
// the row counts verified at the end.
func copyCalendar(args []string) error {
	fs := flag.NewFlagSet("copy", flag.ContinueOnError)
	from := fs.String("from", "", "source database (sqlite://PATH or mysql://DSN)")
	to := fs.String("to", "", "target database (sqlite://PATH or mysql://DSN); its tables are created when missing")
	prefix := fs.String("table-prefix", "wp_", "WordPress table prefix of both databases")
	replace := fs.Bool("replace", false, "empty the target's calendar tables first instead of refusing to copy over rows")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		return fmt.Errorf("copy needs --from and --to")
	}
	src, err := wpdb.Open(*from, *prefix)
	if err != nil {
		return &ConfigError{Var: "--from", Err: err}
	}
	defer src.Close()
	dst, err := wpdb.Open(*to, *prefix)
	if err != nil {
		return &ConfigError{Var: "--to", Err: err}
	}
	defer dst.Close()

	var bar *progressbar.ProgressBar
	progress := func(done, total int64) {
		if *quiet {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions64(total, progressbar.OptionSetDescription("copying rows"),
				progressbar.OptionSetWriter(os.Stderr), progressbar.OptionShowCount(), progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set64(done)
	}
	stats, err := wpdb.CopyCalendar(context.Background(), src, dst, *replace, progress)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return err
	}
	names := make([]string, 0, len(stats))
	for n := range stats {
		names = append(names, n)
	}
	sort.Strings(names)
	var total int64
	for _, n := range names {
		fmt.Printf("%-20s %8d rows\n", *prefix+n, stats[n])
		total += stats[n]
	}
	fmt.Printf("copied %d rows from %s to %s; counts verified\n", total, src.Dialect(), dst.Dialect())
	return nil
}
