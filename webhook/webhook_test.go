package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/calendard/calendard/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const verifyDir = "testdata/standardwebhooks"

// CALENDAR_WEBHOOKS parses inline and from a file; what is wrong is said by endpoint number and
// field, never quoting the secret or the URL (either may carry credentials).
func TestParse(t *testing.T) {
	eps, err := Parse(`[{"url":"https://a.test/hook","secret":"` + testSecret + `","resources":["events","tags"],"query":"categories=music&featured=true","retry_min":"2s"}]`)
	if err != nil {
		t.Fatal(err)
	}
	e := eps[0]
	if e.URL != "https://a.test/hook" || string(e.Secret) != "0123456789abcdef0123456789abcdef" || !e.Wants("tags") || e.Wants("venues") ||
		e.Query.Get("categories") != "music" || e.RetryMin != 2*time.Second || e.RetryMax != DefaultRetryMax || e.Timeout != DefaultTimeout {
		t.Errorf("parsed %+v", e)
	}
	if e.Key() == (&Endpoint{URL: e.URL + "x"}).Key() || e.Key() != (&Endpoint{URL: e.URL, Secret: []byte("other")}).Key() {
		t.Error("the key must follow the URL alone")
	}
	file := filepath.Join(t.TempDir(), "hooks.json")
	if err := os.WriteFile(file, []byte(`[{"url":"http://b.test/","secret":"`+testSecret+`"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if eps, err := Parse("@" + file); err != nil || len(eps) != 1 || eps[0].Resources != nil {
		t.Errorf("@file: %v %+v", err, eps)
	}
	const leaky = "whsec_bGVha3lsZWFreWxlYWt5bGVha3lsZWFreWxlYWt5"
	for _, c := range []struct{ v, want string }{
		{`{"url":"x"}`, "JSON array"},
		{`[]`, "lists no endpoint"},
		{`[{"url":"ftp://user:pw@h/","secret":"` + leaky + `"}]`, "endpoint 1: url must be"},
		{`[{"url":"https://h/","secret":"` + strings.TrimPrefix(leaky, "whsec_") + `"}]`, "whsec_<base64>"},
		{`[{"url":"https://h/","secret":"whsec_c2hvcnQ="}]`, "24 to 64 bytes, holds 5"},
		{`[{"url":"https://h/","secret":"` + leaky + `","resources":["posts"]}]`, `"posts" is none of`},
		{`[{"url":"https://h/","secret":"` + leaky + `","resources":["venues"],"query":"categories=x"}]`, "query filters events"},
		{`[{"url":"https://h/","secret":"` + leaky + `","query":"include=3"}]`, "include is not a filter"},
		{`[{"url":"https://h/","secret":"` + leaky + `","timeout":"1h"}]`, "timeout must be"},
		{`[{"url":"https://h/","secret":"` + leaky + `","retry_min":"1m","retry_max":"1s"}]`, "retry_max must not be below"},
		{`[{"url":"https://h/","secret":"` + leaky + `"},{"url":"https://h/","secret":"` + leaky + `"}]`, "endpoint 2: its URL is listed twice"},
		{`[{"url":"https://h/","secret":"` + leaky + `","sekret":1}]`, `unknown field "sekret"`},
		{`[{"url":"https://h/","secret":` + "\"" + leaky, "invalid JSON"},
		{"@/nonexistent/hooks.json", "reading /nonexistent/hooks.json"},
	} {
		_, err := Parse(c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s): %v, want %q", c.v, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "bGVha3") || strings.Contains(err.Error(), "pw@") {
			t.Errorf("Parse(%s) quotes a secret: %v", c.v, err)
		}
	}
	if s := Secrets(`[{"url":"https://h/","secret":"` + leaky + `"}]`); len(s) != 2 || s[0] != leaky || s[1] != strings.TrimPrefix(leaky, "whsec_") {
		t.Errorf("Secrets: %q", s)
	}
}

// Every delivery verifies with the official Standard Webhooks library (npm's standardwebhooks),
// carries the documented payload, and a tampered body or another secret does not verify.
func TestSignaturesVerifyWithTheOfficialLibrary(t *testing.T) {
	testenv.SkipIfShort(t, "node and npm's standardwebhooks")
	r := testenv.StartReceiver(t, nil)
	j := newMemJournal("e1")
	run := startDispatcher(t, Options{Endpoints: []Endpoint{endpoint(t, r)}, Journal: j, Cursors: sqliteCursors(t)})
	waitFor(t, "the endpoint placed at the journal's head", 10*time.Second, func() bool { return strings.Contains(run.logs.String(), "starts at the journal's head") })
	j.add("events", 11, "publish", false)
	j.add("venues", 12, "", true)
	j.add("tags", 13, "", false)
	waitFor(t, "three deliveries", 10*time.Second, func() bool { return len(r.Deliveries()) == 3 })
	ds := r.Deliveries()
	tampered := ds[0]
	tampered.Body = []byte(strings.Replace(string(tampered.Body), `"id":11`, `"id":12`, 1))
	res := testenv.VerifyStandardWebhooks(t, verifyDir, testSecret, append(ds, tampered))
	other := testenv.VerifyStandardWebhooks(t, verifyDir, "whsec_"+strings.Repeat("QUFB", 8), ds[:1])
	for i, v := range res[:3] {
		if !v.OK {
			t.Errorf("delivery %d does not verify: %s", i, v.Error)
		}
	}
	if res[3].OK || other[0].OK {
		t.Errorf("a tampered body (%v) or another secret (%v) verified", res[3], other[0])
	}
	want := []struct{ typ, id, url string }{
		{"event.updated", "msg_e1_1", "http://site.test/wp-json/tribe/events/v1/events/11"},
		{"venue.deleted", "msg_e1_2", "http://site.test/wp-json/tribe/events/v1/venues/12"},
		{"tag.updated", "msg_e1_3", "http://site.test/wp-json/tribe/events/v1/tags/13"},
	}
	for i, d := range ds {
		var p Payload
		if err := json.Unmarshal(res[i].Payload, &p); err != nil {
			t.Fatal(err)
		}
		if d.ID != want[i].id || p.Type != want[i].typ || p.Data.URL != want[i].url || p.Data.Seq != int64(i+1) {
			t.Errorf("delivery %d: id %s, payload %+v; want %+v", i, d.ID, p, want[i])
		}
		if _, err := time.Parse(time.RFC3339, p.Timestamp); err != nil {
			t.Errorf("timestamp %q: %v", p.Timestamp, err)
		}
	}
	if p := payload(t, ds[0]); p.Data.Status != "publish" || p.Data.Deleted {
		t.Errorf("event payload %+v", p)
	}
	if p := payload(t, ds[1]); !p.Data.Deleted {
		t.Errorf("venue payload %+v", p)
	}
}

// A failing receiver is retried with the same webhook-id, the waits growing (exponential backoff,
// jitter); the next message waits for the first: order holds.
func TestRetriesBackOffAndKeepOrder(t *testing.T) {
	const failures = 6
	r := testenv.StartReceiver(t, func(n int, d testenv.Delivery) int {
		if n <= failures {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	j := newMemJournal("e1")
	cursors := sqliteCursors(t)
	run := startDispatcher(t, Options{Endpoints: []Endpoint{endpoint(t, r)}, Journal: j, Cursors: cursors})
	waitFor(t, "the endpoint placed", 10*time.Second, func() bool { return strings.Contains(run.logs.String(), "starts at the journal's head") })
	for i := range 3 {
		j.add("events", int64(100+i), "publish", false)
	}
	waitFor(t, "the three messages delivered", time.Minute, func() bool { return len(r.Deliveries()) == failures+3 })
	ds := r.Deliveries()
	for i := 0; i <= failures; i++ {
		if ds[i].ID != "msg_e1_1" {
			t.Fatalf("attempt %d is %s: the first message must be retried until it succeeds", i+1, ds[i].ID)
		}
	}
	if ds[failures+1].ID != "msg_e1_2" || ds[failures+2].ID != "msg_e1_3" {
		t.Errorf("after the retries came %s, %s; want msg_e1_2, msg_e1_3", ds[failures+1].ID, ds[failures+2].ID)
	}
	// The k-th wait is 20 ms·2^(k-1) ± 50% (capped at 2 s): a busy machine only lengthens waits,
	// so lower bounds hold, and the last two waits dwarf the first two.
	var gaps []time.Duration
	for i := 1; i <= failures; i++ {
		gaps = append(gaps, ds[i].At.Sub(ds[i-1].At))
	}
	for k, g := range gaps {
		if low := 10 * time.Millisecond << k; g < low {
			t.Errorf("wait %d was %v, below its least %v", k+1, g, low)
		}
	}
	if first, last := gaps[0]+gaps[1], gaps[failures-2]+gaps[failures-1]; last < 2*first {
		t.Errorf("waits %v do not grow apart", gaps)
	}
	logs := run.logs.String()
	if n := strings.Count(logs, "webhook delivery failed"); n != failures {
		t.Errorf("%d failure log lines, want %d:\n%s", n, failures, logs)
	}
	for _, line := range []string{"attempt=1 ", "attempt=6 ", "status=503", "retry_in=", "endpoint=" + r.Addr} {
		if !strings.Contains(logs, line) {
			t.Errorf("the failure logs lack %q:\n%s", line, logs)
		}
	}
	if strings.Contains(logs, "secret-token-in-query") || strings.Contains(logs, "v1,") || strings.Contains(logs, strings.TrimPrefix(testSecret, "whsec_")) {
		t.Errorf("the logs show the URL's token, a signature or the secret:\n%s", logs)
	}
	if got := testutil.ToFloat64(run.metrics.deliveries.WithLabelValues(r.Addr, "http_error")); got != failures {
		t.Errorf("http_error deliveries %v, want %d", got, failures)
	}
	waitFor(t, "nothing pending", 10*time.Second, func() bool {
		return testutil.ToFloat64(run.metrics.pendingG.WithLabelValues(r.Addr)) == 0
	})
	if ts := testutil.ToFloat64(run.metrics.lastSuccess.WithLabelValues(r.Addr)); ts < float64(ds[len(ds)-1].At.Unix()-5) {
		t.Errorf("last success at %v, the last delivery at %v", ts, ds[len(ds)-1].At.Unix())
	}
}

// The receiver goes down, the dispatcher is stopped with deliveries pending, more changes come,
// another dispatcher (another instance) starts on the same database, the receiver comes back: every
// change arrives, exactly once after deduplication by webhook-id, in order.
func TestReceiverDownAndRestartDeliverEverythingInOrder(t *testing.T) {
	for _, store := range stores {
		t.Run(store.name, func(t *testing.T) {
			r := testenv.StartReceiver(t, nil)
			j := newMemJournal("e7")
			cursors := store.open(t)
			ep := endpoint(t, r)
			a := startDispatcher(t, Options{Endpoints: []Endpoint{ep}, Journal: j, Cursors: cursors, Owner: "a"})
			waitFor(t, "the endpoint placed", 10*time.Second, func() bool { return strings.Contains(a.logs.String(), "starts at the journal's head") })
			for i := range 5 {
				j.add("events", int64(i+1), "publish", false)
			}
			waitFor(t, "the first five delivered", 10*time.Second, func() bool { return len(testenv.Unique(r.Deliveries())) == 5 })
			r.Down()
			for i := 5; i < 10; i++ {
				j.add("organizers", int64(i+1), "publish", false)
			}
			waitFor(t, "a failed attempt", 10*time.Second, func() bool {
				return testutil.ToFloat64(a.metrics.deliveries.WithLabelValues(r.Addr, "transport_error")) >= 2
			})
			a.stop()
			for i := 10; i < 12; i++ {
				j.add("categories", int64(i+1), "", i == 11)
			}
			b := startDispatcher(t, Options{Endpoints: []Endpoint{ep}, Journal: j, Cursors: cursors, Owner: "b"})
			if err := r.Up(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "all twelve delivered", 30*time.Second, func() bool { return len(testenv.Unique(r.Deliveries())) == 12 })
			for i, d := range testenv.Unique(r.Deliveries()) {
				if want := fmt.Sprintf("msg_e7_%d", i+1); d.ID != want {
					t.Errorf("message %d is %s, want %s", i+1, d.ID, want)
				}
			}
			if strings.Contains(b.logs.String(), "starts at the journal's head") {
				t.Error("the second instance started over at the head instead of the stored cursor")
			}
		})
	}
}

// Two instances on one database: the lease lets one deliver at a time, so with a receiver that
// always answers, each message comes once, in order, never two requests at once.
func TestFleetDeliversOnceThroughTheLease(t *testing.T) {
	for _, store := range stores {
		t.Run(store.name, func(t *testing.T) {
			var inFlight, most atomic.Int32
			r := testenv.StartReceiver(t, func(int, testenv.Delivery) int {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond) // hold the request open so an overlap would show
				return http.StatusOK
			})
			j := newMemJournal("e1")
			cursors := store.open(t)
			ep := endpoint(t, r)
			a := startDispatcher(t, Options{Endpoints: []Endpoint{ep}, Journal: j, Cursors: cursors, Owner: "a"})
			b := startDispatcher(t, Options{Endpoints: []Endpoint{ep}, Journal: j, Cursors: cursors, Owner: "b"})
			waitFor(t, "the endpoint placed", 10*time.Second, func() bool {
				return strings.Contains(a.logs.String()+b.logs.String(), "starts at the journal's head")
			})
			for i := range 30 {
				j.add("events", int64(i+1), "publish", false)
			}
			waitFor(t, "thirty delivered", 30*time.Second, func() bool { return len(testenv.Unique(r.Deliveries())) == 30 })
			ds := r.Deliveries()
			if len(ds) != 30 {
				t.Errorf("%d requests for 30 messages", len(ds))
			}
			for i, d := range testenv.Unique(ds) {
				if want := fmt.Sprintf("msg_e1_%d", i+1); d.ID != want {
					t.Errorf("message %d is %s, want %s", i+1, d.ID, want)
				}
			}
			if most.Load() != 1 {
				t.Errorf("%d requests at once", most.Load())
			}
			if strings.Count(a.logs.String()+b.logs.String(), "starts at the journal's head") != 1 {
				t.Error("both instances placed the endpoint")
			}
		})
	}
}

// A receiver that never answers is cut off at the endpoint's timeout and retried; another endpoint
// gets its messages meanwhile.
func TestHungReceiverStallsNothingElse(t *testing.T) {
	release := make(chan struct{})
	hung := testenv.StartReceiver(t, func(int, testenv.Delivery) int { <-release; return http.StatusOK })
	t.Cleanup(func() { close(release) })
	ok := testenv.StartReceiver(t, nil)
	hungEP := endpoint(t, hung)
	hungEP.Timeout = 200 * time.Millisecond
	j := newMemJournal("e1")
	run := startDispatcher(t, Options{Endpoints: []Endpoint{hungEP, endpoint(t, ok)}, Journal: j, Cursors: sqliteCursors(t)})
	waitFor(t, "both endpoints placed", 10*time.Second, func() bool { return strings.Count(run.logs.String(), "starts at the journal's head") == 2 })
	for i := range 3 {
		j.add("events", int64(i+1), "publish", false)
	}
	waitFor(t, "the answering endpoint served", 10*time.Second, func() bool { return len(ok.Deliveries()) == 3 })
	waitFor(t, "the hung endpoint timed out twice", 20*time.Second, func() bool {
		return testutil.ToFloat64(run.metrics.deliveries.WithLabelValues(hung.Addr, "transport_error")) >= 2
	})
	if !strings.Contains(run.logs.String(), "no answer within 200ms") {
		t.Errorf("the timeout is not logged:\n%s", run.logs.String())
	}
	if got := testenv.Unique(hung.Deliveries()); len(got) != 1 || got[0].ID != "msg_e1_1" {
		t.Errorf("the hung endpoint got %d distinct messages; want only the first, retried", len(got))
	}
}

// Changes the journal dropped before the receiver got them are logged and counted as lost; what
// the journal still holds is delivered.
func TestChangesPastRetentionAreCountedLost(t *testing.T) {
	r := testenv.StartReceiver(t, nil)
	j := newMemJournal("e1")
	cursors := sqliteCursors(t)
	ep := endpoint(t, r)
	a := startDispatcher(t, Options{Endpoints: []Endpoint{ep}, Journal: j, Cursors: cursors})
	waitFor(t, "the endpoint placed", 10*time.Second, func() bool { return strings.Contains(a.logs.String(), "starts at the journal's head") })
	j.add("events", 1, "publish", false)
	j.add("events", 2, "publish", false)
	waitFor(t, "two delivered", 10*time.Second, func() bool { return len(r.Deliveries()) == 2 })
	a.stop()
	for i := 3; i <= 8; i++ {
		j.add("events", int64(i), "publish", false)
	}
	j.dropThrough(5)
	b := startDispatcher(t, Options{Endpoints: []Endpoint{ep}, Journal: j, Cursors: cursors})
	waitFor(t, "the rest delivered", 10*time.Second, func() bool { return len(r.Deliveries()) == 5 })
	var ids []string
	for _, d := range r.Deliveries() {
		ids = append(ids, d.ID)
	}
	if strings.Join(ids, " ") != "msg_e1_1 msg_e1_2 msg_e1_6 msg_e1_7 msg_e1_8" {
		t.Errorf("delivered %v", ids)
	}
	if got := testutil.ToFloat64(b.metrics.lost.WithLabelValues(r.Addr)); got != 3 {
		t.Errorf("lost %v, want 3", got)
	}
	if !strings.Contains(b.logs.String(), "lost=3") {
		t.Errorf("the loss is not logged:\n%s", b.logs.String())
	}
}

// The filter: resources pass or stop an entry; a query asks Match for published events and lets
// deleted or unpublished ones through (they may have left the receiver's list).
func TestFilters(t *testing.T) {
	r := testenv.StartReceiver(t, nil)
	j := newMemJournal("e1")
	ep := endpoint(t, r)
	ep.Resources = []string{"events", "tags"}
	ep.Query = map[string][]string{"categories": {"music"}}
	var asked atomic.Int32
	match := func(_ context.Context, e Entry, q url.Values) (bool, error) {
		asked.Add(1)
		return q["categories"][0] == "music" && e.ID%2 == 0, nil
	}
	run := startDispatcher(t, Options{Endpoints: []Endpoint{ep}, Journal: j, Cursors: sqliteCursors(t), Match: match})
	waitFor(t, "the endpoint placed", 10*time.Second, func() bool { return strings.Contains(run.logs.String(), "starts at the journal's head") })
	j.add("events", 1, "publish", false) // 1: no match
	j.add("events", 2, "publish", false) // 2: match
	j.add("venues", 3, "publish", false) // 3: resource filtered out
	j.add("tags", 4, "", false)          // 4: tags pass
	j.add("events", 5, "trash", false)   // 5: unpublished: passes unasked
	j.add("events", 7, "", true)         // 6: deleted: passes unasked
	j.add("events", 9, "publish", false) // 7: no match
	last := j.add("events", 10, "publish", false)
	waitFor(t, "the last match", 10*time.Second, func() bool {
		ds := r.Deliveries()
		return len(ds) > 0 && ds[len(ds)-1].ID == fmt.Sprintf("msg_e1_%d", last)
	})
	var ids []string
	for _, d := range r.Deliveries() {
		ids = append(ids, strings.TrimPrefix(d.ID, "msg_e1_"))
	}
	if strings.Join(ids, ",") != "2,4,5,6,8" {
		t.Errorf("delivered %v, want 2,4,5,6,8", ids)
	}
	if asked.Load() != 4 {
		t.Errorf("Match asked %d times, want 4 (the published events)", asked.Load())
	}
	waitFor(t, "nothing pending", 10*time.Second, func() bool {
		return testutil.ToFloat64(run.metrics.pendingG.WithLabelValues(r.Addr)) == 0
	})
}

// The lease in calendard_webhooks, at explicit instants: a live lease keeps another owner out, an
// expired one (an instance that died without releasing it) is taken over, and the old owner can
// then no longer move the cursor; a released lease is free at once.
func TestCursorLease(t *testing.T) {
	for _, store := range stores {
		t.Run(store.name, func(t *testing.T) {
			c := store.open(t)
			ctx := context.Background()
			t0 := time.Now()
			claim := func(owner string, at time.Duration) (string, int64, bool, bool) {
				t.Helper()
				epoch, seq, found, held, err := c.Claim(ctx, "k", owner, t0.Add(at), t0.Add(at+30*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				return epoch, seq, found, held
			}
			advance := func(owner string, seq int64) bool {
				t.Helper()
				ok, err := c.Advance(ctx, "k", owner, "e1", seq)
				if err != nil {
					t.Fatal(err)
				}
				return ok
			}
			if _, _, found, held := claim("a", 0); found || !held {
				t.Fatalf("a new endpoint: found %v held %v", found, held)
			}
			if !advance("a", 7) {
				t.Fatal("the holder could not advance")
			}
			if _, _, _, held := claim("b", 10*time.Second); held {
				t.Error("b took a live lease")
			}
			if advance("b", 9) {
				t.Error("b advanced without the lease")
			}
			if epoch, seq, found, held := claim("a", 20*time.Second); !held || !found || epoch != "e1" || seq != 7 {
				t.Errorf("a renewing: %q %d %v %v", epoch, seq, found, held)
			}
			// a dies: its lease runs out at 50 s.
			if epoch, seq, _, held := claim("b", 51*time.Second); !held || epoch != "e1" || seq != 7 {
				t.Errorf("b after the expiry: %q %d %v", epoch, seq, held)
			}
			if advance("a", 8) {
				t.Error("a advanced after losing its lease")
			}
			if err := c.Release(ctx, "k", "b"); err != nil {
				t.Fatal(err)
			}
			if _, seq, _, held := claim("a", 52*time.Second); !held || seq != 7 {
				t.Errorf("a after b released: seq %d held %v", seq, held)
			}
		})
	}
}
