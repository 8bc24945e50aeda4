package handlers_test

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/cache"
	"github.com/calendard/calendard/internal/testenv"
)

// accessLines returns the access log's lines so far.
func accessLines(l *testenv.SyncBuffer) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		if strings.Contains(line, "msg=request ") {
			out = append(out, line)
		}
	}
	return out
}

func TestAccessLog(t *testing.T) {
	dsn := testenv.FixtureDB(t, fixture, testenv.DBName("alog", t))
	h, logs, _ := cachedHandler(t, dsn, cacheSetup{mode: cache.Memory, accessLog: true})
	eventPath := firstEventPathT(t, h)

	serve := func(method, target string, header map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, nil)
		for k, v := range header {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		before := len(accessLines(logs))
		h.ServeHTTP(w, r)
		if n := len(accessLines(logs)); n != before+1 {
			t.Fatalf("%s %s: %d access log lines, want 1", method, target, n-before)
		}
		return w
	}
	last := func() string { l := accessLines(logs); return l[len(l)-1] }

	t.Run("one line with the route, path, status, size, cache result and the client's request ID", func(t *testing.T) {
		w := serve("GET", eventPath+"?password=Query-Secret-1&_wpnonce=Nonce-Secret-2&_fields=id", map[string]string{
			"X-Request-ID": "client-req-42",
			"Cookie":       "wordpress_logged_in_x=Cookie-Secret-4",
		})
		if got := w.Header().Get("X-Request-ID"); got != "client-req-42" {
			t.Errorf("X-Request-ID %q, want the client's", got)
		}
		line := last()
		for _, want := range []string{"id=client-req-42", "method=GET", "route=events/v1/events/{id}", "path=" + eventPath,
			"status=" + strconv.Itoa(w.Code), "bytes=" + strconv.Itoa(w.Body.Len()), "cache=", "duration=", "query=\"password=xxxxx&_wpnonce=xxxxx&_fields=id\""} {
			if !strings.Contains(line, want) {
				t.Errorf("line lacks %q:\n%s", want, line)
			}
		}
		// Credentials refused before any route is matched: the route is "other".
		serve("GET", eventPath, map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:Header-Secret-3"))})
		if refused := last(); !strings.Contains(refused, "status=401") || !strings.Contains(refused, "route=other") {
			t.Errorf("refused credentials' line:\n%s", refused)
		}
		for _, secret := range []string{"Query-Secret-1", "Nonce-Secret-2", "Header-Secret-3", "Cookie-Secret-4", base64.StdEncoding.EncodeToString([]byte("admin:Header-Secret-3"))} {
			if logs.Count(secret) > 0 {
				t.Errorf("the log holds %q:\n%s", secret, line)
			}
		}
	})

	t.Run("answers from the response cache are logged as hits with their route", func(t *testing.T) {
		const list = "/wp-json/tribe/events/v1/events"
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(last(), "cache=HIT") && time.Now().Before(deadline) {
			serve("GET", list, nil)
		}
		line := last()
		if !strings.Contains(line, "cache=HIT") || !strings.Contains(line, "route=events/v1/events ") || !strings.Contains(line, "status=200") {
			t.Errorf("a cached answer's line:\n%s", line)
		}
	})

	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, bad := range []string{"", "has space", strings.Repeat("x", 129), "ctl\x01char", "nön-ascii"} {
		t.Run("a new ID replaces X-Request-ID "+strings.ToValidUTF8(bad[:min(len(bad), 12)], "?"), func(t *testing.T) {
			w := serve("GET", "/healthz", map[string]string{"X-Request-ID": bad})
			id := w.Header().Get("X-Request-ID")
			if !hexID.MatchString(id) || !strings.Contains(last(), "id="+id) {
				t.Errorf("X-Request-ID %q, log line:\n%s", id, last())
			}
		})
	}

	t.Run("off: no line and no X-Request-ID", func(t *testing.T) {
		off, offLogs, _ := cachedHandler(t, dsn, cacheSetup{mode: cache.Memory})
		w := httptest.NewRecorder()
		off.ServeHTTP(w, httptest.NewRequest("GET", "/wp-json/tribe/events/v1/events", nil))
		if w.Header().Get("X-Request-ID") != "" || len(accessLines(offLogs)) != 0 {
			t.Errorf("access log off: X-Request-ID %q, lines %q", w.Header().Get("X-Request-ID"), accessLines(offLogs))
		}
	})
}

// firstEventPathT is the path of the first listed event.
func firstEventPathT(t *testing.T, h http.Handler) string {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/wp-json/tribe/events/v1/events?per_page=1", nil))
	m := regexp.MustCompile(`"id":(\d+)`).FindStringSubmatch(w.Body.String())
	if m == nil {
		t.Fatalf("no event listed: %s", w.Body.String())
	}
	return "/wp-json/tribe/events/v1/events/" + m[1]
}
