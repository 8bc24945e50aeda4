package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The built binary, run the way "make run" runs it: migrate, demo, serve — on one SQLite file.

// buildBinary is the command built once for the package's tests (cliBinary).
func buildBinary(t *testing.T) string { return cliBinary(t) }

type instance struct {
	bin, addr string
	env       []string
}

// command runs a short-lived command and returns its standard output.
func (in *instance) command(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(in.bin, args...)
	cmd.Env = in.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("calendard %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// serve starts the service and waits until it listens; the returned function stops it with
// SIGTERM and checks it shut down cleanly.
func (in *instance) serve(t *testing.T) (stop func()) {
	t.Helper()
	in.addr, stop, _ = serveOnFreePort(t, in.bin, "127.0.0.1", in.env)
	return stop
}

// call sends a request (as admin when pass is set) and decodes the JSON answer.
func (in *instance) call(t *testing.T, method, path, pass string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		enc, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, "http://"+in.addr+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if pass != "" {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("admin:"+pass)))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

var appPasswordRe = regexp.MustCompile(`application password:\s+([A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){5})`)

func TestDemoThenServeKeepsEveryWriteAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	in := &instance{bin: buildBinary(t)}
	// The service is configured by the test alone: no CALENDAR_* variable of the caller leaks in.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CALENDAR_") {
			in.env = append(in.env, kv)
		}
	}
	in.env = append(in.env, "CALENDAR_DB=sqlite://"+filepath.Join(dir, "calendar.db"),
		"CALENDAR_ENVIRONMENT=local", "CALENDAR_LOG_LEVEL=warn")

	migrated := in.command(t, "migrate")
	m := appPasswordRe.FindStringSubmatch(migrated)
	if m == nil {
		t.Fatalf("migrate printed no application password:\n%s", migrated)
	}
	pass := m[1]
	filled := in.command(t, "demo", "--events", "40", "--seed", "3", "--quiet")
	again := in.command(t, "demo", "--quiet")
	if !strings.Contains(filled, "events        40") || !strings.Contains(again, "already has 40 events: nothing written") {
		t.Fatalf("demo output:\n%s\nsecond demo:\n%s", filled, again)
	}

	const everything = "/wp-json/tribe/events/v1/events?per_page=50&start_date=2000-01-01&end_date=2100-01-01"
	stop := in.serve(t)
	_, list := in.call(t, "GET", everything, "", nil)
	before := list["total"].(float64)
	first := list["events"].([]any)[0].(map[string]any)
	demoID := int(first["id"].(float64))
	status, created := in.call(t, "POST", "/wp-json/tribe/events/v1/events", pass, map[string]any{
		"title": "Written before the restart", "start_date": "2027-02-03 18:00:00", "end_date": "2027-02-03 20:00:00",
		"timezone": "Asia/Tokyo", "categories": []string{"Jazz & Blues"}, "cost": "¥2500",
	})
	if status != 201 {
		t.Fatalf("create: %d %v", status, created)
	}
	newID := int(created["id"].(float64))
	status, updated := in.call(t, "POST", fmt.Sprintf("/wp-json/tribe/events/v1/events/%d", demoID), pass, map[string]any{
		"title": "Renamed before the restart", "start_date": first["start_date"], "end_date": first["end_date"],
	})
	if status != 200 {
		t.Fatalf("update: %d %v", status, updated)
	}
	stop()

	in.serve(t)
	_, list = in.call(t, "GET", everything, "", nil)
	tests := []struct {
		name string
		path string
		key  string
		want any
	}{
		{"the event created over HTTP is served after the restart", fmt.Sprintf("/wp-json/tribe/events/v1/events/%d", newID), "title", "Written before the restart"},
		{"its zone is kept", fmt.Sprintf("/wp-json/tribe/events/v1/events/%d", newID), "timezone", "Asia/Tokyo"},
		{"its cost is kept", fmt.Sprintf("/wp-json/tribe/events/v1/events/%d", newID), "cost", "¥2500"},
		{"the renamed demo event keeps its new title", fmt.Sprintf("/wp-json/tribe/events/v1/events/%d", demoID), "title", "Renamed before the restart"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := in.call(t, "GET", tc.path, "", nil)
			if status != 200 || body[tc.key] != tc.want {
				t.Errorf("%s: %d, %s = %v, want %v", tc.path, status, tc.key, body[tc.key], tc.want)
			}
		})
	}
	t.Run("every demo event is still listed, plus the new one", func(t *testing.T) {
		if got := list["total"].(float64); got != before+1 {
			t.Errorf("total %v, want %v", got, before+1)
		}
	})
}
