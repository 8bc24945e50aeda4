package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// API addresses the source's REST API: either a root URL that routes are appended to
// (https://example.org/wp-json) or the plain form (https://example.org/?rest_route=/route).
type API struct {
	Root      string // root URL without a trailing slash
	RestRoute bool   // routes go into ?rest_route=
}

// URL is the address of route (starting with "/") with query parameters.
func (a API) URL(route string, q url.Values) string {
	if a.RestRoute {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("rest_route", route)
		sep := "?"
		if strings.Contains(a.Root, "?") {
			sep = "&"
		}
		return a.Root + sep + v.Encode()
	}
	u := a.Root + route
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// linkRe finds the REST API's address in a Link header.
var linkRe = regexp.MustCompile(`<([^>]+)>\s*;\s*rel="https://api\.w\.org/"`)

// Index is what the API's index tells about the site.
type Index struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	URL            string   `json:"url"`
	Home           string   `json:"home"`
	GMTOffset      any      `json:"gmt_offset"`
	TimezoneString string   `json:"timezone_string"`
	Namespaces     []string `json:"namespaces"`
}

// Discover finds the REST API of the site at site: the Link header with rel="https://api.w.org/" of
// the site's front page, else /wp-json/, else /?rest_route=/. The index must list tribe/events/v1.
func Discover(ctx context.Context, c *Client, site string) (API, *Index, error) {
	site = strings.TrimRight(strings.TrimSpace(site), "/")
	u, err := url.Parse(site)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return API{}, nil, fmt.Errorf("--from %q is not an http(s) URL", site)
	}
	var candidates []API
	if resp, err := c.Get(ctx, site+"/"); err == nil {
		for _, h := range resp.Header.Values("Link") {
			if m := linkRe.FindStringSubmatch(h); m != nil {
				root := m[1]
				if strings.Contains(root, "rest_route=") {
					root = strings.TrimSuffix(strings.SplitN(root, "rest_route=", 2)[0], "?")
					root = strings.TrimSuffix(root, "&")
					candidates = append(candidates, API{Root: strings.TrimRight(root, "/") + "/", RestRoute: true})
				} else {
					candidates = append(candidates, API{Root: strings.TrimRight(root, "/")})
				}
			}
		}
	}
	candidates = append(candidates, API{Root: site + "/wp-json"}, API{Root: site + "/", RestRoute: true})
	var errs []string
	for _, a := range candidates {
		resp, err := c.Get(ctx, a.URL("/", nil))
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		idx := &Index{}
		if err := json.Unmarshal(resp.Body, idx); err != nil {
			errs = append(errs, fmt.Sprintf("%s: not a REST API index: %v", a.URL("/", nil), err))
			continue
		}
		for _, ns := range idx.Namespaces {
			if ns == "tribe/events/v1" {
				return a, idx, nil
			}
		}
		errs = append(errs, fmt.Sprintf("%s: the REST API has no tribe/events/v1 namespace (is The Events Calendar active?)", a.URL("/", nil)))
	}
	return API{}, nil, fmt.Errorf("no REST API found at %s: %s", site, strings.Join(errs, "; "))
}

// wpError reads a WordPress error body ({"code","message"}).
func wpError(body []byte) (code, message string) {
	var e struct {
		Code    any    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil {
		return "", ""
	}
	if s, ok := e.Code.(string); ok {
		code = s
	}
	if len(e.Message) > 200 {
		e.Message = e.Message[:200] + "…"
	}
	return code, e.Message
}
