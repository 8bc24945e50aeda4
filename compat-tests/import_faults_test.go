package compattests

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// faultProxy is an httptest reverse proxy in front of the real calendard source that injects the
// failures a live WordPress site shows but cannot be made to show on demand: 5xx answers with and
// without Retry-After, a request that outlives the client's timeout, a slow page, malformed records
// (wrong types, a missing ID, a 10 MB string, an invalid date, markup in a plain-text field), a
// redirect loop and a body that never ends. It is a fake only for those faults: everything else is
// the real source's answer.
type faultProxy struct {
	mu   sync.Mutex
	hits map[string]int // per fault, how many requests it saw
	// badEvents are the IDs of the events the first events page corrupts (set by the first page).
	badEvents map[int64]string
}

func (f *faultProxy) hit(fault string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hits[fault]++
	return f.hits[fault]
}

func (f *faultProxy) handler(target *url.URL) http.Handler {
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Host = pr.In.Host
		pr.Out.Header.Del("Accept-Encoding") // the records are rewritten as plain JSON
	}, ModifyResponse: f.corrupt}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, q := r.URL.Path, r.URL.Query()
		list := q.Get("post_parent") == "" && q.Get("page") == "1"
		switch {
		case strings.HasSuffix(p, "/tribe/events/v1/categories") && f.hit("500") == 1:
			http.Error(w, `{"code":"internal","message":"boom"}`, http.StatusInternalServerError)
			return
		case strings.HasSuffix(p, "/tribe/events/v1/tags") && f.hit("503") == 1:
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"code":"busy","message":"try later"}`, http.StatusServiceUnavailable)
			return
		case strings.HasSuffix(p, "/tribe/events/v1/events") && list && q.Get("page") == "1" && f.hit("timeout") == 1:
			// Outlives the client's --timeout; the retry gets the page.
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
			return
		case strings.HasSuffix(p, "/tribe/events/v1/venues") && list:
			f.hit("slow")
			time.Sleep(700 * time.Millisecond)
		case strings.HasSuffix(p, "/tribe/events/v1/events/51"):
			f.hit("loop")
			http.Redirect(w, r, r.URL.String(), http.StatusFound)
			return
		case strings.HasSuffix(p, "/tribe/events/v1/events/79"):
			f.hit("endless")
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":79,"title":"`)
			chunk := bytes.Repeat([]byte("x"), 64<<10)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			return
		}
		rp.ServeHTTP(w, r)
	})
}

// corrupt rewrites chosen records of the first pages of the plugin's lists.
func (f *faultProxy) corrupt(resp *http.Response) error {
	p, q := resp.Request.URL.Path, resp.Request.URL.Query()
	if resp.StatusCode != 200 || q.Get("page") != "1" || q.Get("post_parent") != "" {
		return nil
	}
	var key string
	switch {
	case strings.HasSuffix(p, "/tribe/events/v1/venues"):
		key = "venues"
	case strings.HasSuffix(p, "/tribe/events/v1/organizers"):
		key = "organizers"
	case strings.HasSuffix(p, "/tribe/events/v1/events"):
		key = "events"
	default:
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	resp.Body.Close()
	var page map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&page); err != nil {
		return err
	}
	items, _ := page[key].([]any)
	f.mu.Lock()
	for i, it := range items {
		rec, _ := it.(map[string]any)
		id, _ := rec["id"].(json.Number).Int64()
		switch {
		case key == "venues" && id == 11:
			rec["venue"] = map[string]any{"nested": "object"} // wrong type
		case key == "organizers" && id == 22:
			delete(rec, "id") // missing field
		case key == "organizers" && id == 23:
			rec["email"] = "<script>alert(1)</script>@example.org" // markup in plain text
		case key == "events" && i == 0:
			rec["description"] = strings.Repeat("a", 10<<20) // a 10 MB string
			f.badEvents[id] = "description: 10485760 bytes, more than the limit"
		case key == "events" && i == 1:
			rec["start_date"] = "2026-13-45 99:00:00" // invalid date
			f.badEvents[id] = "start_date: not a date"
		}
	}
	f.mu.Unlock()
	out, err := json.Marshal(page)
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return nil
}

// TestImportFaults imports site-a through the fault-injecting proxy into an empty SQLite file:
// the run completes (exit status 1: some records failed), every bad record is reported with its
// reason, retried faults cost nothing, no failed record is half-written and every other record is
// imported.
func TestImportFaults(t *testing.T) {
	testenv.SkipIfShort(t, "mariadbd")
	set, bin, _, src := importSource(t, "import_faults_source")
	target, err := url.Parse(src.Base)
	if err != nil {
		t.Fatal(err)
	}
	fp := &faultProxy{hits: map[string]int{}, badEvents: map[int64]string{}}
	proxy := httptest.NewServer(fp.handler(target))
	defer proxy.Close()

	dbPath := filepath.Join(t.TempDir(), "faults.db")
	cmd := exec.Command(bin, "import", "--from", proxy.URL, "--to", "sqlite://"+dbPath, "--user", "admin",
		"--checkpoint", "off", "--quiet", "--timeout", "3s")
	cmd.Env = append(os.Environ(), "CALENDAR_IMPORT_APP_PASSWORD="+set.AppPassword("admin"), "CALENDAR_ENVIRONMENT=local")
	began := time.Now()
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	t.Logf("import through the proxy in %s:\n%s", time.Since(began).Round(time.Millisecond), out)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("want exit status 1 (some records failed), got %v", err)
	}

	for fault, min := range map[string]int{"500": 2, "503": 2, "timeout": 2, "slow": 1, "loop": 1, "endless": 1} {
		if fp.hits[fault] < min {
			t.Errorf("fault %s was hit %d times, want at least %d", fault, fp.hits[fault], min)
		}
	}
	if len(fp.badEvents) != 2 {
		t.Fatalf("the first events page was not corrupted: %v", fp.badEvents)
	}
	want := []string{
		`venues id 11: venue: not a string`,
		`organizers record {`, // the organizer without an ID is named by its content
		`id: missing`,
		`organizers id 23: email: holds markup where plain text is expected`,
		`events id 51: `, `redirects`,
		`events id 79: `, `response body larger than the limit`,
	}
	for id, reason := range fp.badEvents {
		want = append(want, fmt.Sprintf("events id %d: %s", id, reason))
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("the summary does not report %q", w)
		}
	}
	for _, retried := range []string{"categories", "tags"} {
		if strings.Contains(out, retried+" page") {
			t.Errorf("a retried %s page is reported failed:\n%s", retried, out)
		}
	}

	// Every event reported failed is absent (nothing half-written); every other event is there.
	failedRe := regexp.MustCompile(`(?m)^\s+events id (\d+): (.*)$`)
	failed := map[string]string{}
	for _, m := range failedRe.FindAllStringSubmatch(out, -1) {
		failed[m[1]] = m[2]
	}
	for id := range fp.badEvents {
		if _, ok := failed[strconv.FormatInt(id, 10)]; !ok {
			t.Errorf("corrupted event %d is not reported", id)
		}
	}
	for id, reason := range failed {
		if !strings.Contains(reason, "not a date") && !strings.Contains(reason, "limit") && !strings.Contains(reason, "redirects") &&
			!strings.Contains(reason, "links to what was not imported") {
			t.Errorf("event %s failed for an unexpected reason: %s", id, reason)
		}
	}
	// OpenSQLite registers the store's collation with the driver.
	store, err := wpdb.OpenSQLite(dbPath, "wp_")
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	db, err := sql.Open("sqlite", wpdb.SQLiteDSN(dbPath))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, rows := testenv.Rows(t, db, `SELECT p.ID FROM wp_posts p WHERE p.post_type = 'tribe_events'`)
	have := map[string]bool{}
	for _, r := range rows {
		have[r[0].String] = true
	}
	for id := range failed {
		if have[id] {
			t.Errorf("event %s was reported failed but has a row", id)
		}
		_, meta := testenv.Rows(t, db, `SELECT meta_id FROM wp_postmeta WHERE meta_key = '_calendard_import_source' AND meta_value LIKE ?`,
			"%#tribe_events/"+id)
		if len(meta) > 0 {
			t.Errorf("event %s was reported failed but has import meta", id)
		}
	}
	if got, wantN := len(have), 150-len(failed); got != wantN {
		t.Errorf("%d events imported, want the %d the source has less the %d failed", got, wantN, len(failed))
	}
	for _, id := range []string{"11", "22", "23"} {
		_, r := testenv.Rows(t, db, `SELECT ID FROM wp_posts WHERE ID = ? AND post_type IN ('tribe_venue','tribe_organizer')`, id)
		if len(r) > 0 {
			t.Errorf("bad linked post %s was written", id)
		}
	}
}
