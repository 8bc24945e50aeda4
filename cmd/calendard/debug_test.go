package main

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/internal/testenv"
)

// The diagnostics listener serves the runtime counters and profiles, and only on loopback.
func TestDebugListener(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:6060", ":6060", "192.0.2.1:6060", "example.com:6060", "127.0.0.1"} {
		if err := startDebug(addr); err == nil {
			t.Errorf("startDebug(%q) accepted a non-loopback address", addr)
		}
	}
	var addr string
	if err := testenv.OnFreePort(func(port int) error {
		addr = "127.0.0.1:" + strconv.Itoa(port)
		return startDebug(addr)
	}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/debug/vars": `"Mallocs"`, "/debug/pprof/": "goroutine"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, no %s in %.200s", path, resp.StatusCode, want, body)
		}
	}
}
