package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
)

// TestReadmeConsoleBlocks runs every command of the README's console blocks, in order, as a
// newcomer would type them, and checks each answers as the README shows: `make run` on a fresh
// demo calendar, the curl calls against it, the local Meilisearch.
//
// The README's fixed addresses (127.0.0.1:8080, Meilisearch on 127.0.0.1:7700, its data directory)
// are replaced by free ports and temporary paths; CALENDAR_DB and CALENDAR_LISTEN point make run at
// them. In shown output, "…" alone on a line stands for any number of lines, and inside a line for
// any text.
func TestReadmeConsoleBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make run (a build, the demo and the service): not in -short")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := readmeSteps(string(readme))
	if len(steps) < 5 {
		t.Fatalf("found %d console commands in README.md", len(steps))
	}
	// A port drawn free can be taken before make run or Meilisearch binds it: the whole walk is
	// then tried again on other ports, from a new directory.
	for try := 1; ; try++ {
		err := walkReadme(t, root, steps)
		if err == nil {
			return
		}
		var taken *portTakenError
		if !errors.As(err, &taken) || try == 3 {
			t.Fatal(err)
		}
		t.Logf("a port was taken (%v): again on others", taken.err)
	}
}

// portTakenError is a step that failed because a server's port was taken meanwhile.
type portTakenError struct{ err error }

func (e *portTakenError) Error() string { return e.err.Error() }

// walkReadme runs the README's console steps once, on ports of its own. Failed output checks are
// reported with t.Errorf; an error returned stops the walk.
func walkReadme(t *testing.T, root string, steps []readmeStep) error {
	t.Helper()
	tmp := t.TempDir()
	apiPort, err := testenv.FreePort()
	if err != nil {
		return err
	}
	meiliPort, err := testenv.FreePort()
	if err != nil {
		return err
	}
	subst := strings.NewReplacer("127.0.0.1:8080", fmt.Sprintf("127.0.0.1:%d", apiPort),
		"127.0.0.1:7700", fmt.Sprintf("127.0.0.1:%d", meiliPort),
		"/tmp/calendard-meili", filepath.Join(tmp, "meili"))
	// The environment of a newcomer's shell: none of the test's CALENDAR_* settings, and not make
	// test's own make variables (its jobserver) or GOFLAGS, which make run sets itself.
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CALENDAR_") && !strings.HasPrefix(kv, "MAKEFLAGS=") && !strings.HasPrefix(kv, "MFLAGS=") &&
			!strings.HasPrefix(kv, "MAKELEVEL=") && !strings.HasPrefix(kv, "GOFLAGS=") {
			env = append(env, kv)
		}
	}
	env = append(env, "CALENDAR_DB=sqlite://"+filepath.Join(tmp, "calendard.db"),
		fmt.Sprintf("CALENDAR_LISTEN=127.0.0.1:%d", apiPort))

	var background []*readmeProc
	defer func() {
		for _, p := range background {
			p.stop()
		}
	}()
	// failed is a step's failure: a port taken under a server started so far makes it a retry.
	var service *readmeProc // the running make run
	// (A server started in the background with its output sent to /dev/null, as the README's
	// Meilisearch line, says nothing: that it exited is taken as its port taken, and a failure
	// for another reason then shows on every try.)
	failed := func(st readmeStep, err error) error {
		for _, p := range background {
			if testenv.AddrInUse(p.out.String()) || (p != service && p.exited()) {
				return &portTakenError{err: fmt.Errorf("README line %d: %s: %w", st.line, st.cmd, err)}
			}
		}
		return fmt.Errorf("README line %d: %s: %w", st.line, st.cmd, err)
	}
	for _, st := range steps {
		cmd, want := subst.Replace(st.cmd), subst.Replace(st.output)
		t.Logf("$ %s", cmd)
		switch {
		case strings.Contains(cmd, "make run"):
			if service != nil {
				service.stop() // Ctrl-C in the first terminal
			}
			service = startReadmeProc(t, root, env, cmd)
			background = append(background, service)
			if err := service.waitFor(want, 10*time.Minute); err != nil {
				return failed(st, err)
			}
			if m := appPasswordRe.FindStringSubmatch(service.out.String()); m != nil {
				env = append(env, "APP_PASSWORD="+m[1])
			}
		case strings.HasSuffix(cmd, "&"):
			p := startReadmeProc(t, root, env, strings.TrimSuffix(cmd, "&"))
			background = append(background, p)
		default:
			if err := runReadmeCommand(root, env, cmd, want, time.Minute); err != nil {
				if err := failed(st, err); errors.As(err, new(*portTakenError)) {
					return err
				}
				t.Errorf("README line %d: %s: %v", st.line, st.cmd, err)
			}
		}
	}
	return nil
}

type readmeStep struct {
	line        int
	cmd, output string
}

// readmeSteps lists the commands of ```console blocks with the output shown under each.
func readmeSteps(readme string) []readmeStep {
	var steps []readmeStep
	in := false
	sc := bufio.NewScanner(strings.NewReader(readme))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && line == "```console":
			in = true
		case in && line == "```":
			in = false
		case in && strings.HasPrefix(line, "$ "):
			steps = append(steps, readmeStep{line: n, cmd: strings.TrimPrefix(line, "$ ")})
		case in && len(steps) > 0:
			steps[len(steps)-1].output += line + "\n"
		}
	}
	return steps
}

// shownOutput compiles output as the README shows it into a pattern of the whole output: "…" alone
// is any number of lines, "…" in a line any text. A running service's output may go on after it.
func shownOutput(shown string, more bool) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`\A`)
	for _, line := range strings.Split(strings.TrimSuffix(shown, "\n"), "\n") {
		switch {
		case shown == "":
		case line == "…":
			b.WriteString(`(?:[^\n]*\n)*?`)
		default:
			parts := strings.Split(line, "…")
			for i, p := range parts {
				parts[i] = regexp.QuoteMeta(p)
			}
			b.WriteString(`[ \t]*` + strings.Join(parts, `[^\n]*`) + `[ \t]*\n`)
		}
	}
	if !more {
		b.WriteString(`\z`)
	}
	return regexp.MustCompile(b.String())
}

// runReadmeCommand runs cmd in bash and compares its output with want. A service still warming
// up (the search index's first sync) may answer otherwise at first: the command is repeated until
// it answers as shown, or until within has passed.
func runReadmeCommand(dir string, env []string, cmd, want string, within time.Duration) error {
	re := shownOutput(want, false)
	var got []byte
	for deadline := time.Now().Add(within); ; time.Sleep(250 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), within)
		c := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", cmd)
		c.Dir, c.Env = dir, env
		var err error
		got, err = c.CombinedOutput()
		cancel()
		if len(got) > 0 && got[len(got)-1] != '\n' {
			got = append(got, '\n') // as the terminal shows it: the prompt goes on the next line
		}
		// A pipe into head may end grep early (exit 141): the output decides.
		if re.Match(got) && (err == nil || strings.Contains(cmd, "| head")) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("answered (%v):\n%s\nwant:\n%s", err, got, want)
		}
	}
}

// readmeProc is a command the README leaves running (make run, a server started with &), in its
// own process group so that stopping it stops what it started.
type readmeProc struct {
	cmd  *exec.Cmd
	out  *testenv.SyncBuffer
	done chan struct{}
}

func startReadmeProc(t *testing.T, dir string, env []string, cmd string) *readmeProc {
	t.Helper()
	p := &readmeProc{out: &testenv.SyncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command("bash", "-c", cmd)
	p.cmd.Dir, p.cmd.Env = dir, env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	return p
}

// waitFor waits until the service says it listens (or exits), then checks the output so far
// answers as want shows.
func (p *readmeProc) waitFor(want string, within time.Duration) error {
	re := shownOutput(want, true)
	for deadline := time.Now().Add(within); !strings.Contains(p.out.String(), "calendard listening"); time.Sleep(100 * time.Millisecond) {
		select {
		case <-p.done:
			return fmt.Errorf("exited:\n%s\nwant:\n%s", p.out.String(), want)
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("timed out; output so far:\n" + p.out.String())
		}
	}
	if !re.MatchString(p.out.String()) {
		return fmt.Errorf("printed:\n%s\nwant:\n%s", p.out.String(), want)
	}
	return nil
}

// exited reports whether the process has ended.
func (p *readmeProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop interrupts the process group (Ctrl-C) and kills it if it has not ended after 20 s.
func (p *readmeProc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}
