package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/bench/gen"
	"github.com/calendard/calendard/internal/testenv"
)

// config is the benchmark's flags.
type config struct {
	stores      []string
	sizes       []int
	clients     []int
	warmup, dur time.Duration
	seed        uint64
	anchor      time.Time
	mix         string
	out         string
	bin         string
	build       bool
	fixture     string
	bufferPool  string
	keep        bool
	lineSamples int
	lineBudget  time.Duration
	command     string
	mariadbVer  string
	mariadbPool int64
	gitDescribe string
	started     time.Time
	quiet       bool
	genOnly     bool
}

// run is one store and size.
type run struct {
	store     string
	events    int
	gen       *gen.Result
	coldStart time.Duration
	checks    []check
	windows   []*window
	names     []string
	templates []string
	peakRSS   int64
	// restart is a second start on the same database after the first server stopped (the event
	// index file written after its first build lets it serve at once), and restartRSS its peak
	// RSS after one request of every line.
	restart    time.Duration
	restartRSS int64
	// built is from exec to the end of the first index build (every pass, search text included);
	// during it the default list was asked buildLists times, the slowest answer buildWorst.
	built, buildWorst time.Duration
	buildLists        int
	mariadbHWM        int64
	allocsErr         error
	serverLog         string
	genCPU            time.Duration
	// lineSamples are the latencies of each line requested alone, one client.
	lineSamples [][]time.Duration
	genDBCPU    time.Duration
}

// check is one mix line requested once before the warm-up.
type check struct {
	name, url string
	status    int
	dur       time.Duration
}

func runCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("calendard-bench", flag.ContinueOnError)
	stores := fs.String("stores", "mysql,sqlite", "stores to measure: mysql, sqlite")
	events := fs.String("events", "10000", "calendar sizes, comma-separated (e.g. 10000,100000)")
	clients := fs.String("concurrency", "1,8,32", "concurrent clients, comma-separated")
	warmup := fs.Duration("warmup", 5*time.Second, "warm-up before each measured window")
	dur := fs.Duration("duration", 20*time.Second, "measured window per concurrency")
	seed := fs.Uint64("seed", 1, "generator seed")
	now := fs.String("now", "", "anchor of the generated dates, 'YYYY-MM-DD[ HH:MM:SS]' UTC (default today); the server runs on the real clock")
	mix := fs.String("mix", "bench/mix.txt", "request mix file")
	out := fs.String("out", "BENCHMARKS.md", "markdown report to write")
	bin := fs.String("bin", "bin/calendard", "calendard binary to serve with")
	build := fs.Bool("build", true, "go build ./cmd/calendard into --bin first")
	fixture := fs.String("fixture", "compat-tests/testdata/site-a/fixture.sql", "WordPress database the calendars start from (mysqldump)")
	pool := fs.String("innodb-buffer-pool", "512M", "innodb_buffer_pool_size of the throwaway MariaDB")
	keep := fs.Bool("keep", false, "keep the temporary directory (databases, server logs)")
	lineSamples := fs.Int("line-samples", 5, "requests of each line alone (one client) before the windows, for the per-line latencies")
	lineBudget := fs.Duration("line-budget", 3*time.Second, "at most this long per line for --line-samples (at least one request)")
	quiet := fs.Bool("quiet", false, "less progress output")
	version := fs.String("server-version", "", "what --bin was built from, for the report (default: git describe of this tree)")
	genOnly := fs.Bool("generate-only", false, "only generate the calendars (and time it); no server, no report")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: calendard-bench [run] [flags]
       calendard-bench gen --db DB --events N [flags]

For each size and store: generates the calendar into a throwaway MariaDB (mysql) or a SQLite file
copied from the same base (sqlite), starts "calendard serve" on a free loopback port, measures cold
start to the first answer, requests every mix line once (an answer of 400 or more other than 404
is reported), then per concurrency: warm-up, measured window. Writes the report to --out.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	cfg := &config{warmup: *warmup, dur: *dur, seed: *seed, mix: *mix, out: *out, bin: *bin, build: *build,
		fixture: *fixture, bufferPool: *pool, keep: *keep, lineSamples: *lineSamples, lineBudget: *lineBudget, quiet: *quiet, genOnly: *genOnly, started: time.Now().UTC()}
	cfg.command = commandLine()
	var err error
	if cfg.anchor, err = parseAnchor(*now); err != nil {
		return err
	}
	for _, s := range strings.Split(*stores, ",") {
		s = strings.TrimSpace(s)
		if s != "mysql" && s != "sqlite" {
			return fmt.Errorf("--stores: unknown store %q (mysql, sqlite)", s)
		}
		cfg.stores = append(cfg.stores, s)
	}
	if cfg.sizes, err = intList(*events); err != nil {
		return fmt.Errorf("--events: %w", err)
	}
	if cfg.clients, err = intList(*clients); err != nil {
		return fmt.Errorf("--concurrency: %w", err)
	}
	lines, err := readMix(cfg.mix)
	if err != nil {
		return err
	}
	if cfg.build {
		cfg.logf("building %s", cfg.bin)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", cfg.bin, "./cmd/calendard")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building calendard: %w", err)
		}
	}
	if cfg.bin, err = filepath.Abs(cfg.bin); err != nil {
		return err
	}
	if _, err := os.Stat(cfg.bin); err != nil {
		return fmt.Errorf("%w (build it with make build, or pass --build)", err)
	}
	if *version != "" {
		cfg.gitDescribe = *version
	} else if out, err := exec.Command("git", "describe", "--always", "--dirty").Output(); err == nil {
		cfg.gitDescribe = strings.TrimSpace(string(out))
	}

	tmp, err := os.MkdirTemp("", "calendard-bench-")
	if err != nil {
		return err
	}
	if cfg.keep {
		cfg.logf("keeping %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	cfg.logf("starting MariaDB")
	m, err := testenv.StartMariaDB(filepath.Join(tmp, "mariadb"))
	if err != nil {
		return err
	}
	defer m.Stop()
	mariadbPID, err := readPIDFile(filepath.Join(m.Dir, "mysqld.pid"))
	if err != nil {
		return err
	}
	if err := m.Exec(ctx, "SET GLOBAL innodb_buffer_pool_size = "+sqlSize(cfg.bufferPool)); err != nil {
		return err
	}
	if err := cfg.mariadbInfo(m); err != nil {
		return err
	}
	cfg.logf("MariaDB %s, innodb_buffer_pool_size %d MiB; loading %s", cfg.mariadbVer, cfg.mariadbPool>>20, cfg.fixture)
	if err := m.CreateDatabase(ctx, "bench_base"); err != nil {
		return err
	}
	if err := m.LoadSQL(ctx, "bench_base", cfg.fixture); err != nil {
		return err
	}

	var runs []*run
	for _, size := range cfg.sizes {
		for _, store := range cfg.stores {
			r, err := cfg.runOne(ctx, m, mariadbPID, tmp, store, size, lines)
			if r != nil {
				runs = append(runs, r)
			}
			if err != nil {
				if len(runs) > 0 {
					_ = cfg.writeReport(runs)
				}
				return fmt.Errorf("%s, %d events: %w", store, size, err)
			}
			if cfg.genOnly {
				continue
			}
			if err := cfg.writeReport(runs); err != nil {
				return err
			}
		}
	}
	if cfg.genOnly {
		return nil
	}
	cfg.logf("wrote %s", cfg.out)
	printSummary(runs)
	return nil
}

func commandLine() string {
	parts := []string{filepath.Base(os.Args[0])}
	if strings.HasPrefix(os.Args[0], "bin/") || strings.HasPrefix(os.Args[0], "./") {
		parts[0] = os.Args[0]
	}
	for _, a := range os.Args[1:] {
		if strings.ContainsAny(a, " \t'\"$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

func (cfg *config) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// sqlSize turns "512M" into a number of bytes for SET GLOBAL.
func sqlSize(s string) string {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return "134217728"
	}
	return strconv.FormatInt(n*mult, 10)
}

func readPIDFile(path string) (int, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no MariaDB pid in %s", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (cfg *config) mariadbInfo(m *testenv.MariaDB) error {
	db, err := sql.Open("mysql", m.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	// The buffer pool resizes in the background; wait until it reports the new size.
	want, _ := strconv.ParseInt(sqlSize(cfg.bufferPool), 10, 64)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := db.QueryRow("SELECT VERSION(), @@innodb_buffer_pool_size").Scan(&cfg.mariadbVer, &cfg.mariadbPool); err != nil {
			return err
		}
		if cfg.mariadbPool >= want || time.Now().After(deadline) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runOne generates one calendar, serves it and measures every concurrency.
func (cfg *config) runOne(ctx context.Context, m *testenv.MariaDB, mariadbPID int, tmp, store string, size int, lines []mixLine) (*run, error) {
	r := &run{store: store, events: size}
	spec, cleanup, err := cfg.benchStore(ctx, m, tmp, store, size)
	if err != nil {
		return nil, err
	}
	defer cleanup()

	cfg.logf("%s: generating %d events", store, size)
	db, st, err := gen.Open(spec)
	if err != nil {
		return nil, err
	}
	selfCPU0, _ := cpuTime(os.Getpid())
	dbCPU0, _ := cpuTime(mariadbPID)
	r.gen, err = gen.Generate(ctx, db, st, gen.Options{Events: size, Seed: cfg.seed, Now: cfg.anchor, Replace: true})
	db.Close()
	if err != nil {
		return nil, err
	}
	// The report needs the counts and picks, not every event: at a million events the list would
	// hold hundreds of MB of the load generator's memory through the windows.
	r.gen.EventList = nil
	debug.FreeOSMemory()
	selfCPU1, _ := cpuTime(os.Getpid())
	dbCPU1, _ := cpuTime(mariadbPID)
	r.genCPU, r.genDBCPU = selfCPU1-selfCPU0, dbCPU1-dbCPU0
	cfg.logf("%s: generation used %s CPU here and %s in mariadbd", store, r.genCPU, r.genDBCPU)
	if !cfg.quiet || cfg.genOnly {
		printResult(os.Stderr, store, r.gen)
	}
	if cfg.genOnly {
		return r, nil
	}
	use, urls, err := mixFor(lines, size, r.gen.Picks)
	if err != nil {
		return nil, err
	}
	for _, l := range use {
		r.names = append(r.names, l.Name)
		r.templates = append(r.templates, l.Template)
	}

	// calendard migrate, as make run does before serving (on an installed site it only adds
	// what calendard's schema has and the database lacks).
	// XDG_CACHE_HOME: where a MySQL store's event index file goes (the restart measures it).
	env := append(os.Environ(), "CALENDAR_DB="+spec, "CALENDAR_ENVIRONMENT=local", "XDG_CACHE_HOME="+filepath.Join(tmp, "cache-"+store))
	mig := exec.CommandContext(ctx, cfg.bin, "migrate")
	mig.Env = env
	if out, err := mig.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("calendard migrate: %v\n%s", err, out)
	}

	port, err := testenv.FreePort()
	if err != nil {
		return nil, err
	}
	debugPort, err := testenv.FreePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	debugAddr := fmt.Sprintf("127.0.0.1:%d", debugPort)
	logPath := filepath.Join(tmp, fmt.Sprintf("calendard-%s-%d.log", store, size))
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	srv := exec.Command(cfg.bin, "serve")
	srv.Env = append(env, "CALENDAR_LISTEN="+addr, "CALENDAR_DEBUG_ADDR="+debugAddr)
	srv.Stdout, srv.Stderr = logFile, logFile
	base := "http://" + addr
	began := time.Now()
	if err := srv.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = srv.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
			return
		default:
		}
		stopServer(srv.Process, exited)
	}()
	pid := srv.Process.Pid

	// Cold start: from exec to the first 200 of the default event list.
	probe := newClient(1)
	if err := waitFirstAnswer(ctx, probe, base, exited, began, logPath); err != nil {
		return r, err
	}
	r.coldStart = time.Since(began)
	cfg.logf("%s: cold start to first answer %s", store, r.coldStart.Round(time.Millisecond))
	// The measured windows start once the first build is in and written to the index file: on a
	// large calendar it takes a while, and windows measured meanwhile would measure the build (the
	// restart would find no file).
	if err := waitFirstBuild(ctx, probe, base, debugAddr, began, exited, r); err != nil {
		return r, err
	}
	cfg.logf("%s: first index build finished %s after the start; %d lists meanwhile, the slowest %s", store,
		r.built.Round(time.Millisecond), r.buildLists, r.buildWorst.Round(time.Millisecond))
	probe.CloseIdleConnections()

	// Every line once: its status shows in the report.
	for i, u := range urls {
		t0 := time.Now()
		st, err := do(ctx, probe, base+u)
		if err != nil {
			st = 0
		}
		r.checks = append(r.checks, check{name: r.names[i], url: u, status: st, dur: time.Since(t0)})
		if isError(st) || st == http.StatusNotFound {
			cfg.logf("%s: WARNING %s answered %s: %s", store, r.names[i], statusText(st), u)
		}
	}

	// Each line alone, one client: a few more requests of every line, so slow lines get enough
	// samples for their median even when the c=1 window holds few of them.
	r.lineSamples = cfg.sampleLines(ctx, probe, base, urls)
	probe.CloseIdleConnections()

	snap := snapper(pid, mariadbPID, store, debugAddr)
	for _, c := range cfg.clients {
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-exited:
			out, _ := os.ReadFile(logPath)
			return r, fmt.Errorf("calendard serve exited: %s", tail(out))
		default:
		}
		cfg.logf("%s: %d events, %d clients: %s warm-up, %s measured", store, size, c, cfg.warmup, cfg.dur)
		w := runWindow(ctx, base, r.names, urls, c, cfg.warmup, cfg.dur, snap)
		if w.after.memErr != nil {
			r.allocsErr = w.after.memErr
		}
		r.windows = append(r.windows, w)
		cfg.logf("%s: c=%d %.1f req/s, p50 %s p95 %s p99 %s, %d errors, Go %.2f ms/req, DB %.2f ms/req, other load %.2f cores",
			store, c, w.rps, ms(w.p50), ms(w.p95), ms(w.p99), w.errors, w.goMSPerReq, w.dbMSPerReq, w.otherCores)
	}
	r.peakRSS, _, _ = memStatus(pid)
	if store == "mysql" {
		r.mariadbHWM, _, _ = memStatus(mariadbPID)
	}
	out, _ := os.ReadFile(logPath)
	r.serverLog = tail(out)

	// Restart on the same database: stop the server, start a new one and time its first answer.
	stopServer(srv.Process, exited)
	if err := restartOnce(ctx, cfg, r, env, addr, urls, logPath+".restart"); err != nil {
		cfg.logf("%s: restart: %v", store, err)
	}
	return r, nil
}

// snapper returns what takes one snapshot of the server (pid, its Go memory through debugAddr) and,
// for the mysql store, of mariadbd, with the machine's load.
func snapper(pid, mariadbPID int, store, debugAddr string) func() snapshot {
	debugClient := &http.Client{Timeout: 10 * time.Second}
	return func() snapshot {
		s := snapshot{at: time.Now()}
		var err error
		if s.goCPU, err = cpuTime(pid); err != nil {
			s.cpuErrs = append(s.cpuErrs, err)
		}
		if store == "mysql" {
			if s.dbCPU, err = cpuTime(mariadbPID); err != nil {
				s.cpuErrs = append(s.cpuErrs, err)
			}
			s.dbRSS, _, _ = memStatus(mariadbPID)
		}
		s.mem, s.memErr = readGoMem(debugClient, debugAddr)
		s.hwm, _, _ = memStatus(pid)
		s.self, _ = cpuTime(os.Getpid())
		s.busy, _ = machineBusy()
		s.load = loadAverage()
		return s
	}
}

// benchStore makes the database of one run, a clone of the generated base on MariaDB or a copy of
// it in SQLite, and returns its CALENDAR_DB and what removes it.
func (cfg *config) benchStore(ctx context.Context, m *testenv.MariaDB, tmp, store string, size int) (spec string, cleanup func(), err error) {
	cleanup = func() {}
	switch store {
	case "mysql":
		name := fmt.Sprintf("bench_%d", size)
		if err := m.CloneDatabase(ctx, "bench_base", name); err != nil {
			return "", nil, err
		}
		cleanup = func() { m.Exec(context.Background(), "DROP DATABASE IF EXISTS `"+name+"`") }
		spec = "mysql://" + m.DSN(name)
	case "sqlite":
		path := filepath.Join(tmp, fmt.Sprintf("bench_%d.db", size))
		cfg.logf("sqlite: copying the base with wpdb.CopyCalendar (calendard copy)")
		if err := gen.CopyBase(ctx, "mysql://"+m.DSN("bench_base"), "sqlite://"+path, "wp_"); err != nil {
			return "", nil, err
		}
		cleanup = func() {
			if !cfg.keep {
				for _, suffix := range []string{"", "-wal", "-shm"} {
					os.Remove(path + suffix)
				}
			}
		}
		spec = "sqlite://" + path
	}
	return spec, cleanup, nil
}

// waitFirstAnswer polls the default event list until it answers 200 (a 503 is the service
// starting): an error when the server exits, answers anything else, or takes over startLimit.
func waitFirstAnswer(ctx context.Context, probe *http.Client, base string, exited <-chan struct{}, began time.Time, logPath string) error {
	for {
		if st, err := do(ctx, probe, base+"/wp-json/tribe/events/v1/events"); err == nil && st == http.StatusOK {
			break
		} else if err == nil && st != http.StatusOK && st != http.StatusServiceUnavailable {
			return fmt.Errorf("the first answer of %s was %d (log %s)", base, st, logPath)
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("calendard serve exited: %s", tail(out))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if time.Since(began) > startLimit {
			return fmt.Errorf("calendard did not answer within %s", startLimit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// indexStats is what calendard's diagnostics listener reports of its event index (eventindex.Stats).
type indexStats struct {
	Events         int
	TextReady      bool
	TextIndexBytes int // the search's trigram index, built in the background after a full build
	FileWrites     uint64
}

// waitFirstBuild asks the default list over and over until the server's event index has its
// first full build (its search text and text index included) and has written it to the index file (or 20 minutes have passed), and records
// when the build ended and the slowest list answer meanwhile.
func waitFirstBuild(ctx context.Context, probe *http.Client, base, debugAddr string, began time.Time, exited <-chan struct{}, r *run) error {
	vars := &http.Client{Timeout: 10 * time.Second}
	deadline := began.Add(20 * time.Minute)
	for {
		var v struct {
			EventIndex *indexStats `json:"event_index"`
		}
		resp, err := vars.Get("http://" + debugAddr + "/debug/vars")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
		}
		switch {
		case err != nil:
			return fmt.Errorf("debug listener: %w", err)
		case v.EventIndex == nil:
			return nil // the event index is off: nothing to wait for
		case v.EventIndex.TextReady && (v.EventIndex.TextIndexBytes > 0 || v.EventIndex.Events == 0) && r.built == 0:
			r.built = time.Since(began)
		}
		if r.built > 0 && v.EventIndex.FileWrites > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the event index was not built and written within %s", deadline.Sub(began))
		}
		select {
		case <-exited:
			return errors.New("calendard serve exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if r.built == 0 {
			t0 := time.Now()
			st, err := do(ctx, probe, base+"/wp-json/tribe/events/v1/events")
			if err != nil || st != http.StatusOK {
				return fmt.Errorf("a list during the first build answered %d (%v)", st, err)
			}
			r.buildLists++
			r.buildWorst = max(r.buildWorst, time.Since(t0))
		}
	}
}

// startLimit bounds a start to its first answer: a first start on a million events waits for the
// first pass of the index build (the SQL lists pass their deadline there), over a minute on a busy
// 2-core machine.
const startLimit = 10 * time.Minute

// sampleLines requests every line alone, one client, until it has cfg.lineSamples samples or
// cfg.lineBudget has passed (one sample at least); a line that fails stops early.
func (cfg *config) sampleLines(ctx context.Context, probe *http.Client, base string, urls []string) [][]time.Duration {
	samples := make([][]time.Duration, len(urls))
	for i, u := range urls {
		t0 := time.Now()
		for len(samples[i]) < cfg.lineSamples && (len(samples[i]) == 0 || time.Since(t0) < cfg.lineBudget) {
			s0 := time.Now()
			st, err := do(ctx, probe, base+u)
			if err != nil || isError(st) {
				break
			}
			samples[i] = append(samples[i], time.Since(s0))
		}
	}
	return samples
}

// stopServer interrupts a server and waits for it to exit (killed after 15 s); exited is closed
// when it has.
func stopServer(p *os.Process, exited <-chan struct{}) {
	_ = p.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		_ = p.Kill()
		<-exited
	}
}

// restartOnce starts calendard again on the run's database, times its first answer of the default
// list, requests every line once and reads its peak RSS, then stops it.
func restartOnce(ctx context.Context, cfg *config, r *run, env []string, addr string, urls []string, logPath string) error {
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	srv := exec.Command(cfg.bin, "serve")
	srv.Env = append(env, "CALENDAR_LISTEN="+addr)
	srv.Stdout, srv.Stderr = logFile, logFile
	began := time.Now()
	if err := srv.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = srv.Wait(); close(exited) }()
	defer func() {
		stopServer(srv.Process, exited)
	}()
	base := "http://" + addr
	probe := newClient(1)
	defer probe.CloseIdleConnections()
	for {
		if st, err := do(ctx, probe, base+"/wp-json/tribe/events/v1/events"); err == nil && st == http.StatusOK {
			break
		}
		select {
		case <-exited:
			return errors.New("calendard serve exited")
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if time.Since(began) > startLimit {
			return fmt.Errorf("no answer within %s", startLimit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.restart = time.Since(began)
	for _, u := range urls {
		_, _ = do(ctx, probe, base+u)
	}
	r.restartRSS, _, _ = memStatus(srv.Process.Pid)
	cfg.logf("%s: restart to first answer %s, peak RSS %.0f MiB", r.store, r.restart.Round(time.Millisecond), float64(r.restartRSS)/(1<<20))
	return nil
}

func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + "ms"
}

func printSummary(runs []*run) {
	for _, r := range runs {
		for _, w := range r.windows {
			fmt.Printf("%-6s %7d events  c=%-3d %8.1f req/s  p50 %7.1f  p95 %7.1f  p99 %7.1f ms  errors %d\n", r.store, r.events,
				w.clients, w.rps, msf(w.p50), msf(w.p95), msf(w.p99), w.errors)
		}
	}
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
