package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
)

func TestHealthURL(t *testing.T) {
	tests := []struct {
		name, listen, want string
	}{
		{"a wildcard IPv4 host is probed on 127.0.0.1", "0.0.0.0:8080", "http://127.0.0.1:8080/healthz"},
		{"an empty host is probed on 127.0.0.1", ":9000", "http://127.0.0.1:9000/healthz"},
		{"a wildcard IPv6 host is probed on ::1", "[::]:8080", "http://[::1]:8080/healthz"},
		{"a named address is probed as given", "127.0.0.2:81", "http://127.0.0.2:81/healthz"},
		{"port 0 cannot be probed", "127.0.0.1:0", ""},
		{"an address without a port cannot be probed", "localhost", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := healthURL(tt.listen)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("healthURL(%q) = %q, want an error", tt.listen, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("healthURL(%q) = %q, %v; want %q", tt.listen, got, err, tt.want)
			}
		})
	}
}

// TestHealthcheckCommand runs `calendard healthcheck` (the image's HEALTHCHECK) against the real
// service: healthy on a working store, failing when the database is unreachable (503) and when
// nothing listens.
func TestHealthcheckCommand(t *testing.T) {
	bin := buildBinary(t)
	closedPort, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		db      string // "" starts no service
		healthy bool
		output  string
	}{
		{"healthy while the embedded store answers", "sqlite://" + filepath.Join(t.TempDir(), "c.db"), true, `{"status":"ok"}`},
		{"unhealthy when the database is unreachable", fmt.Sprintf("mysql://root@tcp(127.0.0.1:%d)/wordpress", closedPort), false, "answered 503"},
		{"unhealthy when nothing listens", "", false, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port, err := testenv.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			// Listening on the wildcard address, as in the image: the probe goes to loopback.
			env := []string{"CALENDAR_LISTEN=0.0.0.0:" + fmt.Sprint(port), "CALENDAR_LOG_LEVEL=info", "CALENDAR_DB_TIMEOUT=1s"}
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "CALENDAR_") {
					env = append(env, kv)
				}
			}
			if tt.db != "" {
				startListening(t, bin, append(env, "CALENDAR_DB="+tt.db))
			}
			probe := exec.Command(bin, "healthcheck")
			probe.Env = env
			out, err := probe.CombinedOutput()
			if tt.healthy != (err == nil) {
				t.Fatalf("healthcheck: err = %v, want healthy = %v\n%s", err, tt.healthy, out)
			}
			if !strings.Contains(string(out), tt.output) {
				t.Fatalf("healthcheck printed %q, want it to contain %q", out, tt.output)
			}
		})
	}
}

// startListening runs `calendard serve` until the test ends and waits until it says it listens
// (not until it is healthy: some cases serve an unreachable database).
func startListening(t *testing.T, bin string, env []string) {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Env = env
	var logs syncedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-done:
			t.Fatalf("serve exited early:\n%s", logs.String())
		default:
		}
		if strings.Contains(logs.String(), "calendard listening") {
			return
		}
	}
	t.Fatalf("serve did not listen:\n%s", logs.String())
}

// syncedBuffer is a bytes.Buffer the process writes while the test reads it.
type syncedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncedBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncedBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
