package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/internal/testenv"
)

// The diagnostics listener serves the runtime counters and profiles, and only on loopback.
// The command line it shows has the configured secrets masked.
func TestDebugListener(t *testing.T) {
	const key = "ZGVidWctd2ViaG9vay1zZWNyZXQtMDEyMzQ1Njc4OQ=="
	args, scrub := os.Args, secrets
	t.Cleanup(func() { os.Args, secrets = args, scrub })
	os.Args = []string{"calendard", "serve", "--db=mysql://u:Db-Secret-77@tcp(127.0.0.1:1)/wp",
		`--webhooks=[{"url":"https://h.test/","secret":"whsec_` + key + `"}]`}
	secrets = &scrubber{}
	secrets.collect(func(string) string { return "" }, os.Args[1:])
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
	for path, want := range map[string]string{"/debug/vars": `"Mallocs"`, "/debug/pprof/": "goroutine", "/debug/pprof/cmdline": "--webhooks"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, no %s in %.200s", path, resp.StatusCode, want, body)
		}
		if strings.Contains(string(body), key) || strings.Contains(string(body), "Db-Secret-77") {
			t.Errorf("%s shows a secret", path)
		}
		if path == "/debug/vars" {
			var vars map[string]json.RawMessage
			if err := json.Unmarshal(body, &vars); err != nil || !strings.Contains(string(vars["cmdline"]), "xxxxx") {
				t.Errorf("/debug/vars: %v, cmdline %s", err, vars["cmdline"])
			}
		}
	}
}
