package testenv

import "fmt"

// Pause stalls the server with SIGSTOP, as a hung Meilisearch: connections are still accepted by
// the kernel but nothing answers. It returns once every thread is stopped.
func (m *Meilisearch) Pause() error {
	if m.p == nil || m.p.exited() {
		return fmt.Errorf("meilisearch is not running")
	}
	return m.p.pause("meilisearch")
}

// Resume continues a paused server (SIGCONT).
func (m *Meilisearch) Resume() error {
	if m.p == nil || m.p.exited() {
		return fmt.Errorf("meilisearch is not running")
	}
	return m.p.resume()
}
