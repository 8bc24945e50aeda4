package main

import (
	"encoding/json"
	"expvar"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/calendard/calendard/wpdb"
)

// CALENDAR_DEBUG_ADDR (opt-in, unset by default) makes "calendard serve" listen on a second,
// loopback-only address for diagnostics: the Go runtime's counters as JSON at /debug/vars (expvar:
// memstats with Mallocs and TotalAlloc, which calendard-bench reads for allocations per request),
// pprof profiles at /debug/pprof/, and the Prometheus metrics at /metrics (CALENDAR_METRICS). Nothing
// of it is reachable through the API listener.
//
// It starts from init so that serving needs no wiring: the listener exists before the service
// reads its configuration, and only for the serve command.
func init() {
	addr := os.Getenv("CALENDAR_DEBUG_ADDR")
	if addr == "" || (len(os.Args) > 1 && os.Args[1] != "serve") {
		return
	}
	if err := startDebug(addr); err != nil {
		fmt.Fprintln(os.Stderr, "calendard: CALENDAR_DEBUG_ADDR:", err)
		os.Exit(2)
	}
}

// scrubbedArgs is the command line with the configured secrets masked: flags may carry them
// (--db, --webhooks…), and the diagnostics show the command line.
func scrubbedArgs() []string {
	out := make([]string, len(os.Args))
	for i, a := range os.Args {
		out[i] = secrets.scrub(a)
	}
	return out
}

// debugVars is expvar's /debug/vars with the command line scrubbed (scrubbedArgs).
func debugVars(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	fmt.Fprint(w, "{\n")
	first := true
	expvar.Do(func(kv expvar.KeyValue) {
		if !first {
			fmt.Fprint(w, ",\n")
		}
		first = false
		v := kv.Value.String()
		if kv.Key == "cmdline" {
			b, _ := json.Marshal(scrubbedArgs())
			v = string(b)
		}
		fmt.Fprintf(w, "%q: %s", kv.Key, v)
	})
	fmt.Fprint(w, "\n}\n")
}

// debugMetrics is what the diagnostics listener serves at /metrics (serve sets it; none before).
var debugMetrics atomic.Pointer[http.Handler]

// debugIndex is the served store's event index (serve sets it): /debug/vars shows its Stats as
// event_index, so that calendard-bench can tell when a first build has finished and been written
// to the index file.
var debugIndex atomic.Pointer[wpdb.EventIndex]

// debugStore is the served store (serve sets it): /debug/vars shows its journal's SyncStats as
// sync_journal, so that an operator (and a test) can tell when the journal has opened.
var debugStore atomic.Pointer[wpdb.Store]

func init() {
	expvar.Publish("event_index", expvar.Func(func() any {
		if x := debugIndex.Load(); x != nil {
			return x.Stats()
		}
		return nil
	}))
	expvar.Publish("sync_journal", expvar.Func(func() any {
		if s := debugStore.Load(); s != nil {
			return s.SyncStats()
		}
		return nil
	}))
}

// startDebug serves the diagnostics on addr, which must be a loopback address.
func startDebug(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q is not a loopback address (e.g. 127.0.0.1:6060): the diagnostics expose profiles", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/vars", debugVars)
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		if h := debugMetrics.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Join(scrubbedArgs(), "\x00"))
	})
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return nil
}
