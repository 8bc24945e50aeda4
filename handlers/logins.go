package handlers

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/calendard/calendard"
)

// LoginLimit configures the failed-login limiter. WordPress core has none; sites add one, and
// calendard has it built in. Zero fields take the defaults; a negative threshold switches that
// count off.
type LoginLimit struct {
	// Off disables the limiter.
	Off bool
	// PerAccount is how many failed logins of one account (from any address) within Window lock it
	// until the window ends (default 10).
	PerAccount int
	// PerAddress is how many failed logins from one client address (an IPv6 address counts by its
	// /64) within Window lock that address out (default 20).
	PerAddress int
	// Window is the period failures are counted in, from the first one (default 15 minutes).
	Window time.Duration
	// Clock is the limiter's time (tests); the real clock by default, never CALENDAR_NOW's.
	Clock func() time.Time
}

const (
	defaultLoginsPerAccount = 10
	defaultLoginsPerAddress = 20
	defaultLoginWindow      = 15 * time.Minute
	// maxLoginKeys bounds the memory of each table; when it is full of live entries the oldest
	// window is forgotten first.
	maxLoginKeys = 100000
)

// loginLimiter counts failed logins per account and per client address in fixed windows.
type loginLimiter struct {
	cfg      LoginLimit
	mu       sync.Mutex
	accounts map[string]*failures
	addrs    map[string]*failures
}

type failures struct {
	count int
	start time.Time
}

func newLoginLimiter(cfg LoginLimit) *loginLimiter {
	setDefault(&cfg.PerAccount, defaultLoginsPerAccount)
	setDefault(&cfg.PerAddress, defaultLoginsPerAddress)
	setDefault(&cfg.Window, defaultLoginWindow)
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &loginLimiter{cfg: cfg, accounts: map[string]*failures{}, addrs: map[string]*failures{}}
}

// blocked reports how long the account or address must wait before trying again (0: not locked).
func (l *loginLimiter) blocked(account, addr string) time.Duration {
	if l.cfg.Off {
		return 0
	}
	now := l.cfg.Clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(l.wait(l.accounts, account, l.cfg.PerAccount, now), l.wait(l.addrs, addr, l.cfg.PerAddress, now))
}

func (l *loginLimiter) wait(m map[string]*failures, key string, limit int, now time.Time) time.Duration {
	f := m[key]
	if limit <= 0 || f == nil || f.count < limit {
		return 0
	}
	return max(f.start.Add(l.cfg.Window).Sub(now), 0)
}

// failed counts a failed login.
func (l *loginLimiter) failed(account, addr string) {
	if l.cfg.Off {
		return
	}
	now := l.cfg.Clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cfg.PerAccount > 0 {
		l.count(l.accounts, account, now)
	}
	if l.cfg.PerAddress > 0 {
		l.count(l.addrs, addr, now)
	}
}

func (l *loginLimiter) count(m map[string]*failures, key string, now time.Time) {
	f := m[key]
	if f == nil || now.Sub(f.start) >= l.cfg.Window {
		if f == nil && len(m) >= maxLoginKeys {
			l.prune(m, now)
		}
		f = &failures{start: now}
		m[key] = f
	}
	f.count++
}

// prune drops ended windows; if every window is still running, the older half goes.
func (l *loginLimiter) prune(m map[string]*failures, now time.Time) {
	for k, f := range m {
		if now.Sub(f.start) >= l.cfg.Window {
			delete(m, k)
		}
	}
	if len(m) < maxLoginKeys {
		return
	}
	cut := now.Add(-l.cfg.Window / 2)
	for k, f := range m {
		if f.start.Before(cut) {
			delete(m, k)
		}
	}
	if len(m) >= maxLoginKeys {
		clear(m)
	}
}

// succeeded forgets the account's failures: whoever knows its password is not guessing it. The
// address keeps its count (one valid account must not reset a guesser's budget).
func (l *loginLimiter) succeeded(account string) {
	if l.cfg.Off {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.accounts, account)
}

// loginAccount is the key of an account: the login (or e-mail) as typed, case-folded, as WordPress
// finds it under its case-insensitive collation.
func loginAccount(login string) string {
	return strings.ToLower(strings.TrimSpace(calendard.SanitizeUser(login)))
}

// loginAddress is the client address failures count against: the TCP peer, or, when the peer is
// a trusted proxy, the last address in X-Forwarded-For that is not one; IPv6 clients by their /64.
func (s *Server) loginAddress(c *gin.Context) string {
	addr, err := netip.ParseAddr(clientIP(c))
	if err != nil {
		return clientIP(c)
	}
	addr = addr.Unmap()
	if s.trustedProxy(addr) {
		hops := strings.Split(strings.Join(c.Request.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break
			}
			addr = hop.Unmap()
			if !s.trustedProxy(addr) {
				break
			}
		}
	}
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

func (s *Server) trustedProxy(addr netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// errTooManyLogins is the limiter's 429, with the seconds to wait in Retry-After.
func errTooManyLogins(wait time.Duration) (*calendard.Error, []calendard.KV) {
	secs := strconv.Itoa(int(math.Ceil(wait.Seconds())))
	return &calendard.Error{Code: "rest_too_many_logins", Status: 429,
			Message: "Too many failed login attempts. Try again in " + secs + " seconds."},
		[]calendard.KV{{Key: "Retry-After", Value: secs}}
}

// forwardingHeaders are the headers a reverse proxy adds to name the client it forwards for.
var forwardingHeaders = []string{"X-Forwarded-For", "Forwarded", "X-Real-IP"}

// untrustedProxyCheck logs once, at the first request that shows it, that forwarding headers come
// from a peer not in TrustedProxies. That is most likely a reverse proxy nobody listed: every
// client then has the proxy's address, so the failed logins of all of them count against one
// address, and once they reach the per-address limit nobody can log in for the window; and the
// proxy's X-Forwarded-Proto: https is not believed either. Only the peer address and the header
// names are logged, never their values or any credential.
func (s *Server) untrustedProxyCheck() gin.HandlerFunc {
	return func(c *gin.Context) {
		if !s.untrustedProxyWarned.Load() {
			s.checkForwarding(c.Request.Header, clientIP(c))
		}
		c.Next()
	}
}

func (s *Server) checkForwarding(h http.Header, peer string) {
	var present []string
	for _, name := range forwardingHeaders {
		if len(h.Values(name)) > 0 {
			present = append(present, name)
		}
	}
	if len(present) == 0 {
		return
	}
	addr, err := netip.ParseAddr(peer)
	if err == nil && s.trustedProxy(addr.Unmap()) {
		return
	}
	if !s.untrustedProxyWarned.CompareAndSwap(false, true) {
		return
	}
	attrs := []any{"peer", peer, "headers", strings.Join(present, ", ")}
	msg := "forwarding headers arrive from an address not in CALENDAR_TRUSTED_PROXIES: if calendard runs behind a proxy there, list it, or every client has the proxy's address"
	if l := s.logins.cfg; !l.Off && l.PerAddress > 0 {
		msg += " and failed logins from all of them count as one address's"
		attrs = append(attrs, "locked_out_after", l.PerAddress, "for", l.Window)
	}
	s.log.Warn(msg+" (logged once)", attrs...)
}
