package handlers_test

import (
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/testenv"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// Failed logins are limited per account and per client address: past the threshold the attempt is
// refused with 429 rest_too_many_logins and Retry-After, without checking the password, until the
// window ends. Successful logins are not counted and reset the account's count.
func TestFailedLoginLimiter(t *testing.T) {
	clock := &fakeClock{now: time.Now()}
	srv := newServer(t, handlers.Config{Logins: handlers.LoginLimit{PerAccount: 3, PerAddress: 8, Window: time.Minute, Clock: clock.Now},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	list := "/wp-json/tribe/events/v1/events?per_page=1"
	as := func(user, pass string, extra ...string) answer {
		hdr := basic(user, pass)
		if len(extra) == 2 {
			hdr[extra[0]] = extra[1]
		}
		return get(t, srv, list, hdr)
	}
	limited := func(a answer) bool {
		secs, _ := strconv.Atoi(a.header.Get("Retry-After"))
		return a.status == 429 && a.body["code"] == "rest_too_many_logins" && wpShaped(a) && secs > 0 && secs <= 60
	}
	// Successful logins never count.
	for i := 0; i < 20; i++ {
		if a := as("admin", adminPass); a.status != 200 {
			t.Fatalf("login %d: %d %.200s", i, a.status, a.raw)
		}
	}
	// One account: three failures lock it, the right password included, for the rest of the window.
	for i := 0; i < 3; i++ {
		if a := as("author", "wrong"); a.status != 401 {
			t.Fatalf("failure %d: %d %.200s", i, a.status, a.raw)
		}
	}
	for _, pass := range []string{"wrong", appPasswords["author"]} {
		if a := as("AUTHOR", pass); !limited(a) {
			t.Errorf("locked account, %s password: %d %v %.200s", pass, a.status, a.header.Get("Retry-After"), a.raw)
		}
	}
	// Other accounts from the same address still log in.
	if a := as("editor", appPasswords["editor"]); a.status != 200 {
		t.Errorf("another account: %d %.200s", a.status, a.raw)
	}
	// A success forgets the account's failures.
	for _, pass := range []string{"wrong", "wrong", appPasswords["editor"], "wrong", "wrong"} {
		if a := as("editor", pass); a.status == 429 {
			t.Errorf("editor locked after a success in between: %.200s", a.raw)
		}
	}
	// One address: eight failures (3 author, 4 editor, 1 unknown login; refused attempts do not count)
	// lock it out for every account; a client behind a trusted proxy is told apart by X-Forwarded-For.
	if a := as("nobody", "x"); a.status != 401 {
		t.Errorf("unknown user: %d", a.status)
	}
	if a := as("admin", adminPass); !limited(a) {
		t.Errorf("locked address: %d %.200s", a.status, a.raw)
	}
	if a := as("admin", adminPass, "X-Forwarded-For", "203.0.113.7"); a.status != 200 {
		t.Errorf("another client behind the proxy: %d %.200s", a.status, a.raw)
	}
	// The window ends: everyone may try again.
	clock.Add(time.Minute)
	if a := as("author", appPasswords["author"]); a.status != 200 {
		t.Errorf("after the window: %d %.200s", a.status, a.raw)
	}

	t.Run("off switch", func(t *testing.T) {
		srv := newServer(t, handlers.Config{Logins: handlers.LoginLimit{Off: true}})
		for i := 0; i < 40; i++ {
			if a := get(t, srv, list, basic("author", "wrong")); a.status != 401 {
				t.Fatalf("attempt %d: %d %.200s", i, a.status, a.raw)
			}
		}
	})
}

// Forwarding headers from a peer that is not a trusted proxy mean, most likely, a proxy nobody
// listed: every client has its address, and 20 failed logins lock everyone out. The server says so
// once in its log — naming the peer and the headers, never their values or a credential — and says
// nothing when the proxy is trusted or no forwarding header comes.
func TestUntrustedProxyIsWarnedOnce(t *testing.T) {
	const warning = "forwarding headers arrive from an address not in CALENDAR_TRUSTED_PROXIES"
	list := "/wp-json/tribe/events/v1/events?per_page=1"
	forwarded := []map[string]string{
		{"X-Forwarded-For": "203.0.113.7"},
		{"Forwarded": "for=203.0.113.8;proto=https"},
		{"X-Real-IP": "203.0.113.9"},
		{"X-Forwarded-For": "203.0.113.10, 198.51.100.11"},
	}
	serve := func(trusted ...netip.Prefix) (*httptest.Server, *testenv.SyncBuffer) {
		log := &testenv.SyncBuffer{}
		return newServer(t, handlers.Config{TrustedProxies: trusted, Logger: slog.New(slog.NewTextHandler(log, nil))}), log
	}
	send := func(srv *httptest.Server, hdr map[string]string) {
		h := basic("editor", "not-the-password")
		for k, v := range hdr {
			h[k] = v
		}
		// 401, or 429 once the account's failures reach the limit: twelve bad logins race to it,
		// and which of them see it depends on the machine's load. The warning is what is tested.
		if a := get(t, srv, list, h); a.status != 401 && a.status != 429 {
			t.Errorf("%v: %d %.200s", hdr, a.status, a.raw)
		}
	}

	srv, log := serve()
	var wg sync.WaitGroup
	for round := 0; round < 3; round++ {
		for _, hdr := range forwarded {
			wg.Add(1)
			go func() { defer wg.Done(); send(srv, hdr) }()
		}
	}
	wg.Wait()
	out := log.String()
	if n := strings.Count(out, warning); n != 1 {
		t.Fatalf("the warning was logged %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "peer=127.0.0.1") || !strings.Contains(out, "locked_out_after=20") {
		t.Errorf("the warning does not name the peer and the lockout:\n%s", out)
	}
	secrets := []string{"not-the-password", basic("editor", "not-the-password")["Authorization"], "203.0.113.", "198.51.100.11"}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("the log shows %q:\n%s", s, out)
		}
	}

	trusted, trustedLog := serve(netip.MustParsePrefix("127.0.0.0/8"))
	direct, directLog := serve()
	for _, hdr := range forwarded {
		send(trusted, hdr)
	}
	send(direct, nil)
	for name, out := range map[string]string{"trusted proxy": trustedLog.String(), "no forwarding header": directLog.String()} {
		if strings.Contains(out, warning) {
			t.Errorf("%s: warned:\n%s", name, out)
		}
	}
}
