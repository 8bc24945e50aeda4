package handlers_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/testenv"
)

// hugeBody is head + unit repeated + tail, about size bytes, streamed; it returns the exact length.
func hugeBody(head, unit, tail string, size int) (io.Reader, int64) {
	n := (size - len(head) - len(tail)) / len(unit)
	return io.MultiReader(strings.NewReader(head), &testenv.RepeatReader{Unit: unit, N: n}, strings.NewReader(tail)),
		int64(len(head) + n*len(unit) + len(tail))
}

// post sends a body to the events collection, anonymously unless hdr says otherwise; length < 0
// sends it chunked.
func post(t *testing.T, srv *httptest.Server, path, contentType string, body io.Reader, length int64, hdr map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest("POST", srv.URL+path, body)
	if err != nil {
		t.Error(err)
		return answer{}
	}
	req.ContentLength = max(length, 0)
	if length < 0 {
		req.ContentLength = -1
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

// wpShaped reports whether an answer is a WordPress error body with its status in data.
func wpShaped(a answer) bool {
	data, _ := a.body["data"].(map[string]any)
	code, _ := a.body["code"].(string)
	msg, _ := a.body["message"].(string)
	return code != "" && msg != "" && data["status"] == float64(a.status)
}

// heapPeak samples the live heap until stop is closed and returns the largest value seen.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// 16 anonymous clients sending 8 MB bodies at once, three rounds of each kind of bomb (a JSON array
// of numbers, a JSON array of objects, a form of a[]= pairs), must all get a WordPress-shaped answer
// quickly while the heap stays bounded (without the budgets they grow the process by gigabytes and
// leave most requests unanswered: what this guards against). A JSON bomb is refused as soon as it
// exceeds the per-request decode budget (400 rest_request_too_complex); a form keeps PHP's
// max_input_vars, so it gets the answer a small body of the same shape gets; whatever does not fit
// in the process-wide budget at the moment gets 503 rest_server_busy with Retry-After at once.
func TestHugeBodiesStayBounded(t *testing.T) {
	srv := newServer(t, handlers.Config{})
	const (
		size    = 8_000_000
		clients = 16
		rounds  = 3
		// heapBound is what the test allows the heap to grow by, budgets included (64 MiB of bodies
		// in flight) and garbage the collector has not reclaimed yet.
		heapBound = 256 << 20
	)
	kinds := []struct {
		name, contentType, head, unit, tail, small string
	}{
		{"json numbers", "application/json", "[", "1,", "1]", "[1,1,1]"},
		{"json objects", "application/json", "[", "{},", "{}]", "[{},{},{}]"},
		{"form pairs", "application/x-www-form-urlencoded", "", "a[]=&", "a[]=", "a[]=&a[]=&a[]="},
		// Not a bomb but the costliest body that fits every budget: one 8 MB string, held decoded.
		{"one long string", "application/json", `{"title":"`, "x", `"}`, `{"title":"xxx"}`},
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop := make(chan struct{})
	peakc := heapPeak(stop)
	var worst time.Duration
	counts := map[string]int{}
	var mu sync.Mutex
	for _, k := range kinds {
		small := post(t, srv, eventsPath, k.contentType, strings.NewReader(k.small), int64(len(k.small)), nil)
		if small.status != 401 && small.status != 400 || !wpShaped(small) {
			t.Fatalf("%s: small body answered %d %.200s", k.name, small.status, small.raw)
		}
		for round := 0; round < rounds; round++ {
			var wg sync.WaitGroup
			for i := 0; i < clients; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					body, n := hugeBody(k.head, k.unit, k.tail, size)
					if i%4 == 3 {
						n = -1 // chunked: charged as it is read
					}
					start := time.Now()
					a := post(t, srv, eventsPath, k.contentType, body, n, nil)
					took := time.Since(start)
					mu.Lock()
					defer mu.Unlock()
					worst = max(worst, took)
					counts[k.name+" "+strconv.Itoa(a.status)+" "+fmt.Sprint(a.body["code"])]++
					switch {
					case a.status == 503:
						if a.body["code"] != "rest_server_busy" || a.header.Get("Retry-After") == "" || !wpShaped(a) {
							t.Errorf("%s: busy answer %d %v %.200s", k.name, a.status, a.header, a.raw)
						}
					case strings.HasPrefix(k.contentType, "application/json") && k.unit != "x":
						if a.status != 400 || a.body["code"] != "rest_request_too_complex" || !wpShaped(a) {
							t.Errorf("%s: %d %.200s, want 400 rest_request_too_complex", k.name, a.status, a.raw)
						}
					default:
						if a.status != small.status || a.body["code"] != small.body["code"] || !wpShaped(a) {
							t.Errorf("%s: %d %.200s, want the small body's %d %v", k.name, a.status, a.raw, small.status, small.body["code"])
						}
					}
				}(i)
			}
			wg.Wait()
		}
	}
	close(stop)
	peak := <-peakc
	grown := int64(peak) - int64(base.HeapAlloc)
	t.Logf("%d×%d rounds×%d bodies of %d bytes: heap %d MiB before, peak %d MiB (+%d MiB), slowest answer %v; answers %v",
		len(kinds), rounds, clients, size, base.HeapAlloc>>20, peak>>20, grown>>20, worst.Round(time.Millisecond), counts)
	if grown > heapBound {
		t.Errorf("heap grew by %d MiB, bound %d MiB", grown>>20, heapBound>>20)
	}
	if worst > 20*time.Second {
		t.Errorf("slowest answer took %v", worst)
	}
	// Every share of the budget was given back: a body that fits is served as usual.
	if a := post(t, srv, eventsPath, "application/json", strings.NewReader("[1,1,1]"), 7, nil); a.status == 503 {
		t.Errorf("after the storm: %d %.200s", a.status, a.raw)
	}
}

// The per-request decode budget: values and decoded bytes; under it, answers are unchanged.
func TestDecodeBudgetPerRequest(t *testing.T) {
	srv := newServer(t, handlers.Config{MaxBodyValues: 20, MaxDecodedBytes: 4096})
	admin := basic("admin", adminPass)
	list := func(n int) string { return "[" + strings.Repeat("1,", n-1) + "1]" }
	tests := []struct {
		name, body string
		status     int
		code       string
	}{
		{"a body within both budgets is served", `{"title":"T","start_date":"2027-01-01 10:00","end_date":"2027-01-01 11:00","tags":` + list(5) + `}`, 201, ""},
		{"too many values", `{"title":"T","tags":` + list(30) + `}`, 400, "rest_request_too_complex"},
		{"too many bytes once decoded", `{"title":"` + strings.Repeat("x", 5000) + `"}`, 400, "rest_request_too_complex"},
		{"malformed JSON is still a JSON error", `{"title":`, 400, "rest_invalid_json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := post(t, srv, eventsPath, "application/json", strings.NewReader(tc.body), int64(len(tc.body)), admin)
			if a.status != tc.status || (tc.code != "" && a.body["code"] != tc.code) || (a.status >= 400 && !wpShaped(a)) {
				t.Errorf("%d %.300s, want %d %s", a.status, a.raw, tc.status, tc.code)
			}
		})
	}
}

// rawRequest writes head (a request without its body, or with part of it) on a fresh connection,
// then waits up to wait for the answer, without sending anything more.
func rawRequest(t *testing.T, srv *httptest.Server, head string, wait time.Duration) (*http.Response, string, time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer within %v: %v", wait, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), time.Since(start)
}

// Bodies that do not fit are refused before they are read: a declared length over the limit is a
// 413, one the process budget cannot hold now a 503 with Retry-After, both at once and WordPress-shaped.
func TestBodiesRefusedBeforeReading(t *testing.T) {
	srv := newServer(t, handlers.Config{MaxBodyBytes: 1 << 20, BodyMemory: 64 << 10})
	head := func(length int) string {
		return "POST /wp-json/tribe/events/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(length) + "\r\n\r\n{\"title\":"
	}
	for _, tc := range []struct {
		name   string
		length int
		status int
		code   string
	}{
		{"over the size limit", 2 << 20, 413, "rest_request_too_large"},
		{"over the process budget", 100 << 10, 503, "rest_server_busy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, took := rawRequest(t, srv, head(tc.length), 5*time.Second)
			if resp.StatusCode != tc.status || !strings.Contains(body, `"code":"`+tc.code+`"`) || !strings.Contains(body, `"status":`+strconv.Itoa(tc.status)) {
				t.Errorf("%d %.200s, want %d %s", resp.StatusCode, body, tc.status, tc.code)
			}
			if tc.status == 503 && resp.Header.Get("Retry-After") == "" {
				t.Error("no Retry-After")
			}
			if took > time.Second {
				t.Errorf("answered after %v, want at once", took)
			}
		})
	}
}

// A body that arrives too slowly is a 408 rest_request_timeout (not a 413, too large), after the
// configured time and not much later; declared or chunked.
func TestSlowBodyTimesOut(t *testing.T) {
	const timeout = 400 * time.Millisecond
	srv := newServer(t, handlers.Config{BodyTimeout: timeout})
	for _, tc := range []struct{ name, head string }{
		{"declared length", "POST /wp-json/tribe/events/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"title\":"},
		{"chunked", "POST /wp-json/tribe/events/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n{\"title\":\r\n"},
		{"form", "POST /wp-json/tribe/events/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntitle=x&"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, took := rawRequest(t, srv, tc.head, 10*time.Second)
			if resp.StatusCode != 408 || !strings.Contains(body, `"code":"rest_request_timeout"`) || !strings.Contains(body, `"status":408`) {
				t.Errorf("%d %.200s, want 408 rest_request_timeout", resp.StatusCode, body)
			}
			if took < timeout || took > timeout+time.Second {
				t.Errorf("answered after %v, want about %v", took, timeout)
			}
		})
	}
	// A body that arrives in time is not affected, and neither is the next request on the connection.
	a := post(t, srv, eventsPath, "application/json", strings.NewReader(`{"title":"T"}`), 13, nil)
	if a.status != 400 || a.body["code"] != "rest_missing_callback_param" {
		t.Errorf("prompt body: %d %.200s, want the usual 400 rest_missing_callback_param", a.status, a.raw)
	}
}

// A request line longer than 8 KiB is a 414 with a WordPress-shaped body, as nginx or Apache in front
// of WordPress answer (there, a bare 414 page); shorter ones are served as usual.
func TestLongRequestLineIs414(t *testing.T) {
	srv := newServer(t, handlers.Config{})
	base := "/wp-json/tribe/events/v1/events?search="
	ok := get(t, srv, base+strings.Repeat("x", 8<<10-len(base)), nil)
	if ok.status != 200 {
		t.Errorf("8 KiB request line: %d %.200s", ok.status, ok.raw)
	}
	for _, n := range []int{8<<10 - len(base) + 1, 100 << 10, 900 << 10} {
		start := time.Now()
		a := get(t, srv, base+strings.Repeat("x", n), nil)
		if a.status != 414 || a.body["code"] != "rest_uri_too_long" || !wpShaped(a) {
			t.Errorf("%d bytes: %d %.200s, want 414 rest_uri_too_long", n, a.status, a.raw)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%d bytes: answered after %v", n, d)
		}
	}
	if a := get(t, newServer(t, handlers.Config{MaxURIBytes: 100}), base+strings.Repeat("x", 100), nil); a.status != 414 {
		t.Errorf("a configured limit of 100: %d", a.status)
	}
}
