package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
			env := []string{"CALENDAR_LOG_LEVEL=info", "CALENDAR_DB_TIMEOUT=1s"}
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "CALENDAR_") {
					env = append(env, kv)
				}
			}
			// Listening on the wildcard address, as in the image: the probe goes to loopback.
			if tt.db != "" {
				addr, _, _ := serveOnFreePort(t, bin, "0.0.0.0", append(env, "CALENDAR_DB="+tt.db))
				env = append(env, "CALENDAR_LISTEN="+addr)
			} else {
				port, err := testenv.FreePort()
				if err != nil {
					t.Fatal(err)
				}
				env = append(env, "CALENDAR_LISTEN=0.0.0.0:"+strconv.Itoa(port))
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

// serveOnFreePort runs `calendard serve` with env on a free port of host until the test ends, and
// returns once this process says it listens (not once it is healthy: some cases serve an
// unreachable database; and another server answering on the port must not count). A port taken
// between the draw and the bind is drawn again. stop sends SIGTERM and reports an unclean exit.
func serveOnFreePort(t *testing.T, bin, host string, env []string) (addr string, stop func(), logs *testenv.SyncBuffer) {
	t.Helper()
	err := testenv.OnFreePort(func(port int) error {
		addr = net.JoinHostPort(host, strconv.Itoa(port))
		logs = &testenv.SyncBuffer{}
		cmd := exec.Command(bin, "serve")
		// The last value of a variable counts: these override env's.
		cmd.Env = append(slices.Clone(env), "CALENDAR_LISTEN="+addr, "CALENDAR_LOG_LEVEL=info")
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			return err
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String(), "calendard listening"); time.Sleep(20 * time.Millisecond) {
			select {
			case err := <-done:
				return fmt.Errorf("serve exited early: %v\n%s", err, logs.String())
			default:
			}
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				<-done
				return fmt.Errorf("serve did not listen:\n%s", logs.String())
			}
		}
		stopped := false
		stop = func() {
			if stopped {
				return
			}
			stopped = true
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve exited with %v\n%s", err, logs.String())
				}
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Errorf("serve did not stop on SIGTERM\n%s", logs.String())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return addr, stop, logs
}
