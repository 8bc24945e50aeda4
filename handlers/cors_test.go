package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/calendard/calendard/handlers"
)

// By default any Origin is reflected with credentials, as WordPress does; a configured list limits
// CORS headers to its origins. Either way the plugin's totals are exposed with WordPress' headers.
func TestCORSOrigins(t *testing.T) {
	const expose = "X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, X-Calendard-Sync-Token, X-Calendard-Sync-More"
	list := "/wp-json/tribe/events/v1/events?per_page=1"
	t.Run("default reflects any origin, as WordPress", func(t *testing.T) {
		srv := newServer(t, handlers.Config{})
		for _, origin := range []string{"https://front.example", "null", "http://evil.test"} {
			a := get(t, srv, list, map[string]string{"Origin": origin})
			h := a.header
			if h.Get("Access-Control-Allow-Origin") != origin || h.Get("Access-Control-Allow-Credentials") != "true" || h.Get("Vary") != "Origin" {
				t.Errorf("%s: %v", origin, h)
			}
			if h.Get("Access-Control-Expose-Headers") != expose {
				t.Errorf("%s: exposes %q", origin, h.Get("Access-Control-Expose-Headers"))
			}
			if a.header.Get("X-TEC-Total") == "" {
				t.Errorf("%s: no X-TEC-Total", origin)
			}
		}
		if a := get(t, srv, list, nil); a.header.Get("Access-Control-Allow-Origin") != "" || a.header.Get("Vary") != "Origin" {
			t.Errorf("no origin: %v", a.header)
		}
	})
	t.Run("a configured list", func(t *testing.T) {
		srv := newServer(t, handlers.Config{CORSOrigins: []string{"https://front.example", "HTTP://Localhost:3000/"}})
		for origin, allowed := range map[string]bool{
			"https://front.example": true, "http://localhost:3000": true, "https://FRONT.example": true,
			"null": false, "http://evil.test": false, "https://front.example.evil.test": false, "http://front.example": false,
		} {
			for _, method := range []string{"GET", "OPTIONS"} {
				req := list
				a := get(t, srv, req, map[string]string{"Origin": origin})
				if method == "OPTIONS" {
					a = request(t, srv, "OPTIONS", req, map[string]string{"Origin": origin, "Access-Control-Request-Method": "GET"})
				}
				got := a.header.Get("Access-Control-Allow-Origin")
				if allowed && (got != origin || a.header.Get("Access-Control-Allow-Credentials") != "true") {
					t.Errorf("%s %s: allowed origin got %v", method, origin, a.header)
				}
				if !allowed && (got != "" || a.header.Get("Access-Control-Allow-Credentials") != "" || a.header.Get("Access-Control-Allow-Methods") != "") {
					t.Errorf("%s %s: refused origin got %v", method, origin, a.header)
				}
				if a.header.Get("Vary") != "Origin" {
					t.Errorf("%s %s: Vary %q", method, origin, a.header.Get("Vary"))
				}
				if a.status >= 500 {
					t.Errorf("%s %s: %d", method, origin, a.status)
				}
			}
		}
	})
}

func request(t *testing.T, srv *httptest.Server, method, path string, hdr map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return do(t, req)
}
