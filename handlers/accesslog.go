package handlers

import (
	"context"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// The access log (Config.AccessLog): one structured line per request, written when its answer is.
// It names the request by an ID, the client's X-Request-ID when that is a sane one, else a new one,
// echoed in the answer's X-Request-ID so that a proxy's log, a client's report and this line can
// be matched. Only the path and a redacted query are logged: never the Authorization header,
// cookies or the values of parameters that may hold secrets.

// maxRequestIDBytes bounds an accepted X-Request-ID (longer ones are replaced).
const maxRequestIDBytes = 128

// routeKey holds the route label of an answer cachedFirst served (it has no exchange).
const routeKey = "calendard.route"

// requestID returns the client's ID when it is 1 to maxRequestIDBytes printable ASCII characters
// without spaces, else a new random one (32 hex digits).
func requestID(given string) string {
	if n := len(given); n > 0 && n <= maxRequestIDBytes {
		ok := true
		for i := 0; i < n && ok; i++ {
			ok = given[i] > ' ' && given[i] < 0x7f
		}
		if ok {
			return given
		}
	}
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := rand.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return hex.EncodeToString(b[:])
}

// secretParam reports whether a query parameter's name suggests a secret value.
func secretParam(name string) bool {
	name = strings.ToLower(name)
	for _, w := range []string{"pass", "pwd", "secret", "token", "key", "auth", "nonce", "signature", "session", "cookie"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// redactQuery masks the values of parameters whose names suggest secrets (password=, api_key=,
// _wpnonce=, …); the rest of the raw query is kept as sent.
func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	var b strings.Builder
	for part := range strings.SplitSeq(raw, "&") {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		name, _, hasValue := strings.Cut(part, "=")
		if hasValue && secretParam(name) {
			b.WriteString(name)
			b.WriteString("=xxxxx")
			continue
		}
		b.WriteString(part)
	}
	return b.String()
}

// accessLog is the first middleware when the access log is on.
func (s *Server) accessLog() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		id := requestID(c.Request.Header.Get("X-Request-ID"))
		c.Writer.Header()["X-Request-Id"] = []string{id}
		c.Next()
		route, cacheResult := "", ""
		if ex := exchangeOf(c); ex != nil {
			route, cacheResult = ex.route, ex.result.String()
		} else if v, ok := c.Get(routeKey); ok {
			route, cacheResult = v.(string), "HIT"
		}
		r := c.Request
		s.log.LogAttrs(context.Background(), slog.LevelInfo, "request",
			slog.String("id", id),
			slog.String("method", r.Method),
			slog.String("route", route),
			slog.String("path", r.URL.Path),
			slog.String("query", redactQuery(r.URL.RawQuery)),
			slog.Int("status", c.Writer.Status()),
			slog.Duration("duration", time.Since(start)),
			slog.Int("bytes", max(c.Writer.Size(), 0)),
			slog.String("cache", cacheResult),
			slog.String("client", clientIP(c)),
		)
	}
}
