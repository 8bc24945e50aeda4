package testenv

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// BuildCalendard compiles cmd/calendard into dir, as make build does (the caller's GOFLAGS apply).
func BuildCalendard(dir string) (string, error) {
	bin := filepath.Join(dir, "calendard")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/calendard/calendard/cmd/calendard").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// removeBuilt removes the binary Calendard built (Main and StopShared call it at the end).
func removeBuilt() {
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
}

// Calendard is the calendard binary, built once per test process: the tests that run it as a
// user would (commands, signals, the real listener) share one build.
func Calendard(t testing.TB) string {
	t.Helper()
	SkipIfShort(t, "calendard built and run")
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "calendard-test-bin-")
		if binErr != nil {
			return
		}
		binPath, binErr = BuildCalendard(binDir)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// RepeatReader yields unit n times without holding more than one copy: a huge request body that
// costs the test no memory.
type RepeatReader struct {
	Unit string
	N    int
	off  int
}

func (r *RepeatReader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) && r.N > 0 {
		c := copy(p[w:], r.Unit[r.off:])
		w += c
		r.off += c
		if r.off == len(r.Unit) {
			r.off = 0
			r.N--
		}
	}
	if w == 0 {
		return 0, io.EOF
	}
	return w, nil
}
