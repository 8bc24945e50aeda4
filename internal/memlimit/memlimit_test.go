package memlimit

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestLimitIsTheFactorOfTheLiveHeapAboveTheFloor(t *testing.T) {
	tu := Tuner{Floor: 100 << 20, Factor: 1.5}
	for _, c := range []struct {
		name string
		live uint64
		want int64
	}{
		{"an empty heap gets the floor", 0, 100 << 20},
		{"a heap under the floor's share gets the floor", 60 << 20, 100 << 20},
		{"a large heap gets one and a half times itself", 400 << 20, 600 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := tu.Limit(c.live); got != c.want {
				t.Errorf("Limit(%d) = %d, want %d", c.live, got, c.want)
			}
		})
	}
}

// Run sets the runtime's limit from the live heap, raises it when the heap grows past the floor's
// share, and puts the previous limit back when it ends.
func TestRunFollowsTheLiveHeapAndRestoresTheLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	tu := Tuner{Floor: 64 << 20, Factor: 2, Interval: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tu.Run(ctx); close(done) }()
	waitFor := func(what string, ok func(int64) bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if l := debug.SetMemoryLimit(-1); ok(l) {
				return
			} else if time.Now().After(deadline) {
				t.Fatalf("limit %d: %s", l, what)
			}
		}
	}
	waitFor("want the 64 MiB floor", func(l int64) bool { return l == 64<<20 })
	// 96 MiB kept alive: the next reading after a collection is above the floor's share.
	held := make([]byte, 96<<20)
	for i := range held {
		held[i] = 1
	}
	runtime.GC()
	waitFor("want twice the 96 MiB now live", func(l int64) bool { return l >= 192<<20 })
	runtime.KeepAlive(held)
	cancel()
	<-done
	if l := debug.SetMemoryLimit(-1); l != before {
		t.Errorf("limit %d after Run ended, want the %d it had before", l, before)
	}
}
