package testenv

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// MeilisearchVersion is the release the tests run against (.ci/install-meilisearch installs it).
const MeilisearchVersion = "1.21.0"

// MeilisearchBinary finds the Meilisearch binary: $MEILISEARCH_BIN, then the cache directory
// .ci/install-meilisearch writes ($CALENDARD_TOOLS or ~/.cache/calendard), then PATH. Debian
// packages none; the error says how to install it.
func MeilisearchBinary() (string, error) {
	if p := os.Getenv("MEILISEARCH_BIN"); p != "" {
		return p, nil
	}
	tools := os.Getenv("CALENDARD_TOOLS")
	if tools == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache")
		}
		tools = filepath.Join(base, "calendard")
	}
	p := filepath.Join(tools, "meilisearch-"+MeilisearchVersion, "meilisearch")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, nil
	}
	if p, err := exec.LookPath("meilisearch"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("meilisearch %s not found (looked at $MEILISEARCH_BIN, %s, PATH): run .ci/install-meilisearch", MeilisearchVersion, p)
}

// Meilisearch is a running throwaway server with its own data directory and master key.
type Meilisearch struct {
	URL, Key, Dir string
	cmd           *exec.Cmd
	args          []string
}

// StartMeilisearch starts Meilisearch on a free loopback port with a data directory under dir.
func StartMeilisearch(dir string) (*Meilisearch, error) {
	bin, err := MeilisearchBinary()
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	m := &Meilisearch{URL: "http://127.0.0.1:" + strconv.Itoa(port), Key: hex.EncodeToString(key), Dir: dir}
	m.args = []string{bin, "--http-addr", "127.0.0.1:" + strconv.Itoa(port), "--master-key", m.Key,
		"--db-path", filepath.Join(dir, "data.ms"), "--dump-dir", filepath.Join(dir, "dumps"),
		"--snapshot-dir", filepath.Join(dir, "snapshots"), "--no-analytics", "--env", "development",
		"--max-indexing-threads", "2", "--log-level", "WARN"}
	return m, m.Start()
}

// Start runs the server (again, after Stop) and waits until /health answers.
func (m *Meilisearch) Start() error {
	m.cmd = exec.Command(m.args[0], m.args[1:]...)
	log, err := os.OpenFile(filepath.Join(m.Dir, "meilisearch.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	m.cmd.Stdout, m.cmd.Stderr = log, log
	if err := m.cmd.Start(); err != nil {
		log.Close()
		return err
	}
	log.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(m.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			m.Kill()
			out, _ := os.ReadFile(filepath.Join(m.Dir, "meilisearch.log"))
			return fmt.Errorf("meilisearch did not start: %v\n%s", err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill stops the server at once (SIGKILL), as a crash would.
func (m *Meilisearch) Kill() {
	if m.cmd != nil && m.cmd.Process != nil {
		_ = m.cmd.Process.Signal(syscall.SIGKILL)
		_ = m.cmd.Wait()
		m.cmd = nil
	}
}

// Stop terminates the server politely.
func (m *Meilisearch) Stop() {
	if m.cmd != nil {
		Interrupt(m.cmd, 10*time.Second)
		m.cmd = nil
	}
}
