package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"
)

// sample is one answered (or failed) request.
type sample struct {
	line   int
	dur    time.Duration
	status int // 0: transport error
	end    time.Time
}

// snapshot is the server side's counters at one instant.
type snapshot struct {
	at      time.Time
	goCPU   time.Duration // the calendard process
	dbCPU   time.Duration // the mariadbd process (0 on SQLite)
	mem     goMem
	memErr  error
	hwm     int64         // calendard VmHWM
	dbRSS   int64         // mariadbd VmHWM
	self    time.Duration // this process (the load generator)
	busy    time.Duration // every processor, busy
	load    string        // 1-minute load average
	cpuErrs []error
}

// window is the outcome of one concurrency level.
type window struct {
	clients             int
	duration            time.Duration
	samples             []sample
	before, after       snapshot
	requests, errors    int
	notFound            int
	rps                 float64
	p50, p95, p99       time.Duration
	goMSPerReq          float64
	dbMSPerReq          float64
	allocsPerReq        float64
	bytesPerReq         float64
	allocsKnown         bool
	peakRSS, mariadbHWM int64
	clientMSPerReq      float64 // the load generator's CPU per request
	otherCores          float64 // CPU of everything else on the machine, in cores, over the window
	perLine             []lineStat
	errorLines          map[string]int
}

type lineStat struct {
	name                string
	n, errors, notFound int
	p50, p95            time.Duration
	status              map[int]int
}

func newClient(clients int) *http.Client {
	return &http.Client{
		Timeout: 120 * time.Second,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        clients * 2,
			MaxIdleConnsPerHost: clients * 2,
			IdleConnTimeout:     60 * time.Second,
			DisableCompression:  true,
		},
	}
}

// do sends one GET and reads the whole answer.
func do(ctx context.Context, client *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err
}

// isError is an answer a correct benchmark never gets: a failed request or any status from 400 up
// except 404.
func isError(status int) bool { return status == 0 || (status >= 400 && status != http.StatusNotFound) }

// runWindow drives the server with clients concurrent clients, each cycling through urls from its
// own starting line: warm-up, then the measured window between two snapshots. Requests that end
// inside the window count.
func runWindow(ctx context.Context, base string, names []string, urls []string, clients int, warmup, dur time.Duration,
	snap func() snapshot) *window {
	client := newClient(clients)
	defer client.CloseIdleConnections()
	var stop sync.WaitGroup
	done := make(chan struct{})
	per := make([][]sample, clients)
	for i := 0; i < clients; i++ {
		stop.Add(1)
		go func() {
			defer stop.Done()
			k := i * len(urls) / clients
			for {
				select {
				case <-done:
					return
				default:
				}
				line := k % len(urls)
				k++
				t0 := time.Now()
				status, err := do(ctx, client, base+urls[line])
				end := time.Now()
				if err != nil {
					status = 0
				}
				per[i] = append(per[i], sample{line: line, dur: end.Sub(t0), status: status, end: end})
			}
		}()
	}
	sleep := func(d time.Duration) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
	sleep(warmup)
	before := snap()
	sleep(dur)
	after := snap()
	close(done)
	stop.Wait()

	w := &window{clients: clients, duration: after.at.Sub(before.at), before: before, after: after, errorLines: map[string]int{}}
	for _, s := range per {
		for _, x := range s {
			if !x.end.Before(before.at) && !x.end.After(after.at) {
				w.samples = append(w.samples, x)
			}
		}
	}
	w.summarize(names)
	return w
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func (w *window) summarize(names []string) {
	w.requests = len(w.samples)
	lat := make([]time.Duration, 0, len(w.samples))
	byLine := make([][]time.Duration, len(names))
	w.perLine = make([]lineStat, len(names))
	for i := range w.perLine {
		w.perLine[i] = lineStat{name: names[i], status: map[int]int{}}
	}
	for _, s := range w.samples {
		lat = append(lat, s.dur)
		byLine[s.line] = append(byLine[s.line], s.dur)
		ls := &w.perLine[s.line]
		ls.n++
		ls.status[s.status]++
		switch {
		case isError(s.status):
			w.errors++
			ls.errors++
			w.errorLines[fmt.Sprintf("%s → %s", names[s.line], statusText(s.status))]++
		case s.status == http.StatusNotFound:
			w.notFound++
			ls.notFound++
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	w.p50, w.p95, w.p99 = percentile(lat, 0.50), percentile(lat, 0.95), percentile(lat, 0.99)
	for i, l := range byLine {
		sort.Slice(l, func(a, b int) bool { return l[a] < l[b] })
		w.perLine[i].p50, w.perLine[i].p95 = percentile(l, 0.50), percentile(l, 0.95)
	}
	secs := w.duration.Seconds()
	if secs > 0 {
		w.rps = float64(w.requests) / secs
	}
	if w.requests > 0 {
		n := float64(w.requests)
		w.goMSPerReq = float64(w.after.goCPU-w.before.goCPU) / float64(time.Millisecond) / n
		w.dbMSPerReq = float64(w.after.dbCPU-w.before.dbCPU) / float64(time.Millisecond) / n
		if w.before.memErr == nil && w.after.memErr == nil {
			w.allocsKnown = true
			w.allocsPerReq = float64(w.after.mem.Mallocs-w.before.mem.Mallocs) / n
			w.bytesPerReq = float64(w.after.mem.TotalAlloc-w.before.mem.TotalAlloc) / n
		}
	}
	w.peakRSS, w.mariadbHWM = w.after.hwm, w.after.dbRSS
	if w.requests > 0 {
		w.clientMSPerReq = float64(w.after.self-w.before.self) / float64(time.Millisecond) / float64(w.requests)
	}
	if secs > 0 && w.before.busy > 0 {
		other := (w.after.busy - w.before.busy) - (w.after.goCPU - w.before.goCPU) - (w.after.dbCPU - w.before.dbCPU) -
			(w.after.self - w.before.self)
		w.otherCores = max(0, other.Seconds()/secs)
	}
}

// lineDurations returns the latencies of one mix line in the window.
func (w *window) lineDurations(line int) []time.Duration {
	var out []time.Duration
	for _, s := range w.samples {
		if s.line == line {
			out = append(out, s.dur)
		}
	}
	return out
}

func statusText(status int) string {
	if status == 0 {
		return "transport error"
	}
	return fmt.Sprintf("%d", status)
}
