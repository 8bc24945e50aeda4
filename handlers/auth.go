package handlers

import (
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/calendard/calendard"
)

// basicCredentials extracts Basic credentials the way PHP and WordPress do: the scheme is
// case-insensitive, the user ends at the first colon, an empty password or undecodable token means no
// credentials at all.
func basicCredentials(header string) (user, pass string, ok bool) {
	if len(header) < 6 || !strings.EqualFold(header[:6], "basic ") {
		return "", "", false
	}
	token := strings.TrimSpace(header[6:])
	raw, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		// PHP's base64_decode also takes tokens without padding.
		if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(token, "=")); err != nil {
			return "", "", false
		}
	}
	user, pass, found := strings.Cut(string(raw), ":")
	if !found || pass == "" {
		return "", "", false
	}
	return user, pass, true
}

// secure is is_ssl() plus the trusted-proxy rule: TLS on this connection, or a trusted proxy that says
// the client used HTTPS.
func (s *Server) secure(c *gin.Context) bool { return s.secureRequest(c.Request) }

// remoteHost is clientIP for a plain request: REMOTE_ADDR, the TCP peer.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// secureRequest is secure for a request not (yet) in Gin's hands (the response cache's first look).
func (s *Server) secureRequest(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if !strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") || len(s.cfg.TrustedProxies) == 0 {
		return false
	}
	addr, err := netip.ParseAddr(remoteHost(r))
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// authenticate resolves the caller. Credentials are ignored (anonymous) when application passwords
// are unavailable, exactly like WordPress; wrong credentials are a 401 before any routing. Failed
// logins are limited per account and per client address: past the limit the attempt is not even
// checked, and answers 429 with the headers to send (Retry-After).
func (s *Server) authenticate(ctx context.Context, c *gin.Context, site *calendard.Site, now time.Time) (*calendard.User, *calendard.Error, []calendard.KV) {
	login, pass, ok := basicCredentials(c.GetHeader("Authorization"))
	if !ok {
		return calendard.Anonymous, nil, nil
	}
	if !site.UsingAppPasswords {
		return calendard.Anonymous, nil, nil
	}
	if !(s.cfg.Environment == "local" || s.secure(c)) {
		s.warnPlainHTTPCredentials()
		return calendard.Anonymous, nil, nil
	}
	account, addr := loginAccount(login), s.loginAddress(c)
	if wait := s.logins.blocked(account, addr); wait > 0 {
		e, hdrs := errTooManyLogins(wait)
		return calendard.Anonymous, e, hdrs
	}
	user, err := calendard.AuthenticateAppPassword(ctx, s.deps.Users, site, login, pass, now, clientIP(c))
	if err != nil {
		var e *calendard.Error
		if errors.As(err, &e) {
			s.logins.failed(account, addr)
			return calendard.Anonymous, e, nil
		}
		if ctx.Err() == context.DeadlineExceeded {
			return calendard.Anonymous, errDBTimeout, nil
		}
		s.log.Error("authenticating", "err", err)
		return calendard.Anonymous, errUnavailable, nil
	}
	s.logins.succeeded(account)
	return user, nil, nil
}

// warnPlainHTTPCredentials says once why credentials sent over plain HTTP changed nothing: as in
// WordPress, the request is then anonymous and a write answers a bare 401, which tells an operator
// trying the service without TLS nothing.
func (s *Server) warnPlainHTTPCredentials() {
	if s.plainHTTPWarned.CompareAndSwap(false, true) {
		s.log.Warn("application password ignored: it arrived over plain HTTP, and outside CALENDAR_ENVIRONMENT=local "+
			"WordPress and calendard accept application passwords only over TLS; serve calendard behind a TLS proxy listed "+
			"in CALENDAR_TRUSTED_PROXIES (sending X-Forwarded-Proto: https), or set CALENDAR_ENVIRONMENT=local on a "+
			"development machine (logged once)", "environment", s.cfg.Environment)
	}
}
