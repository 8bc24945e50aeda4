// Package importer migrates a live calendar from any WordPress site that runs The Events Calendar,
// over its REST API: it discovers the API, walks every page of the plugin's categories, tags,
// venues, organizers and events, checks each record and writes it through a Target (calendard's own
// write path in calendard import), keeping the source's IDs and slugs where it can.
package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client fetches the source's REST API with bounded bodies, a bounded number of redirects, retries
// with backoff and Retry-After.
type Client struct {
	HTTP           *http.Client
	User, Password string // HTTP Basic with an application password; "" for anonymous
	// MaxBody bounds one response body (default 16 MiB): a page that never ends is cut off there.
	MaxBody int64
	// Retries is how many times a failed request (network error, 429, 5xx) is tried again (default 4).
	Retries int
	// Backoff is the first wait between tries, doubled each time up to MaxBackoff (defaults 250 ms, 15 s);
	// a Retry-After header wins, bounded by MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// UserAgent is sent with every request.
	UserAgent string
}

// maxRedirects bounds a redirect chain (a loop ends there with an error).
const maxRedirects = 5

// NewClient returns a client with the defaults and a per-request timeout.
func NewClient(timeout time.Duration) *Client {
	return &Client{HTTP: &http.Client{Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("more than %d redirects (last %s)", maxRedirects, req.URL.Redacted())
		}
		return nil
	}}}
}

// Response is one answer of the source.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// HTTPError is an answer the source gave with a status that is not 2xx.
type HTTPError struct {
	URL     string
	Status  int
	Code    string // the WordPress error code, when the body is one
	Message string
}

func (e *HTTPError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("%s: HTTP %d %s: %s", e.URL, e.Status, e.Code, e.Message)
	}
	return fmt.Sprintf("%s: HTTP %d", e.URL, e.Status)
}

// ErrBodyTooLarge is returned for a response longer than MaxBody.
var ErrBodyTooLarge = errors.New("response body larger than the limit")

func (c *Client) maxBody() int64 {
	if c.MaxBody > 0 {
		return c.MaxBody
	}
	return 16 << 20
}

// Get fetches u, retrying what may succeed on another try.
func (c *Client) Get(ctx context.Context, u string) (*Response, error) {
	retries := c.Retries
	if retries == 0 {
		retries = 4
	}
	backoff, maxBackoff := c.Backoff, c.MaxBackoff
	if backoff <= 0 {
		backoff = 250 * time.Millisecond
	}
	if maxBackoff <= 0 {
		maxBackoff = 15 * time.Second
	}
	var lastErr error
	for attempt := 0; ; attempt++ {
		resp, wait, err := c.once(ctx, u)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		if wait < 0 || attempt >= retries {
			return nil, lastErr
		}
		if wait == 0 {
			// Exponential backoff with jitter, so concurrent walkers do not retry in step.
			wait = backoff << attempt
			wait = wait/2 + time.Duration(rand.Int64N(int64(wait/2)+1))
		}
		wait = min(wait, maxBackoff)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// once sends one request. wait < 0 means the error is final; 0 means retry after the backoff; more
// is the source's Retry-After.
func (c *Client) once(ctx context.Context, u string) (*Response, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, -1, err
	}
	req.Header.Set("Accept", "application/json")
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if c.User != "" {
		req.SetBasicAuth(c.User, c.Password)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "redirects") {
			return nil, -1, err
		}
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody()+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: reading the body: %w", redactURL(u), err)
	}
	if int64(len(body)) > c.maxBody() {
		return nil, -1, fmt.Errorf("%s: %w (%d bytes)", redactURL(u), ErrBodyTooLarge, c.maxBody())
	}
	if resp.StatusCode/100 == 2 {
		return &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, 0, nil
	}
	he := &HTTPError{URL: redactURL(u), Status: resp.StatusCode}
	he.Code, he.Message = wpError(body)
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
		return nil, retryAfter(resp.Header.Get("Retry-After")), he
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestTimeout:
		return nil, 0, he
	}
	return nil, -1, he
}

// retryAfter reads a Retry-After header (seconds or an HTTP date); 0 when absent or unreadable.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// redactURL drops user information from a URL for messages.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.Redacted()
}
