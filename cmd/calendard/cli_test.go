package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"github.com/calendard/calendard/internal/testenv"
)

// The built binary's first- and second-day operations: start-up errors, secrets, flags, users,
// version, migrate --dry-run.

// cliBinary is the command, built once per test process.
func cliBinary(t *testing.T) string {
	t.Helper()
	return testenv.Calendard(t)
}

// cleanEnv is the caller's environment without CALENDAR_* variables, plus kv.
func cleanEnv(kv ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "CALENDAR_") {
			env = append(env, e)
		}
	}
	return append(env, kv...)
}

// result is a finished command.
type result struct {
	stdout, stderr string
	err            error
	took           time.Duration
}

func (r result) output() string { return r.stdout + r.stderr }

// runCmd runs the binary to its end, killing it after limit.
func runCmd(t *testing.T, env []string, limit time.Duration, args ...string) result {
	t.Helper()
	bin := cliBinary(t) // built on first use: before the clock starts
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after %v (killed)", limit)
	}
	return result{stdout.String(), stderr.String(), err, time.Since(start)}
}

// mariaUser creates database db and an account that may use it with password pass, returning the
// account's DSN.
func mariaUser(t *testing.T, db, user, pass string) (dsn string, maria *testenv.MariaDB) {
	t.Helper()
	maria = testenv.SharedMariaDB(t)
	ctx := context.Background()
	if err := maria.CreateDatabase(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := maria.Exec(ctx, "CREATE USER IF NOT EXISTS '"+user+"'@'%' IDENTIFIED BY '"+pass+"'",
		"GRANT ALL ON `"+db+"`.* TO '"+user+"'@'%'"); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, maria.Addr, db), maria
}

func TestDatabaseConfigurationErrorsStopTheStart(t *testing.T) {
	_, maria := mariaUser(t, testenv.DBName("cfe", t), "cfe_user", "Right-Pw-2291")
	unknown, err := mysql.ParseDSN(maria.DSN("no_such_db"))
	if err != nil {
		t.Fatal(err)
	}
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	closed, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	refusals := []struct{ name, dsn, want string }{
		{"a wrong password", fmt.Sprintf("cfe_user:Wrong-Pw-8812@tcp(%s)/%s", maria.Addr, testenv.DBName("cfe", t)), "Error 1045"},
		{"an unknown database", unknown.FormatDSN(), "Error 1049"},
	}
	for _, rf := range refusals {
		for _, command := range []string{"serve", "migrate"} {
			t.Run(command+" with "+rf.name, func(t *testing.T) {
				r := runCmd(t, cleanEnv("CALENDAR_DB=mysql://"+rf.dsn, "CALENDAR_LISTEN="+listen), 5*time.Second, command)
				var exit *exec.ExitError
				if !errors.As(r.err, &exit) || exit.ExitCode() == 0 {
					t.Fatalf("%s: %v after %v, want a non-zero exit within 5 s\n%s", command, r.err, r.took, r.output())
				}
				t.Logf("%s exited %d after %v", command, exit.ExitCode(), r.took.Round(time.Millisecond))
				lines := strings.Split(strings.TrimSpace(r.output()), "\n")
				if len(lines) != 1 || !strings.Contains(lines[0], "CALENDAR_DB") || !strings.Contains(lines[0], rf.want) {
					t.Errorf("output %q, want one line naming CALENDAR_DB and %q", r.output(), rf.want)
				}
				if strings.Contains(r.output(), "listening") {
					t.Errorf("it said it was listening:\n%s", r.output())
				}
			})
		}
	}

	t.Run("serve keeps trying a database that refuses connections, answering 503", func(t *testing.T) {
		env := cleanEnv(fmt.Sprintf("CALENDAR_DB=mysql://root@tcp(127.0.0.1:%d)/wordpress", closed), "CALENDAR_DB_TIMEOUT=1s")
		addr, _, logs := serveOnFreePort(t, cliBinary(t), "127.0.0.1", env)
		answers := 0
		for deadline := time.Now().Add(20 * time.Second); answers < 3 && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond) // between probes; serveOnFreePort reports an early exit
			resp, err := http.Get("http://" + addr + "/healthz")
			if err != nil {
				continue
			}
			resp.Body.Close()
			if resp.StatusCode != 503 {
				t.Fatalf("/healthz answered %d, want 503", resp.StatusCode)
			}
			answers++
		}
		if answers < 3 {
			t.Fatalf("/healthz answered %d times\n%s", answers, logs.String())
		}
	})
}

const (
	dbSecret    = "Db-Pw-Distinct-5a1f"
	redisSecret = "Redis-Pw-Distinct-9c3e"
	meiliSecret = "Meili-Pw-Distinct-77d0"
)

// requirePass starts a Redis that wants a password.
func requirePass(t *testing.T, pass string) *testenv.Redis {
	t.Helper()
	r := testenv.NewRedis(t)
	c := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer c.Close()
	if err := c.ConfigSet(context.Background(), "requirepass", pass).Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNoSecretInAnyOutput(t *testing.T) {
	name := testenv.DBName("sec", t)
	dsn, maria := mariaUser(t, name, "sec_user", dbSecret)
	rd := requirePass(t, redisSecret)
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	redisURL := fmt.Sprintf("redis://:%s@%s/0", redisSecret, rd.Addr())
	meiliURL := fmt.Sprintf("http://meili:%s@127.0.0.1:1", meiliSecret)
	env := cleanEnv("CALENDAR_DB=mysql://"+dsn, "CALENDAR_LISTEN="+listen, "CALENDAR_REDIS_URL="+redisURL,
		"CALENDAR_MEILI_URL="+meiliURL, "CALENDAR_LOG_LEVEL=debug")
	lite := "sqlite://" + filepath.Join(t.TempDir(), "copy.db")
	wrongDB := fmt.Sprintf("mysql://sec_user:%s-wrong@tcp(%s)/%s", dbSecret, maria.Addr, name)

	var outputs []string
	check := func(what string, r result, wantOK bool) {
		t.Helper()
		if wantOK && r.err != nil {
			t.Fatalf("%s: %v\n%s", what, r.err, r.output())
		}
		outputs = append(outputs, what+":\n"+r.output())
	}
	check("migrate --dry-run", runCmd(t, env, time.Minute, "migrate", "--dry-run"), true)
	migrated := runCmd(t, env, time.Minute, "migrate")
	check("migrate", migrated, true)
	if !strings.Contains(migrated.stdout, "mysql://sec_user:xxxxx@tcp(") {
		t.Errorf("migrate does not name the database with its password masked:\n%s", migrated.stdout)
	}
	check("demo", runCmd(t, env, 2*time.Minute, "demo", "--events", "5"), true)
	copied := runCmd(t, env, time.Minute, "copy", "--from", "mysql://"+dsn, "--to", lite)
	check("copy", copied, true)
	t.Run("copy prints plain progress lines when stderr is not a terminal", func(t *testing.T) {
		if strings.Contains(copied.stderr, "\r") || !strings.Contains(copied.stderr, "copying rows: ") {
			t.Errorf("copy's stderr %q, want plain lines", copied.stderr)
		}
	})
	check("migrate -h", runCmd(t, env, time.Minute, "migrate", "-h"), true)
	check("serve -h", runCmd(t, env, time.Minute, "serve", "-h"), true)

	// serve: start with Redis and Meilisearch (unreachable: its errors are logged), then stop.
	addr, stopServe, logs := serveOnFreePort(t, cliBinary(t), "127.0.0.1", env)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !strings.Contains(logs.String(), "redis cache available"); {
		time.Sleep(50 * time.Millisecond)
	}
	if resp, err := http.Get("http://" + addr + "/wp-json/tribe/events/v1/events?search=x"); err == nil {
		resp.Body.Close()
	}
	stopServe()
	if !strings.Contains(logs.String(), "redis cache available") {
		t.Errorf("serve never reached its Redis:\n%s", logs.String())
	}
	outputs = append(outputs, "serve:\n"+logs.String())

	// Errors quoting what they were given.
	check("wrong database password", runCmd(t, cleanEnv("CALENDAR_DB="+wrongDB, "CALENDAR_LISTEN="+listen), time.Minute, "serve"), false)
	check("malformed DSN", runCmd(t, cleanEnv("CALENDAR_DB=mysql://sec_user:"+dbSecret+"@tcp(127.0.0.1:1/x"), time.Minute, "migrate"), false)
	check("unknown scheme", runCmd(t, cleanEnv("CALENDAR_DB=mariadb://sec_user:"+dbSecret+"@db/x"), time.Minute, "migrate"), false)
	check("bad Redis URL", runCmd(t, cleanEnv("CALENDAR_REDIS_URL=redis://:"+redisSecret+"@127.0.0.1:1/notadb"), time.Minute, "serve"), false)
	check("bad Meilisearch URL", runCmd(t, cleanEnv("CALENDAR_MEILI_URL=ftp://meili:"+meiliSecret+"@x"), time.Minute, "serve"), false)
	check("copy to an unknown store", runCmd(t, cleanEnv(), time.Minute, "copy", "--from", lite, "--to", "postgres://u:"+dbSecret+"@h/db"), false)

	all := strings.Join(outputs, "\n")
	for _, secret := range []string{dbSecret, redisSecret, meiliSecret} {
		if strings.Contains(all, secret) {
			for _, o := range outputs {
				if strings.Contains(o, secret) {
					t.Errorf("%q appears in the output of %s", secret, o)
				}
			}
		}
	}
}

// TestSubcommandFlags: each command lists its own flags, and -h is no error.
func TestSubcommandFlags(t *testing.T) {
	tests := []struct {
		args     []string
		want     []string
		unwanted []string
	}{
		{[]string{"migrate", "-h"}, []string{"-dry-run", "-db", "-admin-login", "-wait"}, []string{"-cache-ttl", "-redis-url", "-max-body-bytes"}},
		{[]string{"demo", "-h"}, []string{"-events", "-db", "-now"}, []string{"-cache-ttl", "-login-limit", "-max-body-bytes"}},
		{[]string{"copy", "-h"}, []string{"-from", "-to", "-replace"}, []string{"flag: help requested", "-cache-ttl"}},
		{[]string{"user", "-h"}, []string{"app-password create", "-name", "-db"}, []string{"-cache-ttl"}},
		{[]string{"serve", "-h"}, []string{"-cache-ttl", "-max-body-bytes", "-db"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runCmd(t, cleanEnv(), time.Minute, tt.args...)
			if r.err != nil {
				t.Fatalf("exit: %v\n%s", r.err, r.output())
			}
			for _, w := range tt.want {
				if !strings.Contains(r.output(), w) {
					t.Errorf("output lacks %q:\n%s", w, r.output())
				}
			}
			for _, u := range tt.unwanted {
				if strings.Contains(r.output(), u) {
					t.Errorf("output has %q:\n%s", u, r.output())
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	bin := cliBinary(t)
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	modVersion := regexp.MustCompile(`(?m)^\s+mod\s+\S+\s+(\S+)`).FindSubmatch(info)
	if modVersion == nil {
		t.Fatalf("go version -m: %s", info)
	}
	revision := regexp.MustCompile(`(?m)^\s+build\s+vcs\.revision=(\S+)`).FindSubmatch(info)
	var outs []string
	for _, arg := range []string{"version", "--version"} {
		r := runCmd(t, cleanEnv(), time.Minute, arg)
		if r.err != nil {
			t.Fatalf("%s: %v\n%s", arg, r.err, r.output())
		}
		out := strings.TrimSpace(r.stdout)
		outs = append(outs, out)
		for _, want := range []string{"calendard " + string(modVersion[1]), runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH} {
			if !strings.Contains(out, want) {
				t.Errorf("%s printed %q, want it to contain %q", arg, out, want)
			}
		}
		if revision != nil && !strings.Contains(out, string(revision[1])) {
			t.Errorf("%s printed %q, want the revision %s", arg, out, revision[1])
		}
	}
	if outs[0] != outs[1] {
		t.Errorf("version %q and --version %q differ", outs[0], outs[1])
	}
}

var (
	createdPassRe = regexp.MustCompile(`application password "cli test" \(uuid ([0-9a-f-]{36})\) for user "admin":\s+([A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){5})\n`)
	hashRe        = regexp.MustCompile(`\$generic\$|\$P\$|\$wp\$`)
)

// TestUserAppPasswords: a password created by the command is accepted by the service, listed
// without its hash, and refused once revoked; on both stores.
func TestUserAppPasswords(t *testing.T) {
	stores := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "users.db") },
		"mariadb": func(t *testing.T) string {
			maria := testenv.SharedMariaDB(t)
			name := testenv.DBName("usr", t)
			if err := maria.CreateDatabase(context.Background(), name); err != nil {
				t.Fatal(err)
			}
			return "mysql://" + maria.DSN(name)
		},
	}
	for store, open := range stores {
		t.Run(store, func(t *testing.T) {
			port, err := testenv.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			in := &instance{bin: cliBinary(t), addr: fmt.Sprintf("127.0.0.1:%d", port)}
			in.env = cleanEnv("CALENDAR_DB="+open(t), "CALENDAR_LISTEN="+in.addr, "CALENDAR_ENVIRONMENT=local", "CALENDAR_LOG_LEVEL=warn")
			in.command(t, "migrate")
			out := in.command(t, "user", "app-password", "create", "admin", "--name", "cli test")
			m := createdPassRe.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("create printed:\n%s", out)
			}
			uuid, pass := m[1], m[2]
			in.serve(t)
			const me = "/wp-json/wp/v2/users/1?context=edit"
			if status, body := in.call(t, "GET", me, pass, nil); status != 200 || body["username"] != "admin" {
				t.Fatalf("with the new password: %d %v", status, body)
			}
			listed := in.command(t, "user", "app-password", "list", "admin")
			if !strings.Contains(listed, uuid) || !strings.Contains(listed, "cli test") || hashRe.MatchString(listed) {
				t.Errorf("app-password list:\n%s", listed)
			}
			users := in.command(t, "user", "list")
			if !regexp.MustCompile(`(?m)^1\s+admin\s+admin@example\.com\s+admin\s+administrator\s+2\s`).MatchString(users) {
				t.Errorf("user list:\n%s", users)
			}
			r := runCmd(t, in.env, time.Minute, "user", "app-password", "create", "admin", "--name", "cli test")
			if r.err == nil || !strings.Contains(r.stderr, "unique") {
				t.Errorf("a second password of the same name: %v\n%s", r.err, r.output())
			}
			in.command(t, "user", "app-password", "revoke", "admin", uuid)
			if status, body := in.call(t, "GET", me, pass, nil); status != 401 || body["code"] != "incorrect_password" {
				t.Errorf("after revoke: %d %v, want 401 incorrect_password", status, body)
			}
			if listed := in.command(t, "user", "app-password", "list", "admin"); strings.Contains(listed, uuid) {
				t.Errorf("revoked password still listed:\n%s", listed)
			}
			in.command(t, "user", "app-password", "revoke", "admin", "--all")
			if users := in.command(t, "user", "list"); !regexp.MustCompile(`(?m)^1\s+admin\s.*\s0\s`).MatchString(users) {
				t.Errorf("after revoke --all:\n%s", users)
			}
		})
	}
}

// TestMigrateDryRun: on an existing WordPress database and on an empty file, --dry-run says what
// migrate then does, and changes nothing itself.
func TestMigrateDryRun(t *testing.T) {
	t.Run("an existing WordPress database", func(t *testing.T) {
		dsn := testenv.FixtureDB(t, fixture, testenv.DBName("dry", t))
		spec := "mysql://" + dsn
		db, raw := openBoth(t, spec)
		before := dump(t, db, raw)
		indexes := func() int {
			var n int
			if err := raw.QueryRow("SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()").Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		idx := indexes()
		env := cleanEnv("CALENDAR_DB=" + spec)
		r := runCmd(t, env, time.Minute, "migrate", "--dry-run")
		if r.err != nil {
			t.Fatalf("%v\n%s", r.err, r.output())
		}
		if after := dump(t, db, raw); after != before {
			t.Errorf("--dry-run changed rows:\n%s", firstDifference(before, after))
		}
		if n := indexes(); n != idx {
			t.Errorf("--dry-run changed the indexes: %d, had %d", n, idx)
		}
		// calendard's own tables (the sync journal) and the watermark's index, nothing of WordPress's.
		want := "would create tables: wp_calendard_sync, wp_calendard_sync_objects, wp_calendard_sync_state\n" +
			"would add indexes: wp_posts.calendard_modified_gmt\n"
		if !strings.HasSuffix(r.stdout, want) || strings.Contains(r.stdout, "options") {
			t.Errorf("--dry-run printed:\n%s\nwant only %q", r.stdout, want)
		}
		done := runCmd(t, env, time.Minute, "migrate")
		if !strings.Contains(done.stdout, "added indexes: wp_posts.calendard_modified_gmt") || strings.Contains(done.stdout, "added options") {
			t.Errorf("migrate did otherwise:\n%s", done.output())
		}
		if again := runCmd(t, env, time.Minute, "migrate", "--dry-run"); !strings.HasSuffix(again.stdout, "migrate would change nothing\n") {
			t.Errorf("--dry-run after migrate:\n%s", again.output())
		}
	})
	t.Run("an empty embedded database", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "new.db")
		env := cleanEnv("CALENDAR_DB=sqlite://" + path)
		r := runCmd(t, env, time.Minute, "migrate", "--dry-run", "--admin-login", "boss")
		if r.err != nil {
			t.Fatalf("%v\n%s", r.err, r.output())
		}
		for _, want := range []string{"would create tables: wp_options, wp_users,", "wp_postmeta_calendard_listkeys", "siteurl", `would create administrator "boss"`} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("--dry-run lacks %q:\n%s", want, r.stdout)
			}
		}
		if !strings.Contains(r.stdout, "would create the database file "+path) {
			t.Errorf("--dry-run does not say it would create the file:\n%s", r.stdout)
		}
		// A dry run creates nothing, not even the file opening it would.
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("--dry-run left %s behind (%v)", path, err)
		}
	})
}
