// Package testenv starts the real services tests run against, each a throwaway process on its own
// loopback port: MariaDB in a temporary directory, Redis (redis.go) and Meilisearch
// (meilisearch.go). A start whose port was taken meanwhile is tried on another (port.go, proc.go).
// Without -short, tests fail, never skip, when the server binaries are missing: `.ci/run`
// installs them, and a skipped test must not count as passing. Under -short (the fast loop) a test
// that needs one skips and says so (SkipIfShort).
package testenv

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Server is a MySQL-compatible server reached over TCP as an account that may create databases:
// the throwaway MariaDB below, or one the tests did not start themselves (a container).
type Server struct {
	Addr     string // HOST:PORT
	User     string
	Password string
}

// MariaDB is a running throwaway server.
type MariaDB struct {
	Server
	Dir    string
	Port   int
	Socket string
	data   string
	bin    string
	tmp    string
	p      *proc
	client string
	server []string // the server's command line, for Restart
	extra  []string // more server options (replication.go)
	mysql  bool     // Oracle's MySQL, not MariaDB (mysql.go)
}

// lookPath finds a binary on PATH or in the sbin directories Debian uses for servers.
func lookPath(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
		for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/usr/bin"} {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("none of %v found; install mariadb-server (see .ci/run)", names)
}

// StartMariaDB initialises a data directory under dir and starts mariadbd on a free port, on
// another one when the port is taken meanwhile.
func StartMariaDB(dir string) (*MariaDB, error) {
	m, err := installMariaDB(dir)
	if err != nil {
		return nil, err
	}
	if err := OnFreePort(m.startOn); err != nil {
		return nil, err
	}
	return m, nil
}

// installMariaDB initialises a data directory under dir.
func installMariaDB(dir string) (*MariaDB, error) {
	server, err := lookPath("mariadbd", "mysqld")
	if err != nil {
		return nil, err
	}
	installDB, err := lookPath("mariadb-install-db", "mysql_install_db")
	if err != nil {
		return nil, err
	}
	client, err := lookPath("mariadb", "mysql")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	// A private tmpdir: servers installed at the same time in the shared /tmp have collided on their
	// temporary table files ("Could not remove temporary table", then a failed install).
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	install := exec.Command(installDB, "--no-defaults", "--user=root", "--datadir="+data, "--tmpdir="+tmp,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve")
	if out, err := install.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
	}
	return &MariaDB{Dir: dir, Socket: filepath.Join(dir, "mysqld.sock"), client: client, data: data, bin: server, tmp: tmp}, nil
}

// startOn starts the installed server on port.
func (m *MariaDB) startOn(port int) error {
	m.Server = Server{Addr: "127.0.0.1:" + strconv.Itoa(port), User: "root"}
	m.Port = port
	m.server = []string{m.bin, "--no-defaults", "--user=root", "--datadir=" + m.data, "--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1", "--socket=" + m.Socket, "--tmpdir=" + m.tmp, "--pid-file=" + filepath.Join(m.Dir, "mysqld.pid"),
		"--log-error=" + filepath.Join(m.Dir, "err.log"), "--skip-name-resolve", "--innodb-buffer-pool-size=64M",
		"--innodb-flush-log-at-trx-commit=2", "--max-connections=500"}
	if m.mysql {
		m.server = append(m.server, m.mysqlOptions()...)
	}
	m.server = append(m.server, m.extra...)
	return m.start()
}

// Restart starts a stopped server again on the same data directory and port: tests take the
// database away under load and give it back.
func (m *MariaDB) Restart() error {
	return m.start()
}

// start runs the server and waits until it answers. Only this server counts: another one holding
// the port would answer the ping too, so the answer must come from this data directory.
func (m *MariaDB) start() error {
	errLog := filepath.Join(m.Dir, "err.log")
	logStart := fileSize(errLog)
	p, err := startProc(exec.Command(m.server[0], m.server[1:]...))
	if err != nil {
		return err
	}
	m.p = p
	deadline := time.Now().Add(60 * time.Second)
	for {
		if p.exited() {
			m.p = nil
			return startError("mariadbd", readFrom(errLog, logStart))
		}
		err := m.ownsPort()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			m.Stop()
			return fmt.Errorf("mariadbd did not start: %v\n%s", err, readFrom(errLog, logStart))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ownsPort checks that the server answering on m.Addr is the one on m's data directory.
func (m *MariaDB) ownsPort() error {
	db, err := sql.Open("mysql", m.DSN("")+"?timeout=2s")
	if err != nil {
		return err
	}
	defer db.Close()
	var datadir string
	if err := db.QueryRow("SELECT @@datadir").Scan(&datadir); err != nil {
		return err
	}
	if filepath.Clean(datadir) != filepath.Clean(m.data) {
		return fmt.Errorf("another server (%s) answers on %s", datadir, m.Addr)
	}
	return nil
}

func fileSize(name string) int64 {
	st, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return st.Size()
}

// readFrom reads a log from offset on: what the last start wrote.
func readFrom(name string, offset int64) string {
	b, _ := os.ReadFile(name)
	if offset > int64(len(b)) {
		offset = 0
	}
	return string(b[offset:])
}

// DSN returns a go-sql-driver DSN for a database on the server.
func (m *Server) DSN(dbname string) string {
	cfg := mysql.NewConfig()
	cfg.User = m.User
	cfg.Passwd = m.Password
	cfg.Net = "tcp"
	cfg.Addr = m.Addr
	cfg.DBName = dbname
	return cfg.FormatDSN()
}

// Signal sends sig to the server process: tests stall it with SIGSTOP and resume it with SIGCONT.
func (m *MariaDB) Signal(sig os.Signal) error {
	if m.p == nil || m.p.exited() {
		return fmt.Errorf("mariadbd is not running")
	}
	return m.p.cmd.Process.Signal(sig)
}

// Pause stops the server with SIGSTOP and returns once every one of its threads is stopped: kill
// only queues the signal, and a test that goes on at once could still be answered by a thread that
// has not taken it yet.
func (m *MariaDB) Pause() error {
	if m.p == nil || m.p.exited() {
		return fmt.Errorf("mariadbd is not running")
	}
	return m.p.pause("mariadbd")
}

// runningThreads counts the threads under /proc/PID/task not in the stopped state (T or t).
func runningThreads(tasks string) (int, error) {
	entries, err := os.ReadDir(tasks)
	if err != nil {
		return 0, err
	}
	running := 0
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join(tasks, e.Name(), "stat"))
		if err != nil {
			continue // the thread exited
		}
		// The state follows the command name, which is in parentheses and may contain spaces.
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || (stat[i+2] != 'T' && stat[i+2] != 't') {
			running++
		}
	}
	return running, nil
}

// Stop terminates the server (MySQL ignores SIGINT: it is sent SIGTERM).
func (m *MariaDB) Stop() {
	if m.mysql {
		m.p.stopWith(syscall.SIGTERM, 10*time.Second)
		return
	}
	m.p.stop(10 * time.Second)
}

// Exec runs SQL statements against the server.
func (m *Server) Exec(ctx context.Context, stmts ...string) error {
	db, err := sql.Open("mysql", m.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	// One connection, so session settings apply to the statements after them.
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// CreateDatabase creates an empty utf8mb4 database.
func (m *Server) CreateDatabase(ctx context.Context, name string) error {
	return m.Exec(ctx, "DROP DATABASE IF EXISTS `"+name+"`",
		"CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci")
}

// LoadSQL feeds a mysqldump file to the mariadb client (the dump uses client-side syntax).
func (m *MariaDB) LoadSQL(ctx context.Context, dbname, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, m.client, "--no-defaults", "--socket="+m.Socket, "-uroot", dbname)
	cmd.Stdin = f
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("loading %s: %v: %s", file, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// CloneDatabase copies every table (structure and rows) of src into a fresh dst; much faster than
// reloading a dump, which makes per-case resets affordable.
func (m *Server) CloneDatabase(ctx context.Context, src, dst string) error {
	db, err := sql.Open("mysql", m.DSN(src))
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SHOW TABLES")
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, t)
	}
	rows.Close()
	stmts := []string{"DROP DATABASE IF EXISTS `" + dst + "`",
		"CREATE DATABASE `" + dst + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"}
	for _, t := range tables {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE `%s`.`%s` LIKE `%s`.`%s`", dst, t, src, t),
			fmt.Sprintf("INSERT INTO `%s`.`%s` SELECT * FROM `%s`.`%s`", dst, t, src, t))
	}
	return m.Exec(ctx, append([]string{"SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'"}, stmts...)...)
}

var (
	sharedOnce sync.Once
	shared     *MariaDB
	sharedErr  error
)

// SharedMariaDB returns one server for the whole test binary, started on first use; TestMain should
// call StopShared after m.Run.
func SharedMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	SkipIfShort(t, "mariadbd (a throwaway MariaDB server)")
	sharedOnce.Do(func() { shared, sharedErr = startShared("calendard-mariadb-", installMariaDB) })
	if sharedErr != nil {
		t.Fatalf("starting MariaDB: %v", sharedErr)
	}
	return shared
}

// startShared installs and starts a server in a new temporary directory named from prefix, which
// StopShared removes.
func startShared(prefix string, install func(string) (*MariaDB, error)) (*MariaDB, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	m, err := install(dir)
	if err != nil {
		return nil, err
	}
	if err := OnFreePort(m.startOn); err != nil {
		return nil, err
	}
	return m, nil
}

// Main runs a package's tests and then stops the shared server, which outlives any one test.
// Use it as TestMain: func TestMain(m *testing.M) { testenv.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

// Interrupt stops a child process politely (SIGINT, as an operator's Ctrl-C), killing it if it
// has not exited after grace.
func Interrupt(cmd *exec.Cmd, grace time.Duration) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
}

// StopShared stops the shared server and removes its directory.
func StopShared() {
	if shared != nil {
		shared.Stop()
		_ = os.RemoveAll(shared.Dir)
	}
	if sharedMySQL != nil {
		sharedMySQL.Stop()
		_ = os.RemoveAll(sharedMySQL.Dir)
	}
	removeBuilt()
}

var (
	fixtureMu     sync.Mutex
	fixtureLoaded = map[string]bool{}
)

// FixtureDB returns a DSN for a fresh database holding the rows of a mysqldump file. The dump is
// loaded once per test binary into a template database and cloned for each caller.
func FixtureDB(t testing.TB, file, name string) string {
	t.Helper()
	m := SharedMariaDB(t)
	ctx := context.Background()
	tmpl := "tmpl_" + strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	fixtureMu.Lock()
	if !fixtureLoaded[tmpl] {
		if err := m.CreateDatabase(ctx, tmpl); err != nil {
			fixtureMu.Unlock()
			t.Fatal(err)
		}
		if err := m.LoadSQL(ctx, tmpl, file); err != nil {
			fixtureMu.Unlock()
			t.Fatal(err)
		}
		fixtureLoaded[tmpl] = true
	}
	fixtureMu.Unlock()
	if err := m.CloneDatabase(ctx, tmpl, name); err != nil {
		t.Fatal(err)
	}
	return m.DSN(name)
}

// DBName turns a test name into a database name.
func DBName(prefix string, t testing.TB) string {
	n := prefix + "_" + strings.ToLower(strings.NewReplacer("/", "_", " ", "_", "-", "_", "#", "_").Replace(t.Name()))
	if len(n) > 60 {
		n = n[:60]
	}
	return n
}

// ResetDatabase makes dst an exact copy of src in place (rows and AUTO_INCREMENT counters), so
// connections a running service holds on dst stay valid.
func (m *Server) ResetDatabase(ctx context.Context, src, dst string) error {
	db, err := sql.Open("mysql", m.DSN(src))
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT TABLE_NAME, COALESCE(AUTO_INCREMENT, 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", src)
	if err != nil {
		return err
	}
	stmts := []string{"SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'", "SET SESSION foreign_key_checks = 0"}
	for rows.Next() {
		var t string
		var ai int64
		if err := rows.Scan(&t, &ai); err != nil {
			rows.Close()
			return err
		}
		stmts = append(stmts, fmt.Sprintf("DELETE FROM `%s`.`%s`", dst, t),
			fmt.Sprintf("INSERT INTO `%s`.`%s` SELECT * FROM `%s`.`%s`", dst, t, src, t))
		if ai > 0 {
			stmts = append(stmts, fmt.Sprintf("ALTER TABLE `%s`.`%s` AUTO_INCREMENT = %d", dst, t, ai))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	return m.Exec(ctx, stmts...)
}

// NewMariaDB starts a MariaDB server of the test's own, with more server options, stopped when it
// ends (SharedMariaDB is the one to share).
func NewMariaDB(t testing.TB, extra ...string) *MariaDB {
	t.Helper()
	SkipIfShort(t, "mariadbd (a throwaway MariaDB server)")
	return newServer(t, installMariaDB, extra)
}

// newServer installs a server under the test's directory and starts it with extra options.
func newServer(t testing.TB, install func(string) (*MariaDB, error), extra []string) *MariaDB {
	t.Helper()
	m, err := install(t.TempDir())
	if err != nil {
		t.Fatalf("installing the server: %v", err)
	}
	m.extra = extra
	if err := OnFreePort(m.startOn); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	t.Cleanup(m.Stop)
	return m
}
