package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
)

// PerPage is the page size asked for: the plugin caps its lists at 50.
const PerPage = 50

// page is one fetched page of a list.
type page struct {
	n     int
	items []json.RawMessage
	total int // total pages the source announced (0: unknown)
	err   error
}

// listBody is the shape of the plugin's list answers.
type listBody map[string]json.RawMessage

// fetchPage gets one page of route and returns the items under key ("" for a wp/v2 list, a JSON
// array).
func (im *Importer) fetchPage(ctx context.Context, route, key string, q url.Values, n int) page {
	v := url.Values{}
	for k, vs := range q {
		v[k] = vs
	}
	v.Set("per_page", strconv.Itoa(PerPage))
	v.Set("page", strconv.Itoa(n))
	resp, err := im.client.Get(ctx, im.api.URL(route, v))
	if err != nil {
		var he *HTTPError
		// The plugin answers a list with nothing in it with an error, not an empty list.
		if n == 1 && errors.As(err, &he) && (he.Status == 404 || he.Status == 400) && emptyListCode(he.Code) {
			return page{n: n}
		}
		return page{n: n, err: err}
	}
	if key == "" {
		// wp/v2 lists are JSON arrays, counted in X-WP-TotalPages.
		p := page{n: n}
		if err := json.Unmarshal(resp.Body, &p.items); err != nil {
			return page{n: n, err: fmt.Errorf("page %d of %s is not a JSON list: %v", n, route, err)}
		}
		p.total, _ = strconv.Atoi(resp.Header.Get("X-WP-TotalPages"))
		return p
	}
	var body listBody
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return page{n: n, err: fmt.Errorf("page %d of %s is not a JSON object: %v", n, route, err)}
	}
	p := page{n: n}
	if raw, ok := body[key]; ok {
		if err := json.Unmarshal(raw, &p.items); err != nil {
			// A list under the key is required; an object (PHP's array with gaps) is read in order.
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return page{n: n, err: fmt.Errorf("page %d of %s: %q is not a list", n, route, key)}
			}
			for _, k := range sortedNumericKeys(obj) {
				p.items = append(p.items, obj[k])
			}
		}
	} else {
		return page{n: n, err: fmt.Errorf("page %d of %s has no %q", n, route, key)}
	}
	if tp, ok := body["total_pages"]; ok {
		var t int
		if json.Unmarshal(tp, &t) == nil {
			p.total = t
		}
	}
	if p.total == 0 {
		for _, h := range []string{"X-TEC-TotalPages", "X-WP-TotalPages"} {
			if t, err := strconv.Atoi(resp.Header.Get(h)); err == nil {
				p.total = t
				break
			}
		}
	}
	return p
}

func emptyListCode(code string) bool {
	switch code {
	case "event_list_empty", "venue_list_empty", "organizer_list_empty", "rest_invalid_page_number":
		return true
	}
	return false
}

// walk fetches every page of a list: page 1 says how many there are, the others are fetched
// concurrently (Options.Concurrency at a time). Pages past MaxPages are not fetched and reported;
// a page that fails after its retries is reported and the walk goes on.
func (im *Importer) walk(ctx context.Context, res Resource, route, key string, q url.Values) []json.RawMessage {
	first := im.fetchPage(ctx, route, key, q, 1)
	if first.err != nil {
		im.fail(res, "page 1", first.err)
		return nil
	}
	total := first.total
	if total == 0 && len(first.items) == PerPage {
		// No count announced: go on until a short page (up to MaxPages).
		total = -1
	}
	if total > im.opts.MaxPages {
		im.fail(res, fmt.Sprintf("pages %d-%d", im.opts.MaxPages+1, total),
			fmt.Errorf("the source announces %d pages, more than --max-pages %d: not fetched", total, im.opts.MaxPages))
		total = im.opts.MaxPages
	}
	pages := map[int][]json.RawMessage{1: first.items}
	if total == -1 {
		for n := 2; n <= im.opts.MaxPages; n++ {
			p := im.fetchPage(ctx, route, key, q, n)
			if p.err != nil {
				im.fail(res, fmt.Sprintf("page %d", n), p.err)
				break
			}
			pages[n] = p.items
			if len(p.items) < PerPage {
				break
			}
			if n == im.opts.MaxPages {
				im.fail(res, fmt.Sprintf("pages after %d", n), fmt.Errorf("the list did not end within --max-pages %d", n))
			}
		}
	} else if total > 1 {
		var mu sync.Mutex
		sem := make(chan struct{}, max(im.opts.Concurrency, 1))
		var wg sync.WaitGroup
		for n := 2; n <= total; n++ {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				p := im.fetchPage(ctx, route, key, q, n)
				mu.Lock()
				defer mu.Unlock()
				if p.err != nil {
					im.fail(res, fmt.Sprintf("page %d", n), p.err)
					return
				}
				pages[n] = p.items
			}()
		}
		wg.Wait()
	}
	last := 0
	for n := range pages {
		last = max(last, n)
	}
	var all []json.RawMessage
	for n := 1; n <= last; n++ {
		all = append(all, pages[n]...)
	}
	return all
}

// sortedNumericKeys orders an object's keys as numbers (PHP arrays that JSON encoded as objects).
func sortedNumericKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && num(keys[j]) < num(keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
