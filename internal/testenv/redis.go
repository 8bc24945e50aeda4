package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Redis is a throwaway redis-server (Debian's redis-server package) on its own loopback port,
// without persistence, as a child of the test.
type Redis struct {
	Dir  string
	Port int
	bin  string
	cmd  *exec.Cmd
	done chan struct{}
}

// NewRedis starts a server for one test; it is killed when the test ends.
func NewRedis(t testing.TB) *Redis {
	t.Helper()
	r, err := StartRedis(t.TempDir())
	if err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(r.Kill)
	return r
}

// StartRedis starts redis-server with its files under dir on a free port.
func StartRedis(dir string) (*Redis, error) {
	bin, err := lookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server not found; install redis-server (see .ci/run)")
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	r := &Redis{Dir: dir, Port: port, bin: bin}
	return r, r.Restart()
}

// URL is the redis:// URL of database db.
func (r *Redis) URL(db int) string {
	return "redis://127.0.0.1:" + strconv.Itoa(r.Port) + "/" + strconv.Itoa(db)
}

// Addr is host:port.
func (r *Redis) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.Port) }

// Restart starts a stopped (killed) server again on the same port, empty.
func (r *Redis) Restart() error {
	r.cmd = exec.Command(r.bin, "--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", r.Dir, "--logfile", filepath.Join(r.Dir, "redis.log"))
	if err := r.cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); close(done) }(r.cmd)
	r.done = done
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(r.Dir, "redis.log"))
			return fmt.Errorf("redis-server exited:\n%s", log)
		default:
		}
		if c, err := net.DialTimeout("tcp", r.Addr(), 200*time.Millisecond); err == nil {
			_, _ = c.Write([]byte("PING\r\n"))
			buf := make([]byte, 7)
			_ = c.SetReadDeadline(time.Now().Add(time.Second))
			n, _ := c.Read(buf)
			c.Close()
			if string(buf[:n]) == "+PONG\r\n" {
				return nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.Kill()
	return fmt.Errorf("redis-server did not answer on %s", r.Addr())
}

// Kill stops the server at once (SIGKILL), as a crash would; its data is gone.
func (r *Redis) Kill() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	<-r.done
	r.cmd = nil
}
