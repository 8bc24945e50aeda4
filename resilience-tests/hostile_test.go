package resiliencetests

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Hostile requests against the real binary on each store. The short run (make test) sends about
// 10,000 requests per store; HOSTILE_LONG=1 (make hostile) sends 100,000 per store and 3 rounds of
// bombs, HOSTILE_REQUESTS=N any number. HOSTILE_SEED changes the generated requests; request i of a
// phase is a function of the seed and i, so a failure names a request that can be sent again.
//
// Phases, on one server per store:
//  1. anonymous: first the regression requests (fixed) and every argument of every route
//     with five hostile values each (sweep), then generated ones: hostile query strings on the GET
//     routes, hostile bodies on the write routes (JSON, form, multipart, malformed), path tricks, odd
//     methods and framing, long URLs and headers, bodies from 20 KB to past the 8 MiB limit,
//     plausible requests;
//  2. body bombs: 16 clients at once, each sending 8 MB bodies of every bomb kind, anonymously;
//     the server's peak RSS (VmHWM) during them must stay within bombRSSAllowance of its RSS before;
//  3. the database must be exactly as before (every table, every AUTO_INCREMENT);
//  4. the generated requests of phase 1 as the subscriber (logged in, no capability to write):
//     nothing changes but the last-use record of its application password;
//  5. the contributor, who may create drafts: hostile writes that reach the write path;
//  6. wrong, malformed and huge credentials (last: they trip the failed-login limiter).
//
// Every answer: no 5xx but 503 rest_server_busy with Retry-After (the documented body budget); every
// error (4xx) a WordPress error {"code","message","data":{"status"}} (or WordPress' own bare
// {"code","message"} for a bad _jsonp callback); every 2xx valid JSON; no panic or error in the
// server's log; the service still answers afterwards. Requests malformed at the HTTP level (flagged
// by the generator) may instead get the bare answer of Go's HTTP server, which calendard never sees,
// as nginx would answer them: 400 (or a reset while the rest is unread), 431 past 32 KiB of request
// line and headers, 501 for a Transfer-Encoding other than chunked.

// bombRSSAllowance bounds what the body bombs may add to the server's resident memory (VmHWM during
// them over VmRSS before them): the body budget's share of the heap (CALENDAR_BODY_MEMORY, 64 MiB,
// up to about 2.5 times that with decoder buffers, docs/reliability.md), the collector's headroom
// over it (GOGC=50: the heap may reach 1.5 times what was live at the last collection) and 32 MiB
// of pages freed but not yet given back to the system. What the server held before (the event
// index, the response and record caches, filled by the phase before) is not the bombs' doing: an
// absolute bound would measure how full the caches were.
const bombRSSAllowance = (64<<20)*5/2*3/2 + 32<<20

const (
	shortRequests = 10_000
	longRequests  = 100_000
	workers       = 8
	bombClients   = 16
	bombSize      = 8_000_000
)

func TestHostileRequests(t *testing.T) {
	total, rounds := shortRequests, 1
	if os.Getenv("HOSTILE_LONG") != "" {
		total, rounds = longRequests, 3
	}
	if v := os.Getenv("HOSTILE_REQUESTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 {
			t.Fatalf("HOSTILE_REQUESTS=%q", v)
		}
		total = n
	}
	seed := uint64(20261122)
	if v := os.Getenv("HOSTILE_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("HOSTILE_SEED=%q", v)
		}
		seed = n
	}
	for _, store := range []string{"mysql", "sqlite"} {
		t.Run(store, func(t *testing.T) {
			var spec string
			if store == "mysql" {
				spec = mysqlFixture(t, "r_hostile")
			} else {
				spec = sqliteFixture(t)
			}
			runHostile(t, store, spec, total, rounds, seed)
		})
	}
}

// tally collects the outcome of a phase.
type tally struct {
	mu        sync.Mutex
	sent      int
	byStatus  map[int]int
	busy      int // 503 rest_server_busy
	transport int // bare answers of Go's server to malformed HTTP
	te501     int // Go's bare 501 to an unsupported Transfer-Encoding
	failures  []string
	failed    int
	slowest   time.Duration
	slowReq   string
	bytesSent int64
	took      time.Duration
}

func newTally() *tally { return &tally{byStatus: map[int]int{}} }

func (tl *tally) fail(format string, args ...any) {
	tl.failed++
	if len(tl.failures) < 40 {
		tl.failures = append(tl.failures, fmt.Sprintf(format, args...))
	}
}

// jsonpInner returns the JSON inside a JSONP answer "/**/cb(…)".
func jsonpInner(b []byte) []byte {
	i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if i < 0 || j < i {
		return nil
	}
	return b[i+1 : j]
}

// check judges one answer.
func (tl *tally) check(q *hreq, resp *rawResp, err error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.sent++
	if q.length > 0 {
		tl.bytesSent += q.length
	}
	if err != nil {
		if q.transport && errors.Is(err, syscall.ECONNRESET) {
			// Go's server answers a request line it cannot parse with a bare 400 and closes at once,
			// without reading the rest: with header or body bytes still unread, the close is a reset.
			tl.transport++
			return
		}
		tl.fail("%s: no answer: %v", q, err)
		return
	}
	tl.byStatus[resp.status]++
	if resp.took > tl.slowest {
		tl.slowest, tl.slowReq = resp.took, q.String()
	}
	ctype := resp.header.Get("Content-Type")
	body := resp.body
	// HEAD answers and 204/304 have no body (http.ReadResponse reads none), whatever their
	// Content-Encoding and Content-Type say: they are the headers GET would have had.
	noBody := q.method == "HEAD" || resp.status == 204 || resp.status == 304
	if !noBody && resp.header.Get("Content-Encoding") == "gzip" {
		// The request asked for gzip (Accept-Encoding) and got it, as behind nginx.
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			body, err = io.ReadAll(zr)
		}
		if err != nil {
			tl.fail("%s: %d gzip answer that does not decompress: %v", q, resp.status, err)
			return
		}
	}
	if strings.HasPrefix(ctype, "application/javascript") {
		body = jsonpInner(body)
	}
	bare := !strings.HasPrefix(ctype, "application/json") && !strings.HasPrefix(ctype, "application/javascript")
	switch {
	case q.unsupportedTE && resp.status == 501 && bare:
		tl.te501++
		return
	case q.transport && bare && (resp.status == 400 || resp.status == 431):
		tl.transport++
		return
	case resp.status == 503 && (noBody || errorCode(body) == "rest_server_busy") && resp.header.Get("Retry-After") != "":
		tl.busy++
		return
	case resp.status >= 500:
		tl.fail("%s: %d %.300s", q, resp.status, resp.body)
		return
	}
	if noBody {
		return
	}
	if strings.HasPrefix(ctype, "text/html") && (resp.status == 200 || resp.status == 404) &&
		strings.Contains(resp.header.Get("Link"), `rel="https://api.w.org/"`) {
		// A site page (the root; on the embedded store any path calendard does not serve): HTML
		// with WordPress' API discovery, not a REST answer.
		return
	}
	if resp.status >= 400 {
		if !wpError(body, resp.status) {
			tl.fail("%s: %d not a WordPress error: %q %.300s", q, resp.status, ctype, resp.body)
		}
		return
	}
	if len(resp.body) > 0 && !json.Valid(body) {
		tl.fail("%s: %d answer is not JSON: %q %.300s", q, resp.status, ctype, resp.body)
	}
}

func (tl *tally) summary() string {
	codes := make([]int, 0, len(tl.byStatus))
	for c := range tl.byStatus {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d×%d", tl.byStatus[c], c))
	}
	return fmt.Sprintf("%d requests in %v (%s; %d busy 503, %d refused by Go's HTTP parser, %d unsupported Transfer-Encoding 501), %.1f MB of bodies, slowest %v %s",
		tl.sent, tl.took.Round(time.Millisecond), strings.Join(parts, " "), tl.busy, tl.transport, tl.te501, float64(tl.bytesSent)/1e6, tl.slowest.Round(time.Millisecond), tl.slowReq)
}

func (tl *tally) report(t *testing.T, phase string) {
	t.Helper()
	t.Logf("%s: %s", phase, tl.summary())
	if tl.failed > 0 {
		t.Errorf("%s: %d of %d answers failed, e.g.:\n%s", phase, tl.failed, tl.sent, strings.Join(tl.failures, "\n"))
	}
}

// runPhase sends n generated requests of a phase from workers clients as user.
func runPhase(t *testing.T, s *server, g *gen, phase, user string, first uint64, n int) *tally {
	tl := newTally()
	start := time.Now()
	defer func() { tl.took = time.Since(start) }()
	auth := ""
	if user != "" {
		auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+appPasswords[user]))
	}
	var next atomic.Uint64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &rawClient{addr: s.addr, auth: auth}
			defer c.close()
			for {
				i := next.Add(1) - 1
				if i >= uint64(n) {
					return
				}
				q := g.next(first+i, phase)
				resp, err := c.do(q, 40*time.Second)
				tl.check(q, resp, err)
			}
		}()
	}
	wg.Wait()
	return tl
}

// runBombs has bombClients anonymous clients send rounds of 8 MB bodies of every kind at once.
func runBombs(t *testing.T, s *server, rounds int) (*tally, time.Duration) {
	tl := newTally()
	start := time.Now()
	var wg sync.WaitGroup
	for cl := 0; cl < bombClients; cl++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &rawClient{addr: s.addr}
			defer c.close()
			for round := 0; round < rounds; round++ {
				for k := range bombKinds {
					kind := bombKinds[(k+cl)%len(bombKinds)] // clients start on different kinds
					q := &hreq{kind: "bomb " + kind.name, method: "POST", target: "/wp-json/tribe/events/v1/events",
						headers: []string{"Content-Type: " + kind.ctype}}
					q.body, q.length = streamBody(kind.head, kind.unit, kind.tail, bombSize)
					resp, err := c.do(q, 60*time.Second)
					tl.check(q, resp, err)
				}
			}
		}()
	}
	wg.Wait()
	tl.took = time.Since(start)
	return tl, tl.took
}

func runHostile(t *testing.T, store, spec string, total, rounds int, seed uint64) {
	// Robustness is what is tested here, not the database deadline (faults_test.go tests that): on a
	// loaded 2-core machine, logins queued behind the contributor's writes on SQLite's one write
	// lock ran out of the default 5 s.
	s := startServer(t, spec, map[string]string{"CALENDAR_DB_TIMEOUT": "60s"})
	startRSS := s.procStatus(t, "VmRSS")
	eps := routeTable(t, s)
	var lists []endpoint
	for _, ns := range []string{"tribe/events/v1", "wp/v2"} {
		for _, e := range routeTableOf(t, s, ns) {
			if !strings.Contains(e.route, "(?P<id>") && !strings.Contains(e.route, "(?P<slug>") {
				lists = append(lists, e) // collections, not singles
			}
		}
	}
	g := newGen(seed, s.addr, eps, lists, loadFixtureIDs(t, s))
	t.Logf("%d fixed requests open the anonymous phase (fixed, sweep, paging)", len(g.fixedReqs))
	db := openSpec(t, spec)
	s.waitSyncOpen(t)
	before := digest(t, db, spec)
	began := time.Now()

	anon, sub, contrib := total*60/100, total*22/100, total*10/100
	bad := total - anon - sub - contrib
	var sent, failed int
	account := func(tl *tally, phase string) {
		tl.report(t, phase)
		sent += tl.sent
		failed += tl.failed
	}
	account(runPhase(t, s, g, "anonymous", "", 0, anon), "anonymous")
	runPeak := s.procStatus(t, "VmHWM") << 10
	rssBefore, heapBefore := s.procStatus(t, "VmRSS")<<10, s.heapInuse(t)
	if !s.resetPeakRSS() {
		t.Logf("cannot reset VmHWM: the bombs' peak is the whole run's so far")
	}
	bombs, took := runBombs(t, s, rounds)
	account(bombs, "bombs")
	peak := s.procStatus(t, "VmHWM") << 10
	t.Logf("bombs: %d clients × %d bodies of %d bytes in %v; server RSS at start %d MiB, before the bombs %d MiB (Go heap in use %d MiB, peak so far %d MiB), peak during them %d MiB: +%d MiB (allowance %d MiB)",
		bombClients, rounds*len(bombKinds), bombSize, took.Round(time.Millisecond), startRSS>>10, rssBefore>>20, heapBefore>>20,
		runPeak>>20, peak>>20, (peak-rssBefore)>>20, bombRSSAllowance>>20)
	if peak > rssBefore+bombRSSAllowance {
		t.Errorf("peak RSS %d MiB during the bombs, %d MiB over the %d MiB before them: more than the %d MiB allowance",
			peak>>20, (peak-rssBefore)>>20, rssBefore>>20, bombRSSAllowance>>20)
	}

	// Nothing anonymous callers sent changed a row, nor took an AUTO_INCREMENT value.
	sameDigest(t, before, digest(t, db, spec), "anonymous requests")

	// The subscriber changes nothing either, but the record of its application password's last use
	// (last_used, last_ip: WordPress updates it on a login, at most once a day).
	subscriber := queryStrings(t, db, "SELECT CAST(ID AS CHAR) FROM wp_users WHERE user_login = 'subscriber'")[0]
	appPasswordUse := map[string]string{"wp_usermeta": "NOT (user_id = " + subscriber + " AND meta_key = '_application_passwords')"}
	before = digestWhere(t, db, spec, appPasswordUse)
	account(runPhase(t, s, g, "subscriber", "subscriber", 1<<40, sub), "subscriber")
	sameDigest(t, before, digestWhere(t, db, spec, appPasswordUse), "subscriber requests")

	account(runPhase(t, s, g, "contributor", "contributor", 2<<40, contrib), "contributor")
	account(runPhase(t, s, g, "badauth", "", 3<<40, bad), "bad credentials")

	// Still serving, and nothing went wrong inside.
	if a := s.call(t.Context(), "GET", "/wp-json/tribe/events/v1/events?per_page=5", "", nil); a.err != nil || a.status != 200 {
		t.Errorf("after the run: %d %v", a.status, a.err)
	}
	s.checkLog(t)
	peak = max(runPeak, s.procStatus(t, "VmHWM")<<10)
	t.Logf("TOTAL %s: %d requests in %v, %d failed; peak RSS %d MiB", store, sent,
		time.Since(began).Round(time.Second), failed, peak>>20)
}
