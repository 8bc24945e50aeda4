package handlers

import (
	"strings"

	"github.com/calendard/calendard"
)

// corsPolicy decides which origins get CORS headers. WordPress' rest_send_cors_headers reflects any
// Origin, "null" included, with credentials allowed; calendard does the same unless a list of
// allowed origins is configured.
type corsPolicy struct {
	any     bool
	origins map[string]bool
}

func newCORSPolicy(origins []string) corsPolicy {
	p := corsPolicy{origins: map[string]bool{}}
	for _, o := range origins {
		o = normalizeOrigin(o)
		if o == "*" {
			p.any = true
		}
		if o != "" {
			p.origins[o] = true
		}
	}
	if len(p.origins) == 0 {
		p.any = true
	}
	return p
}

// normalizeOrigin compares origins as browsers send them: scheme://host[:port], case-insensitive,
// without a trailing slash.
func normalizeOrigin(o string) string {
	return strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/"))
}

func (p corsPolicy) allows(origin string) bool {
	return p.any || p.origins[normalizeOrigin(origin)]
}

// corsHeaders are the CORS headers of an answer to a request from origin ("" when none was sent).
func (s *Server) corsHeaders(origin string, user *calendard.User, method string) []calendard.KV {
	switch {
	case origin != "" && s.cors.allows(origin):
		return []calendard.KV{
			{Key: "Access-Control-Allow-Origin", Value: origin},
			{Key: "Access-Control-Allow-Methods", Value: "OPTIONS, GET, POST, PUT, PATCH, DELETE"},
			{Key: "Access-Control-Allow-Credentials", Value: "true"},
			{Key: "Vary", Value: "Origin"}}
	case origin != "" || (!user.LoggedIn() && method == "GET"):
		// An origin that is not allowed gets no CORS headers; the answer still varies by origin.
		return corsVaryOrigin
	}
	return nil
}

// corsVaryOrigin is shared by every answer that gets it (callers never modify what corsHeaders
// returns): a cached hit allocates nothing for it.
var corsVaryOrigin = []calendard.KV{{Key: "Vary", Value: "Origin"}}
