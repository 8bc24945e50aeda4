package testenv

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Redis is a throwaway redis-server (Debian's redis-server package) on its own loopback port,
// without persistence, as a child of the test.
type Redis struct {
	Dir  string
	Port int
	bin  string
	p    *proc
}

// NewRedis starts a server for one test; it is killed when the test ends.
func NewRedis(t testing.TB) *Redis {
	t.Helper()
	SkipIfShort(t, "redis-server")
	r, err := StartRedis(t.TempDir())
	if err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(r.Kill)
	return r
}

// StartRedis starts redis-server with its files under dir on a free port, on another one when the
// port is taken meanwhile.
func StartRedis(dir string) (*Redis, error) {
	bin, err := lookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server not found; install redis-server (see .ci/run)")
	}
	r := &Redis{Dir: dir, bin: bin}
	return r, OnFreePort(func(port int) error {
		r.Port = port
		return r.Restart()
	})
}

// URL is the redis:// URL of database db.
func (r *Redis) URL(db int) string {
	return "redis://127.0.0.1:" + strconv.Itoa(r.Port) + "/" + strconv.Itoa(db)
}

// Addr is host:port.
func (r *Redis) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.Port) }

// Restart starts a stopped (killed) server again on the same port, empty. It returns once this
// process answers there: another Redis answering on the port does not count.
func (r *Redis) Restart() error {
	logFile := filepath.Join(r.Dir, "redis.log")
	_ = os.Remove(logFile)
	p, err := startProc(exec.Command(r.bin, "--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", r.Dir, "--logfile", logFile))
	if err != nil {
		return err
	}
	r.p = p
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if p.exited() {
			log, _ := os.ReadFile(logFile)
			r.p = nil
			return startError("redis-server", string(log))
		}
		if pid, err := redisPID(r.Addr()); err == nil && pid == p.cmd.Process.Pid {
			return nil
		}
	}
	r.Kill()
	return fmt.Errorf("redis-server did not answer on %s", r.Addr())
}

// redisPID asks the server on addr for its process ID (INFO server).
func redisPID(addr string) (int, error) {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("INFO server\r\n")); err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "process_id:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no process_id from %s: %v", addr, sc.Err())
}

// Kill stops the server at once (SIGKILL), as a crash would; its data is gone.
func (r *Redis) Kill() {
	if r.p == nil {
		return
	}
	r.p.kill()
	r.p = nil
}

// Pause stalls the server with SIGSTOP (its port stays open, calls hang) and returns once every
// thread is stopped; Resume lets it go on.
func (r *Redis) Pause() error {
	if r.p == nil || r.p.exited() {
		return fmt.Errorf("redis-server is not running")
	}
	return r.p.pause("redis-server")
}

func (r *Redis) Resume() error {
	if r.p == nil || r.p.exited() {
		return fmt.Errorf("redis-server is not running")
	}
	return r.p.resume()
}
