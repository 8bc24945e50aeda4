package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// writeReport writes the markdown report of the runs so far.
func (cfg *config) writeReport(runs []*run) error {
	var b strings.Builder
	mach := describeMachine()
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("# calendard benchmarks\n\n")
	p("Written by `calendard-bench` (`cmd/calendard-bench`, `make bench`); run the command below to measure again.\n\n")
	p("- Command: `%s`\n", cfg.command)
	p("- Date: %s UTC (took %s)\n", cfg.started.Format("2006-01-02 15:04"), time.Since(cfg.started).Round(time.Second))
	p("- Machine: %d CPUs (%s), %.1f GiB RAM, Linux %s\n", mach.CPUs, mach.CPUModel, float64(mach.MemTotal)/(1<<30), mach.Kernel)
	p("- Software: %s; MariaDB %s (throwaway server, innodb_buffer_pool_size %d MiB); SQLite via modernc.org/sqlite\n",
		mach.Go, cfg.mariadbVer, cfg.mariadbPool>>20)
	if cfg.gitDescribe != "" {
		p("- calendard: `%s`\n", cfg.gitDescribe)
	}
	lineCount := map[int]bool{}
	for _, r := range runs {
		lineCount[len(r.names)] = true
	}
	var counts []string
	for n := range lineCount {
		counts = append(counts, fmt.Sprint(n))
	}
	sort.Strings(counts)
	p("- Mix: `%s`, %s request kinds; every client cycles through them from its own starting line. Per concurrency %s warm-up, then %s measured. No cache anywhere; server, databases and load generator share the machine.\n",
		cfg.mix, strings.Join(counts, " or "), cfg.warmup, cfg.dur)
	p("- Calendars: `bench/gen`, seed %d, dates anchored at %s UTC, generated on top of `%s` (its events, venues, organizers and terms replaced).\n\n",
		cfg.seed, cfg.anchor.Format("2006-01-02"), cfg.fixture)

	p("## Results\n\n")
	p("| store | events | clients | req/s | p50 ms | p95 ms | p99 ms | errors | server CPU ms/req: Go | DB | allocs/req | KiB alloc/req | peak RSS MiB | load generator CPU ms/req | other load (cores) |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range runs {
		for _, w := range r.windows {
			db := fmt.Sprintf("%.2f", w.dbMSPerReq)
			if r.store == "sqlite" {
				db = "in-process"
			}
			allocs, kib := "n/a", "n/a"
			if w.allocsKnown {
				allocs, kib = fmt.Sprintf("%.0f", w.allocsPerReq), fmt.Sprintf("%.0f", w.bytesPerReq/1024)
			}
			p("| %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %d | %.2f | %s | %s | %s | %.0f | %.2f | %.2f |\n", r.store, r.events, w.clients, w.rps,
				msf(w.p50), msf(w.p95), msf(w.p99), w.errors, w.goMSPerReq, db, allocs, kib, float64(w.peakRSS)/(1<<20),
				w.clientMSPerReq, w.otherCores)
		}
	}
	p("\n- errors: failed requests and answers of 400 or more other than 404 (%s).\n", errorSummary(runs))
	p("- server CPU: user+system time of the calendard process (Go) and of the mariadbd process (DB) from `/proc/PID/stat` over the window, divided by the requests answered in it. On SQLite the database runs inside calendard: its time is in the Go column.\n")
	p("- allocations: the Go runtime's `Mallocs` and `TotalAlloc` over the window, read from calendard's opt-in diagnostics listener (`CALENDAR_DEBUG_ADDR`, `/debug/vars`).\n")
	p("- peak RSS: calendard's `VmHWM` (`/proc/PID/status`) at the end of the window, since its start.\n")
	p("- other load: CPU time of every other process on the machine during the window (`/proc/stat` busy time minus calendard, mariadbd and the load generator), in cores; above a few tenths the figures are disturbed by other work.\n\n")

	p("## Calendars and start\n\n")
	p("| store | events | published | upcoming | venues | organizers | wp_posts rows | wp_postmeta rows | term relationships | generated in | cold start to first answer | first index build | lists during it: slowest | calendard peak RSS MiB | restart to first answer | restart peak RSS MiB | mariadbd peak RSS MiB |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range runs {
		g := r.gen
		maria := "—"
		if r.store == "mysql" {
			maria = fmt.Sprintf("%.0f", float64(r.mariadbHWM)/(1<<20))
		}
		p("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %.1f s | %d ms | %.1f s | %d ms (%d) | %.0f | %d ms | %.0f | %s |\n", r.store, r.events, g.Published, g.Upcoming,
			g.Venues, g.Organizers, g.Rows["posts"], g.Rows["postmeta"], g.Rows["term_relationships"], g.Elapsed.Seconds(),
			r.coldStart.Milliseconds(), r.built.Seconds(), r.buildWorst.Milliseconds(), r.buildLists, float64(r.peakRSS)/(1<<20), r.restart.Milliseconds(), float64(r.restartRSS)/(1<<20), maria)
	}
	p("\nRows are the generated ones (the base adds a few dozen). Cold start: from starting `calendard serve` (after `calendard migrate`) to the first 200 answer of `/wp-json/tribe/events/v1/events`, database already warm from the generation. First index build: from the same start to the end of the event index's first build (every pass, the search text included; `/debug/vars` event_index), the windows start after it and after its index file is written; meanwhile the default list is asked over and over (slowest answer, number of answers). Restart: the same after the measured server stopped, on the same database (the event index file its first build wrote, `CALENDAR_INDEX_FILE`, lets it serve at once); its peak RSS after one request of every line.\n\n")

	p("## Latency per request kind, one client (p50 ms, requests)\n\n")
	p("Each line alone (up to %d requests, at most %s per line, after one unmeasured request) plus its requests in the 1-client window.\n\n",
		cfg.lineSamples, cfg.lineBudget)
	p("| request | path |")
	for _, r := range runs {
		p(" %s %s |", r.store, sizeLabel(r.events))
	}
	p("\n|---|---|")
	for range runs {
		p("---:|")
	}
	p("\n")
	var order []string
	templates := map[string]string{}
	for _, r := range runs {
		for i, n := range r.names {
			if _, ok := templates[n]; !ok {
				order = append(order, n)
				templates[n] = r.templates[i]
			}
		}
	}
	for _, name := range order {
		p("| %s | `%s` |", name, templates[name])
		for _, r := range runs {
			p(" %s |", r.lineCell(name))
		}
		p("\n")
	}
	var bad []string
	for _, r := range runs {
		for _, c := range r.checks {
			if c.status != 200 {
				bad = append(bad, fmt.Sprintf("%s %s: `%s` answered %s", r.store, sizeLabel(r.events), c.url, statusText(c.status)))
			}
		}
	}
	p("\nBefore the warm-up every line is requested once; ")
	if len(bad) == 0 {
		p("all answered 200.\n")
	} else {
		p("these did not answer 200:\n\n- %s\n", strings.Join(bad, "\n- "))
	}
	return os.WriteFile(cfg.out, []byte(b.String()), 0o644)
}

// lineCell is a line's one-client median and sample count ("—" when the run lacks the line).
func (r *run) lineCell(name string) string {
	line := -1
	for i, n := range r.names {
		if n == name {
			line = i
		}
	}
	if line < 0 {
		return "—"
	}
	var d []time.Duration
	if line < len(r.lineSamples) {
		d = append(d, r.lineSamples[line]...)
	}
	errors := 0
	for _, w := range r.windows {
		if w.clients == 1 {
			d = append(d, w.lineDurations(line)...)
			errors += w.perLine[line].errors
		}
	}
	if len(d) == 0 {
		return "—"
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	cell := fmt.Sprintf("%.1f (%d)", msf(percentile(d, 0.5)), len(d))
	if errors > 0 {
		cell += fmt.Sprintf(" **%d errors**", errors)
	}
	return cell
}

func sizeLabel(n int) string {
	if n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func errorSummary(runs []*run) string {
	total := 0
	var parts []string
	for _, r := range runs {
		for _, w := range r.windows {
			total += w.errors
			var keys []string
			for k := range w.errorLines {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s %s c=%d: %s ×%d", r.store, sizeLabel(r.events), w.clients, k, w.errorLines[k]))
			}
		}
	}
	if total == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
