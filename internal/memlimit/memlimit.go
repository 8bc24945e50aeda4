// Package memlimit keeps the Go runtime's soft memory limit a little above what is live, so the
// process's peak memory follows the calendar it holds rather than twice that.
//
// Go's collector lets the heap grow to twice its live size (GOGC=100) before collecting. For
// calendard most of the live heap is the event index, which lives as long as the process, so the
// default doubles the footprint of a large calendar (about 210 MiB at 100k events for a 72 MB
// live heap). Lowering GOGC shrinks it but collects more often at every size; a memory limit a
// factor above the live heap collects more often only when the heap nears it. The limit follows
// the live heap both ways (a larger calendar raises it), so it never forces the collector to run
// without end on a heap that has simply grown.
package memlimit

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Tuner sets the soft memory limit to Factor × the live heap, and never below Floor.
type Tuner struct {
	Floor    int64         // bytes
	Factor   float64       // over the live heap
	Interval time.Duration // how often the live heap is read
}

// Default is what calendard runs with unless told otherwise: at 100k events (72 MB live) the
// limit is 108 MiB and the process peaks under 150 MiB.
var Default = Tuner{Floor: 96 << 20, Factor: 1.5, Interval: time.Second}

// Limit is the limit for a live heap of live bytes.
func (t Tuner) Limit(live uint64) int64 {
	return max(t.Floor, int64(float64(live)*t.Factor))
}

// Run sets the limit now and then every Interval until ctx ends; at the end the limit it had
// before is put back.
func (t Tuner) Run(ctx context.Context) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tick := time.NewTicker(t.Interval)
	defer tick.Stop()
	for {
		metrics.Read(sample)
		var live uint64
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live = sample[0].Value.Uint64()
		}
		debug.SetMemoryLimit(t.Limit(live))
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
