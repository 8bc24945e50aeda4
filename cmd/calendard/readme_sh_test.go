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
// command the README names in its prose is run as written there.
func readmeInline(t *testing.T, readme, part string) string {
	t.Helper()
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(readme, -1) {
		if strings.Contains(m[1], part) {
			return m[1]
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

	// --dry-run, with CALENDAR_DB set as make run had it: on the untouched copy it lists the one
	// index; on the served one, which make run migrated, nothing.
	for _, c := range []struct{ dsn, want string }{
		{untouched, "would add indexes: wp_posts.calendard_modified_gmt\n"},
		{served, "migrate would change nothing\n"},
	} {
		out, err := shell(root, newcomerEnv("CALENDAR_DB=mysql://"+c.dsn), time.Minute,
			strings.Replace(dryRun, placeholder, c.dsn, 1))
		if err != nil || !strings.HasSuffix(out, c.want) || strings.Contains(out, "would create") || strings.Contains(out, "options") {
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
