package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// proc is a server process a test started, its exit watched from the start: a start that polls a
// port must tell its own server from another process answering there, and a server that exited
// (its port taken between FreePort and its bind) from one still starting.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startProc(cmd *exec.Cmd) (*proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop interrupts the process (SIGINT) and kills it if it has not exited after grace.
func (p *proc) stop(grace time.Duration) { p.stopWith(os.Interrupt, grace) }

// stopWith sends sig and kills the process if it has not exited after grace.
func (p *proc) stopWith(sig os.Signal, grace time.Duration) {
	if p == nil || p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.kill()
	}
}

// kill ends the process at once (SIGKILL), as a crash would, and waits for it.
func (p *proc) kill() {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// pause stops the process with SIGSTOP and returns once every one of its threads is stopped: kill
// only queues the signal, and a test that goes on at once could still be answered by a thread that
// has not taken it yet.
func (p *proc) pause(name string) error {
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return err
	}
	tasks := fmt.Sprintf("/proc/%d/task", p.cmd.Process.Pid)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		running, err := runningThreads(tasks)
		if err != nil || running == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %d threads still running 5s after SIGSTOP", name, running)
		}
	}
}

// resume continues a paused process (SIGCONT).
func (p *proc) resume() error { return p.cmd.Process.Signal(syscall.SIGCONT) }

// errAddrInUse marks a start that failed because another process held the port.
var errAddrInUse = errors.New("address already in use")

// startError is the error of a server that exited while starting: errAddrInUse when its log says
// its port was taken (each server words it its own way), so that the caller tries another port.
func startError(name, log string) error {
	if AddrInUse(log) {
		return fmt.Errorf("%s: %w:\n%s", name, errAddrInUse, log)
	}
	return fmt.Errorf("%s exited while starting:\n%s", name, log)
}

// portTries bounds OnFreePort: each try draws a port at random from ~10,000, so a second conflict
// in a row is already rare.
const portTries = 8

// OnFreePort calls start with a free loopback port, and again with another one while start fails
// because the port was taken (AddrInUse) between the check and the server's bind.
func OnFreePort(start func(port int) error) error {
	var err error
	for try := 0; try < portTries; try++ {
		port, perr := FreePort()
		if perr != nil {
			return perr
		}
		if err = start(port); err == nil || !AddrInUse(err.Error()) {
			return err
		}
	}
	return fmt.Errorf("%d ports in a row were taken: %w", portTries, err)
}
