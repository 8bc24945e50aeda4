package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

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
		return &ConfigError{Var: "--from", Err: errors.New(scrubValue(err.Error(), *from))}
	}
	defer src.Close()
	dst, err := wpdb.Open(*to, *prefix)
	if err != nil {
		return &ConfigError{Var: "--to", Err: errors.New(scrubValue(err.Error(), *to))}
	}
	defer dst.Close()

	progress, finish := copyProgress(os.Stderr, *quiet, term.IsTerminal(int(os.Stderr.Fd())))
	stats, err := wpdb.CopyCalendar(context.Background(), src, dst, *replace, progress)
	finish()
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

// copyProgress reports a copy's progress on w: a bar on a terminal; otherwise (a log file, a pipe)
// a plain line at each tenth of the rows, since a bar's redraws would fill the file.
func copyProgress(w io.Writer, quiet, tty bool) (progress func(done, total int64), finish func()) {
	if quiet {
		return func(int64, int64) {}, func() {}
	}
	if !tty {
		next := int64(0)
		return func(done, total int64) {
			if done < next && done != total {
				return
			}
			fmt.Fprintf(w, "copying rows: %d/%d\n", done, total)
			next = done + max(total/10, 1)
		}, func() {}
	}
	var bar *progressbar.ProgressBar
	return func(done, total int64) {
			if bar == nil {
				bar = progressbar.NewOptions64(total, progressbar.OptionSetDescription("copying rows"),
					progressbar.OptionSetWriter(w), progressbar.OptionShowCount(), progressbar.OptionSetWidth(30),
					progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish())
			}
			_ = bar.Set64(done)
		}, func() {
			if bar != nil {
				_ = bar.Finish()
			}
		}
}
