package wpdb

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchReconcile runs one periodic reconcile, as Watch does.
func benchReconcile(s *Store) error {
	_, err := s.feed.Reconcile(context.Background())
	return err
}

// BenchmarkReconcileStore is a reconcile in a started store over an existing calendar
// (CALENDAR_BENCH_DB; an event index, the journal on; no timed poll or reconcile): from its start
// until everything kept reflects it (Quiescent: a rebuild it asked for is done). It reports the
// process's CPU, the peak RSS during the reconcile (VmHWM, reset before each) and the RSS before
// it, and with CALENDAR_BENCH_SERVER_PID the database server's CPU. CALENDAR_BENCH_IDLE=1: nothing changed; else one bare meta UPDATE before each.
func BenchmarkReconcileStore(b *testing.B) {
	db := benchCalendar(b)
	s := NewStore(db, SiteOverrides{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.Start(ctx, StartOptions{WatchInterval: time.Hour})
	if !s.Index().WaitReady(ctx) {
		b.Fatal("no index")
	}
	<-s.SyncOpened()
	for !s.Quiescent() || !s.Index().TextReady() {
		time.Sleep(50 * time.Millisecond)
	}
	// The first reconcile after a new baseline reloads everything: not what is measured.
	if err := benchReconcile(s); err != nil {
		b.Fatal(err)
	}
	for !s.Quiescent() {
		time.Sleep(10 * time.Millisecond)
	}
	var id int64
	if err := db.sql.QueryRowContext(ctx, "SELECT ID FROM "+db.t("posts")+" WHERE post_type = 'tribe_events' AND post_status = 'publish' ORDER BY ID LIMIT 1").Scan(&id); err != nil {
		b.Fatal(err)
	}
	idle := os.Getenv("CALENDAR_BENCH_IDLE") == "1"
	var cpu, server, wall time.Duration
	var peak, base int64
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		if !idle {
			if _, err := db.sql.ExecContext(ctx, "UPDATE "+db.t("postmeta")+" SET meta_value = ? WHERE post_id = ? AND meta_key = '_EventCost'", strconv.Itoa(1000+i), id); err != nil {
				b.Fatal(err)
			}
		}
		base = max(base, procStatusKiB("VmRSS"))
		_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		c0, s0, t0 := cpuTime(), serverCPU(), time.Now()
		if err := benchReconcile(s); err != nil {
			b.Fatal(err)
		}
		for !s.Quiescent() {
			time.Sleep(5 * time.Millisecond)
		}
		wall += time.Since(t0)
		cpu += cpuTime() - c0
		server += serverCPU() - s0
		peak = max(peak, procStatusKiB("VmHWM"))
	}
	b.ReportMetric(float64(wall.Milliseconds())/float64(i), "wall-ms/op")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(i), "cpu-ms/op")
	b.ReportMetric(float64(server.Milliseconds())/float64(i), "server-cpu-ms/op")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MiB")
	b.ReportMetric(float64(base)/1024, "rss-before-MiB")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU is the CPU time of the database server CALENDAR_BENCH_SERVER_PID names (0: none).
func serverCPU() time.Duration {
	b, err := os.ReadFile("/proc/" + os.Getenv("CALENDAR_BENCH_SERVER_PID") + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond // USER_HZ is 100
}

// procStatusKiB reads a "Vm…: N kB" line of /proc/self/status.
func procStatusKiB(key string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
