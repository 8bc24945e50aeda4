package compattests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/internal/testenv"
)

// servedStore is a store the test filled itself (the import's target): served as it is.
type servedStore struct{ name, spec string }

func (s servedStore) Name() string                    { return s.name }
func (s servedStore) Spec() string                    { return s.spec }
func (s servedStore) ResetNeedsStop() bool            { return false }
func (s servedStore) Reset(ctx context.Context) error { return nil }
func (s servedStore) Snapshot(ctx context.Context, prefix string) (Snapshot, error) {
	return nil, fmt.Errorf("no snapshots of %s", s.name)
}
func (s servedStore) Close() {}

// importExempt are the only differences the replay accepts, by case and JSON path, each with the
// reason the import cannot reproduce it. An entry that no longer matches fails the test, so the
// list stays exact.
var importExempt = []struct{ name, path, reason string }{}

func init() {
	const nonEvent = "post 1 is a blog post (post_type post). The import migrates the calendar (events, venues, " +
		"organizers, their terms and images); the plugin's routes never show other post types, and the source here " +
		"(calendard) serves no wp/v2/posts, so the target has no post 1: /events/1 is rest-event-not-found (404) " +
		"where the source, which has a non-event post 1, says rest-invalid-event-id (400)"
	for _, path := range []string{"status", "body.code", "body.message", "body.data.status"} {
		importExempt = append(importExempt, struct{ name, path, reason string }{"events/single/non-event-post", path, nonEvent})
	}
}

// unexempted returns the differences of a case that no exemption covers, and marks the
// exemptions used.
func unexempted(name string, diffs []Diff, used map[int]bool) []Diff {
	var out []Diff
	for _, d := range diffs {
		hit := false
		for i, e := range importExempt {
			if e.name == name && e.path == d.Path {
				hit, used[i] = true, true
			}
		}
		if !hit {
			out = append(out, d)
		}
	}
	return out
}

// runImport runs `calendard import` from the source service into target and returns its output.
func runImport(t *testing.T, bin, from, user, password, target string, extra ...string) string {
	t.Helper()
	args := append([]string{"import", "--from", from, "--to", target, "--checkpoint", "off", "--quiet"}, extra...)
	if user != "" {
		args = append(args, "--user", user)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CALENDAR_IMPORT_APP_PASSWORD="+password, "CALENDAR_ENVIRONMENT=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("calendard import: %v\n%s", err, out)
	}
	return string(out)
}

// importSource serves site-a's fixture, loaded into the database dbname, with calendard (the real
// binary, on MariaDB): the source of the imports.
func importSource(t *testing.T, dbname string) (set *Set, bin string, db *testenv.MariaDB, src *Service) {
	t.Helper()
	return importSourceEnv(t, dbname, nil)
}

// importSourceEnv is importSource with more of the source's environment.
func importSourceEnv(t *testing.T, dbname string, env map[string]string) (set *Set, bin string, db *testenv.MariaDB, src *Service) {
	t.Helper()
	ctx := context.Background()
	set, err := LoadSet(filepath.Join("testdata", "site-a"))
	if err != nil {
		t.Fatal(err)
	}
	db = testenv.SharedMariaDB(t)
	if err := db.CreateDatabase(ctx, dbname); err != nil {
		t.Fatal(err)
	}
	if err := db.LoadSQL(ctx, dbname, set.Fixture); err != nil {
		t.Fatal(err)
	}
	bin = testenv.Calendard(t) // one build for every test of the process
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return set, bin, db, serveSource(t, set, bin, db, dbname, port, env)
}

// serveSource starts calendard on the source database (stopped at the end of the test).
func serveSource(t *testing.T, set *Set, bin string, db *testenv.MariaDB, dbname string, port int, extra map[string]string) *Service {
	t.Helper()
	env := map[string]string{
		"CALENDAR_DB": "mysql://" + db.DSN(dbname), "CALENDAR_ENVIRONMENT": "local",
		"CALENDAR_NOW": set.Cases[0].Now, "CALENDAR_LOG_LEVEL": "info",
	}
	for k, v := range extra {
		env[k] = v
	}
	src, err := StartService(bin, port, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Stop)
	return src
}

// summaryWrites reads the "written" column of an import summary, by resource.
func summaryWrites(out string) map[string]string {
	w := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || f[0] == "resource" {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err == nil {
			w[f[0]] = f[2]
		}
	}
	return w
}

// TestImportReplay serves site-a's fixture with calendard (the real binary, on MariaDB), imports it
// over HTTP with `calendard import --user admin` into an empty SQLite file and into an empty
// MariaDB database, re-runs the import (it must write nothing), serves each imported store and
// replays the set's anonymous read cases against it: every answer must be the recorded one, but
// for the exemptions listed in importExempt.
func TestImportReplay(t *testing.T) {
	testenv.SkipIfShort(t, "mariadbd")
	set, bin, db, src := importSource(t, "import_source")
	targets := []struct{ name, cache, spec string }{
		{"sqlite", "sqlite", "sqlite://" + filepath.Join(t.TempDir(), "imported.db")},
		{"mariadb", "mysql", ""},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			ctx := context.Background()
			spec := tg.spec
			if spec == "" {
				if err := db.CreateDatabase(ctx, "import_target"); err != nil {
					t.Fatal(err)
				}
				spec = "mysql://" + db.DSN("import_target")
			}
			out := runImport(t, bin, src.Base, "admin", set.AppPassword("admin"), spec)
			t.Log(out)
			writes := summaryWrites(out)
			if writes["events"] != "150" || writes["media"] != "5" || writes["venues"] != "13" {
				t.Errorf("first run: want 150 events, 5 media, 13 venues written, got %v", writes)
			}
			// A second run over an unchanged source writes nothing.
			again := runImport(t, bin, src.Base, "admin", set.AppPassword("admin"), spec)
			for res, n := range summaryWrites(again) {
				if n != "0" {
					t.Errorf("second run wrote %s %s:\n%s", n, res, again)
				}
			}
			if len(summaryWrites(again)) != 6 {
				t.Errorf("second run summary has not the 6 resources:\n%s", again)
			}

			store := servedStore{name: "imported-" + tg.name, spec: spec}
			r := &runner{t: t, ctx: ctx, set: set, bin: bin, store: store, cache: newCacheReplay(t, tg.cache, "")}
			defer r.stop()
			results := r.reads(func(string) bool { return true })
			used := map[int]bool{}
			var failed []string
			n := 0
			for _, res := range results {
				if res.c.Request.Auth != nil {
					continue
				}
				n++
				if res.err == nil {
					res.diffs = unexempted(res.c.Name, res.diffs, used)
				}
				if !res.passed() {
					failed = append(failed, describe(res))
				}
			}
			if n < 1000 {
				t.Errorf("only %d anonymous read answers replayed", n)
			}
			if len(failed) > 0 {
				t.Errorf("%d of %d answers differ after the import:\n%s", len(failed), n, strings.Join(failed[:min(len(failed), 40)], "\n"))
			}
			for i, e := range importExempt {
				if !used[i] {
					t.Errorf("exemption %s %s matched no difference: remove it", e.name, e.path)
				}
			}
		})
	}
}
