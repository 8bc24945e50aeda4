package testenv

import (
	"fmt"
	"syscall"
	"time"
)

// Pause stalls the server with SIGSTOP, as a hung Meilisearch: connections are still accepted by
// the kernel but nothing answers. It returns once every thread is stopped (kill only queues the
// signal).
func (m *Meilisearch) Pause() error {
	if m.cmd == nil || m.cmd.Process == nil {
		return fmt.Errorf("meilisearch is not running")
	}
	if err := m.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return err
	}
	tasks := fmt.Sprintf("/proc/%d/task", m.cmd.Process.Pid)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		running, err := runningThreads(tasks)
		if err != nil || running == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("meilisearch: %d threads still running 5s after SIGSTOP", running)
		}
	}
}

// Resume continues a paused server (SIGCONT).
func (m *Meilisearch) Resume() error {
	if m.cmd == nil || m.cmd.Process == nil {
		return fmt.Errorf("meilisearch is not running")
	}
	return m.cmd.Process.Signal(syscall.SIGCONT)
}
