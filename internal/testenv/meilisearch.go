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
	p := filepath.Join(toolsDir(), "meilisearch-"+MeilisearchVersion, "meilisearch")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, nil
	}
	if p, err := exec.LookPath("meilisearch"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("meilisearch %s not found (looked at $MEILISEARCH_BIN, %s, PATH): run .ci/install-meilisearch", MeilisearchVersion, p)
}

// toolsDir is where .ci's install scripts put the servers Debian's stable release lacks:
// $CALENDARD_TOOLS, or calendard under the user's cache directory.
func toolsDir() string {
	if tools := os.Getenv("CALENDARD_TOOLS"); tools != "" {
		return tools
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "calendard")
}

// Meilisearch is a running throwaway server with its own data directory and master key.
type Meilisearch struct {
	URL, Key, Dir string
	p             *proc
	args          []string
}

// StartMeilisearch starts Meilisearch on a free loopback port with a data directory under dir, on
// another port when that one is taken meanwhile.
func StartMeilisearch(dir string) (*Meilisearch, error) {
	bin, err := MeilisearchBinary()
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	m := &Meilisearch{Key: hex.EncodeToString(key), Dir: dir}
	return m, OnFreePort(func(port int) error {
		m.URL = "http://127.0.0.1:" + strconv.Itoa(port)
		m.args = []string{bin, "--http-addr", "127.0.0.1:" + strconv.Itoa(port), "--master-key", m.Key,
			"--db-path", filepath.Join(dir, "data.ms"), "--dump-dir", filepath.Join(dir, "dumps"),
			"--snapshot-dir", filepath.Join(dir, "snapshots"), "--no-analytics", "--env", "development",
			"--max-indexing-threads", "2", "--log-level", "WARN"}
		return m.Start()
	})
}

// Start runs the server (again, after Stop) and waits until it answers. Only this server counts:
// another Meilisearch on the port answers /health too, but refuses this server's master key.
func (m *Meilisearch) Start() error {
	logName := filepath.Join(m.Dir, "meilisearch.log")
	logStart := fileSize(logName)
	log, err := os.OpenFile(logName, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(m.args[0], m.args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	p, err := startProc(cmd)
	log.Close()
	if err != nil {
		return err
	}
	m.p = p
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if p.exited() {
			m.p = nil
			return startError("meilisearch", readFrom(logName, logStart))
		}
		req, _ := http.NewRequest("GET", m.URL+"/keys?limit=1", nil)
		req.Header.Set("Authorization", "Bearer "+m.Key)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
			err = fmt.Errorf("GET /keys: %s", resp.Status)
		}
		if time.Now().After(deadline) {
			m.Kill()
			return fmt.Errorf("meilisearch did not start: %v\n%s", err, readFrom(logName, logStart))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill stops the server at once (SIGKILL), as a crash would.
func (m *Meilisearch) Kill() {
	if m.p != nil {
		m.p.kill()
		m.p = nil
	}
}

// Stop terminates the server politely.
func (m *Meilisearch) Stop() {
	if m.p != nil {
		m.p.stop(10 * time.Second)
		m.p = nil
	}
}
