package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
)

// The README's ```sh blocks ("Three ways to run it"): make run on an existing WordPress database,
// and the Docker stack. The tests below run the commands as the README writes them, with only its
// placeholders replaced, and check each does what the README's text around it says.

// readmeShLine is one command line of a ```sh block.
type readmeShLine struct {
	line int
	cmd  string
}

// readmeShLines lists the lines of the README's ```sh blocks (indented ones too), in order.
func readmeShLines(readme string) []readmeShLine {
	var lines []readmeShLine
	in := false
	sc := bufio.NewScanner(strings.NewReader(readme))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && line == "```sh":
			in = true
		case in && line == "```":
			in = false
		case in && line != "" && !strings.HasPrefix(line, "#"):
			lines = append(lines, readmeShLine{line: n, cmd: line})
		}
	}
	return lines
}

// readmeInline returns the first inline code span of the README that contains part, so that a
// command the README names in its prose is run as written there (a span wrapped over lines as one).
func readmeInline(t *testing.T, readme, part string) string {
	t.Helper()
	// The prose only: a fence's backticks would pair with a span's.
	var prose strings.Builder
	fenced := false
	for _, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		} else if !fenced {
			prose.WriteString(line + "\n")
		}
	}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prose.String(), -1) {
		if span := strings.Join(strings.Fields(m[1]), " "); strings.Contains(span, part) {
			return span
		}
	}
	t.Fatalf("README.md names no `…%s…`", part)
	return ""
}

// readmeRoot returns the repository's root and its README.
func readmeRoot(t *testing.T) (root, readme string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return root, string(b)
}

// newcomerEnv is the environment of a newcomer's shell: none of the test's CALENDAR_* settings,
// none of the variables docker/compose*.yaml reads (a value in the shell overrides --env-file's),
// and not make test's own make variables or GOFLAGS, which make sets itself. kv is added.
func newcomerEnv(kv ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		drop := false
		for _, p := range []string{"CALENDAR_", "CALENDARD_", "MARIADB_", "REDIS_IMAGE=", "MEILI_IMAGE=", "COMPOSE_",
			"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "GOFLAGS="} {
			drop = drop || strings.HasPrefix(e, p)
		}
		if !drop {
			env = append(env, e)
		}
	}
	return append(env, kv...)
}

// shell runs cmd in bash in dir, killing it after limit, and returns its output.
func shell(dir string, env []string, limit time.Duration, cmd string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", cmd)
	c.Dir, c.Env = dir, env
	out, err := c.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after %v", limit)
	}
	return string(out), err
}

// startReadmeService starts cmd (a make run) with CALENDAR_LISTEN on a free port, drawn again
// while the port turns out taken, and returns once the service listens. out holds the output of
// every attempt.
func startReadmeService(t *testing.T, dir string, env []string, cmd, want string) (p *readmeProc, addr string, out string) {
	t.Helper()
	err := testenv.OnFreePort(func(port int) error {
		addr = "127.0.0.1:" + strconv.Itoa(port)
		p = startReadmeProc(t, dir, append(env, "CALENDAR_LISTEN="+addr), cmd)
		err := p.waitFor(want, 10*time.Minute)
		out += p.out.String()
		if err != nil {
			p.stop()
		}
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	t.Cleanup(p.stop)
	return p, addr, out
}

// readmeCurlSteps returns the README's console curl commands that read anonymously (no -u) and
// need no search index, each with its shown output, for a service on addr instead of
// 127.0.0.1:8080; keep, when not nil, chooses among them.
func readmeCurlSteps(readme, addr string, keep func(cmd string) bool) []readmeStep {
	var steps []readmeStep
	for _, st := range readmeSteps(readme) {
		if !strings.HasPrefix(st.cmd, "curl ") || strings.Contains(st.cmd, " -u ") || strings.Contains(st.cmd, "search=") ||
			!strings.Contains(st.cmd, "127.0.0.1:8080") || (keep != nil && !keep(st.cmd)) {
			continue
		}
		st.cmd = strings.ReplaceAll(st.cmd, "127.0.0.1:8080", addr)
		steps = append(steps, st)
	}
	return steps
}

// TestReadmeExistingWordPressDatabase runs the README's make run on an existing WordPress database
// (the compatibility suite's site-a dump in a throwaway MariaDB, as USER, PASS and HOST) and its
// migrate --dry-run: make run's migrate adds the one index and nothing else, no demo is written,
// the site's own venues are served, and --dry-run lists that index and nothing more.
func TestReadmeExistingWordPressDatabase(t *testing.T) {
	testenv.SkipIfShort(t, "mariadbd, and make run (a build)")
	root, readme := readmeRoot(t)
	var runCmd string
	for _, l := range readmeShLines(readme) {
		if strings.Contains(l.cmd, "make run") && strings.Contains(l.cmd, "mysql://") {
			runCmd = l.cmd
		}
	}
	const placeholder = "USER:PASS@tcp(HOST:3306)/wordpress"
	if !strings.Contains(runCmd, placeholder) {
		t.Fatalf("README.md has no ```sh line running make run on %s: %q", placeholder, runCmd)
	}
	dryRun := readmeInline(t, readme, "migrate --dry-run")

	// Two copies of the site: make run's, and an untouched one for --dry-run to look at.
	served := testenv.FixtureDB(t, fixture, testenv.DBName("readme", t))
	untouched := testenv.FixtureDB(t, fixture, testenv.DBName("readme_dry", t))
	raw, err := sql.Open("mysql", served)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	counts := func() (events int) {
		if err := raw.QueryRow("SELECT COUNT(*) FROM wp_posts WHERE post_type = 'tribe_events'").Scan(&events); err != nil {
			t.Fatal(err)
		}
		return events
	}
	eventsBefore := counts()
	var venueID int
	var venue string
	if err := raw.QueryRow("SELECT ID, post_title FROM wp_posts WHERE post_type = 'tribe_venue' AND post_status = 'publish' ORDER BY ID LIMIT 1").
		Scan(&venueID, &venue); err != nil {
		t.Fatal(err)
	}

	// The DSN as testenv's MariaDB takes it, in place of USER:PASS@tcp(HOST:3306)/wordpress.
	cmd := strings.Replace(runCmd, placeholder, served, 1)
	t.Logf("README line: %s", runCmd)
	_, addr, out := startReadmeService(t, root, newcomerEnv(), cmd, "")
	const added = "added indexes: wp_posts.calendard_modified_gmt"
	if !strings.Contains(out, added) {
		t.Errorf("make run's migrate did not add the index (%q):\n%s", added, out)
	}
	for _, not := range []string{"added options", "created administrator", "demo calendar written"} {
		if strings.Contains(out, not) {
			t.Errorf("make run on an installed WordPress site printed %q:\n%s", not, out)
		}
	}
	if n := counts(); n != eventsBefore {
		t.Errorf("make run changed the site's events: %d, had %d (no demo is written there)", n, eventsBefore)
	}

	steps := readmeCurlSteps(readme, addr, func(cmd string) bool {
		return strings.Contains(cmd, "/healthz") || strings.Contains(cmd, "/events?per_page=1")
	})
	if len(steps) != 2 {
		t.Fatalf("found %d of the README's /healthz and events?per_page=1 curl steps, want 2", len(steps))
	}
	for _, st := range steps {
		if err := runReadmeCommand(root, newcomerEnv(), st.cmd, st.output, time.Minute); err != nil {
			t.Errorf("README line %d on the WordPress database: %s: %v", st.line, st.cmd, err)
		}
	}
	body := httpGet(t, fmt.Sprintf("http://%s/wp-json/tribe/events/v1/venues/%d", addr, venueID))
	if want := fmt.Sprintf(`"venue":%q`, venue); !strings.Contains(body, want) {
		t.Errorf("venue %d: %s\nwant %s", venueID, body, want)
	}

	// --dry-run on the same database as make run (exported, unless the README's command sets
	// CALENDAR_DB itself): on the untouched copy it lists the journal's tables and the one index;
	// on the served one, which make run migrated, nothing.
	for _, c := range []struct{ dsn, want string }{
		{untouched, "would create tables: wp_calendard_sync, wp_calendard_sync_objects, wp_calendard_sync_state\n" +
			"would add indexes: wp_posts.calendard_modified_gmt\n"},
		{served, "migrate would change nothing\n"},
	} {
		env := newcomerEnv()
		if !strings.Contains(dryRun, "CALENDAR_DB=") {
			env = append(env, "CALENDAR_DB=mysql://"+c.dsn)
		}
		out, err := shell(root, env, time.Minute, strings.Replace(dryRun, placeholder, c.dsn, 1))
		if err != nil || !strings.HasSuffix(out, c.want) || strings.Count(out, "would create") > strings.Count(c.want, "would create") || strings.Contains(out, "options") {
			t.Errorf("%s (%v):\n%s\nwant it to end in %q and list nothing else", dryRun, err, out, c.want)
		}
	}
}

// httpGet returns the body of a GET that must answer 200.
func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := bufio.NewReader(resp.Body).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %d %s", url, resp.StatusCode, b.String())
	}
	return b.String()
}

// TestReadmeDocker runs the README's Docker lines: up -d, logs migrate (the administrator's
// application password), run --rm migrate demo, then the README's anonymous curl steps against the
// published port. There is no registry here: as the README says for that case, the images are
// make docker-images' and --env-file bin/docker-images.env goes after -p calendard. The images are
// reused when bin/docker-images.env names images that exist (CI builds them just before make
// test); otherwise the README's make docker-images builds them.
//
// The project is not the README's "calendard" but one of this test's own, so that a stack the user
// runs under that name is neither reused nor taken down (down -v removes the volumes); CALENDARD_PORT
// puts calendard on a free loopback port (the other services publish none).
func TestReadmeDocker(t *testing.T) {
	testenv.SkipIfShort(t, "a Docker engine, docker compose or docker-compose, and make docker-images' images")
	root, readme := readmeRoot(t)
	var lines []readmeShLine
	for _, l := range readmeShLines(readme) {
		if strings.HasPrefix(l.cmd, "docker compose ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 {
		t.Fatalf("found %d docker compose lines in README.md's sh blocks, want 3 (up -d, logs migrate, run --rm migrate demo)", len(lines))
	}
	// "add `--env-file bin/docker-images.env` after `-p calendard`"
	m := regexp.MustCompile("add\\s+`([^`]+)`\\s+after\\s+`([^`]+)`").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README.md does not say what to add to the compose commands without a registry (add `…` after `…`)")
	}
	envFile, after := m[1], m[2]
	makeImages := readmeInline(t, readme, "make docker-images")

	compose := dockerCompose(t, root)
	env := newcomerEnv()
	if !imagesPresent(t, root) {
		t.Logf("$ %s", makeImages)
		if out, err := shell(root, env, 20*time.Minute, makeImages); err != nil {
			t.Fatalf("%s: %v\n%s", makeImages, err, out)
		}
	}
	// calendard itself is this tree's, not the one make docker-images built from an older tree (the
	// shell's value overrides --env-file's).
	env = append(env, "CALENDARD_IMAGE="+treeImage(t, root))

	project := fmt.Sprintf("calendardreadme%d", os.Getpid())
	cmds := make([]string, len(lines))
	for i, l := range lines {
		if !strings.Contains(l.cmd, " "+after+" ") || !strings.Contains(l.cmd, " -p calendard ") {
			t.Fatalf("README line %d: %s: no %q or -p calendard in it", l.line, l.cmd, after)
		}
		c := strings.Replace(l.cmd, " "+after+" ", " "+after+" "+envFile+" ", 1)
		c = strings.Replace(c, " -p calendard ", " -p "+project+" ", 1)
		cmds[i] = compose + strings.TrimPrefix(c, "docker compose")
	}
	up := strings.Index(cmds[0], " up ")
	if up < 0 {
		t.Fatalf("README line %d: %s: the first compose line is not up", lines[0].line, lines[0].cmd)
	}
	// Everything the project made goes, volumes included, however the test ends; the services'
	// logs first when it failed.
	prefix := cmds[0][:up]
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := shell(root, env, time.Minute, prefix+" ps; "+prefix+" logs --no-color --tail 30")
			t.Logf("the stack when the test failed:\n%s", out)
		}
		start := time.Now()
		if out, err := shell(root, env, 3*time.Minute, prefix+" down -v --remove-orphans"); err != nil {
			t.Errorf("down -v: %v\n%s", err, out)
		}
		t.Logf("down -v: %.1f s", time.Since(start).Seconds())
	})

	var addr, password string
	for i, l := range lines {
		cmd := cmds[i]
		start := time.Now()
		t.Logf("README line %d: $ %s", l.line, cmd)
		switch {
		case strings.Contains(cmd, " up "):
			err := testenv.OnFreePort(func(port int) error {
				addr = "127.0.0.1:" + strconv.Itoa(port)
				out, err := shell(root, append(env, "CALENDARD_PORT="+addr), 10*time.Minute, cmd)
				if err != nil && strings.Contains(out, "port is already allocated") {
					out += "\n(address already in use)" // taken by another container: another port
				}
				if err != nil {
					return fmt.Errorf("%v\n%s", err, out)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := pollHealthz(addr, 3*time.Minute); err != nil {
				t.Fatalf("after up -d, calendard on %s: %v", addr, err)
			}
		case strings.Contains(cmd, " logs "):
			out, err := shell(root, env, time.Minute, cmd)
			plain := regexp.MustCompile(`(?m)^[^|\n]*\| ?`).ReplaceAllString(regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, ""), "")
			if pw := appPasswordRe.FindStringSubmatch(plain); err != nil || pw == nil {
				t.Errorf("%s printed no application password (%v):\n%s", cmd, err, out)
			} else {
				password = pw[1]
			}
		case strings.Contains(cmd, " run "):
			out, err := shell(root, env, 5*time.Minute, cmd)
			if err != nil || !regexp.MustCompile(`demo calendar written in .* \(seed 1,`).MatchString(out) {
				t.Fatalf("%s did not write the demo (%v):\n%s", cmd, err, out)
			}
		default:
			t.Fatalf("README line %d: %s: a compose command this test does not know", l.line, l.cmd)
		}
		t.Logf("README line %d: done in %.1f s", l.line, time.Since(start).Seconds())
	}
	if addr == "" {
		t.Fatal("no up -d among the README's compose lines")
	}
	steps := readmeCurlSteps(readme, addr, nil)
	if len(steps) < 3 {
		t.Fatalf("found %d of the README's anonymous curl steps", len(steps))
	}
	for _, st := range steps {
		t.Logf("$ %s", st.cmd)
		if err := runReadmeCommand(root, env, st.cmd, st.output, time.Minute); err != nil {
			t.Errorf("README line %d against the compose stack: %s: %v", st.line, st.cmd, err)
		}
	}
	if id, err := shell(root, env, time.Minute, prefix+" ps -q calendard"); err != nil || strings.TrimSpace(id) == "" {
		t.Errorf("%s ps -q calendard: %v %q", prefix, err, id)
	} else {
		checkNoIndexFileWarning(t, root, env, strings.TrimSpace(id))
	}
	// "The stack runs in WordPress' production environment, where application passwords work only
	// over TLS": over plain HTTP the administrator's password is ignored, and drafts stay hidden.
	if password != "" {
		req, err := http.NewRequest("GET", "http://"+addr+"/wp-json/tribe/events/v1/events?status=draft&per_page=1", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("admin", password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || !strings.Contains(b.String(), `"code"`) {
			t.Errorf("drafts with the application password over plain HTTP in production: %d %s", resp.StatusCode, b.String())
		}
	}
}

// imagesPresent reports whether bin/docker-images.env exists and every image it names does.
func imagesPresent(t *testing.T, root string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "bin", "docker-images.env"))
	if err != nil {
		return false
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if _, image, ok := strings.Cut(line, "_IMAGE="); ok && !strings.HasPrefix(line, "#") {
			if out, err := shell(root, nil, time.Minute, "docker image inspect -f . "+image); err != nil {
				t.Logf("image %s: %v %s", image, err, out)
				return false
			}
			n++
		}
	}
	return n > 0
}

// pollHealthz waits until GET /healthz on addr answers 200.
func pollHealthz(addr string, within time.Duration) error {
	var last string
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			last = err.Error()
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		last = resp.Status
	}
	return fmt.Errorf("no 200 from /healthz within %v: %s", within, last)
}

// dockerCompose checks that a Docker engine answers and returns the compose command that runs:
// "docker compose (v2) or docker-compose (v1: replace the first two words)", as the README says.
func dockerCompose(t *testing.T, root string) string {
	t.Helper()
	if out, err := shell(root, nil, time.Minute, "docker info"); err != nil {
		t.Fatalf("no Docker engine answers (start dockerd as .ci/run does): %v\n%s", err, out)
	}
	if _, err := shell(root, nil, time.Minute, "docker compose version"); err == nil {
		return "docker compose"
	}
	if out, err := shell(root, nil, time.Minute, "docker-compose version"); err != nil {
		t.Fatalf("neither docker compose nor docker-compose runs: %v\n%s", err, out)
	}
	return "docker-compose"
}
