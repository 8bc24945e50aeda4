// Package webhook delivers signed webhooks (Standard Webhooks) for the changes of the site's sync
// journal: one POST per journal entry per matching endpoint, in order, at least once, from a
// cursor kept in the site's database so that a restart or a fleet neither loses nor repeats more
// than the one message in flight.
package webhook

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// Resources are the journal's resource names an endpoint may filter on.
var Resources = []string{"events", "venues", "organizers", "categories", "tags"}

// Endpoint is one configured receiver.
type Endpoint struct {
	URL    string
	Secret []byte // the key, decoded from whsec_<base64>
	// Resources is the filter on the entry's resource (nil: all).
	Resources []string
	// Query is an events list query (categories=music&featured=true): an event is delivered only
	// when the events list with that query includes it. Other resources pass on Resources alone.
	Query url.Values
	// Timeout bounds one delivery; RetryMin and RetryMax bound the wait between attempts.
	Timeout            time.Duration
	RetryMin, RetryMax time.Duration
}

// Defaults of an endpoint's bounds.
const (
	DefaultTimeout  = 10 * time.Second
	DefaultRetryMin = time.Second
	DefaultRetryMax = 10 * time.Minute
)

// rawEndpoint is an endpoint as written in CALENDAR_WEBHOOKS.
type rawEndpoint struct {
	URL       string   `json:"url"`
	Secret    string   `json:"secret"`
	Resources []string `json:"resources"`
	Query     string   `json:"query"`
	Timeout   string   `json:"timeout"`
	RetryMin  string   `json:"retry_min"`
	RetryMax  string   `json:"retry_max"`
}

// Key identifies the endpoint in the cursor table: a hash of its URL (never of its secret), so that
// a rotated secret keeps the endpoint's place in the journal.
func (e *Endpoint) Key() string {
	sum := sha256.Sum256([]byte(e.URL))
	return hex.EncodeToString(sum[:16])
}

// Host is the endpoint's host[:port], what logs and metrics name it by (the URL's path or query
// may carry a token).
func (e *Endpoint) Host() string {
	u, err := url.Parse(e.URL)
	if err != nil {
		return "?"
	}
	return u.Host
}

// Wants reports whether the endpoint's resource filter lets resource through.
func (e *Endpoint) Wants(resource string) bool {
	return len(e.Resources) == 0 || slices.Contains(e.Resources, resource)
}

// Parse reads CALENDAR_WEBHOOKS: a JSON array of endpoints, inline or, as @PATH, in a file. No error
// quotes a secret or a URL (either may carry credentials): endpoints are named by their position.
func Parse(v string) ([]Endpoint, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	data := []byte(v)
	if path, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, errors.Unwrap(err))
		}
		data = b
	}
	var raws []rawEndpoint
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raws); err != nil {
		return nil, fmt.Errorf("must be a JSON array of {\"url\",\"secret\",\"resources\",\"query\",\"timeout\",\"retry_min\",\"retry_max\"} (or @PATH of a file holding one): %s", jsonError(err))
	}
	if len(raws) == 0 {
		return nil, errors.New("lists no endpoint")
	}
	out := make([]Endpoint, 0, len(raws))
	seen := map[string]bool{}
	for i, r := range raws {
		e, err := r.endpoint()
		if err != nil {
			return nil, fmt.Errorf("endpoint %d: %w", i+1, err)
		}
		if seen[e.URL] {
			return nil, fmt.Errorf("endpoint %d: its URL is listed twice", i+1)
		}
		seen[e.URL] = true
		out = append(out, e)
	}
	return out, nil
}

// jsonError describes a decoding error without the text it quotes.
func jsonError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s must be a JSON %s", typ.Field, goToJSON(typ.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return err.Error()[len("json: "):]
	}
	return "invalid JSON"
}

func goToJSON(kind string) string {
	switch kind {
	case "slice":
		return "array"
	case "struct":
		return "object"
	}
	return kind
}

func (r rawEndpoint) endpoint() (Endpoint, error) {
	e := Endpoint{URL: r.URL, Timeout: DefaultTimeout, RetryMin: DefaultRetryMin, RetryMax: DefaultRetryMax}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
		return e, errors.New("url must be an absolute http(s) URL without fragment")
	}
	key, err := DecodeSecret(r.Secret)
	if err != nil {
		return e, err
	}
	e.Secret = key
	for _, res := range r.Resources {
		if !slices.Contains(Resources, res) {
			return e, fmt.Errorf("resources: %q is none of %s", res, strings.Join(Resources, ", "))
		}
		if !slices.Contains(e.Resources, res) {
			e.Resources = append(e.Resources, res)
		}
	}
	if r.Query != "" {
		q, err := url.ParseQuery(strings.TrimPrefix(r.Query, "?"))
		if err != nil {
			return e, fmt.Errorf("query: %v", err)
		}
		for _, k := range []string{"include", "page", "per_page", "_fields", "_embed"} {
			if q.Has(k) {
				return e, fmt.Errorf("query: %s is not a filter", k)
			}
		}
		if !e.Wants("events") {
			return e, errors.New("query filters events, which resources leaves out")
		}
		e.Query = q
	}
	for _, d := range []struct {
		name     string
		v        string
		to       *time.Duration
		min, max time.Duration
	}{
		{"timeout", r.Timeout, &e.Timeout, 100 * time.Millisecond, 5 * time.Minute},
		{"retry_min", r.RetryMin, &e.RetryMin, 10 * time.Millisecond, time.Hour},
		{"retry_max", r.RetryMax, &e.RetryMax, 10 * time.Millisecond, 24 * time.Hour},
	} {
		if d.v == "" {
			continue
		}
		v, err := time.ParseDuration(d.v)
		if err != nil || v < d.min || v > d.max {
			return e, fmt.Errorf("%s must be a Go duration from %v to %v, got %q", d.name, d.min, d.max, d.v)
		}
		*d.to = v
	}
	if e.RetryMax < e.RetryMin {
		return e, errors.New("retry_max must not be below retry_min")
	}
	return e, nil
}

// DecodeSecret reads a Standard Webhooks secret, whsec_<base64 of 24 to 64 bytes>.
func DecodeSecret(s string) ([]byte, error) {
	b64, ok := strings.CutPrefix(s, "whsec_")
	if !ok {
		return nil, errors.New("secret must be whsec_<base64> (Standard Webhooks)")
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, errors.New("secret: the part after whsec_ is not base64")
	}
	if len(key) < 24 || len(key) > 64 {
		return nil, fmt.Errorf("secret must hold 24 to 64 bytes, holds %d", len(key))
	}
	return key, nil
}

// Secrets returns the secrets (as written and their base64 part) and URLs a CALENDAR_WEBHOOKS value
// carries, for the log scrubber; a value that does not parse yields what can be read of it.
func Secrets(v string) []string {
	v = strings.TrimSpace(v)
	if path, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		v = string(b)
	}
	var raws []rawEndpoint
	_ = json.Unmarshal([]byte(v), &raws)
	var out []string
	for _, r := range raws {
		if r.Secret != "" {
			out = append(out, r.Secret, strings.TrimPrefix(r.Secret, "whsec_"))
		}
	}
	return out
}
