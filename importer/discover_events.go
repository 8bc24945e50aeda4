package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"sync"
)

// MaxProbes bounds the single-event requests that look for events no list shows.
const MaxProbes = 5000

// collectEvents finds every event of the source and what wp/v2 shows of each. No list shows them
// all: the plugin's v1 list leaves out events hidden from listings (_EventHideFromUpcoming), and
// its filter on wp/v2's list leaves out events that have ended. The union of both lists is
// completed by fetching each missing side one by one, and the IDs neither list shows (below the
// highest known one) are probed with the v1 single-event route: an event both hidden and past
// shows only there.
func (im *Importer) collectEvents(ctx context.Context) {
	raws := im.walk(ctx, Events, "/tribe/events/v1/events", "events", im.eventQuery())
	extras := im.extras(ctx, Events, "tribe_events")
	byID := map[int64]json.RawMessage{}
	var order []int64
	maxID := int64(0)
	add := func(raw json.RawMessage) {
		var v struct {
			ID int64 `json:"id"`
		}
		if json.Unmarshal(raw, &v) != nil || v.ID <= 0 {
			order = append(order, -int64(len(order))-1) // reported by the decoder later
			byID[-int64(len(order))] = raw
			return
		}
		if _, seen := byID[v.ID]; !seen {
			order = append(order, v.ID)
		}
		byID[v.ID] = raw
		maxID = max(maxID, v.ID)
	}
	for _, raw := range raws {
		add(raw)
	}
	single := func(id int64) string { return "/tribe/events/v1/events/" + strconv.FormatInt(id, 10) }
	var hidden []int64
	for id := range extras {
		maxID = max(maxID, id)
		if _, ok := byID[id]; !ok {
			hidden = append(hidden, id)
		}
	}
	for _, raw := range im.fetchEach(ctx, Events, hidden, single, false) {
		add(raw)
	}
	for _, raw := range im.fetchEach(ctx, Events, im.probes(byID, extras, maxID), single, true) {
		add(raw)
	}
	// changed are the events this run writes (a --since run leaves the others alone).
	changed := map[int64]bool{}
	for _, id := range order {
		if _, skip := im.unchanged(Events, byID[id], extras); !skip && id > 0 {
			changed[id] = true
		}
	}
	if im.opts.User != "" {
		var past []int64
		for _, id := range order {
			if _, ok := extras[id]; !ok && changed[id] {
				past = append(past, id)
			}
		}
		q := url.Values{"context": {"edit"}}
		route := func(id int64) string { return "/wp/v2/tribe_events/" + strconv.FormatInt(id, 10) }
		for _, raw := range im.fetchEachQ(ctx, Events, past, route, q, false) {
			if x, err := decodeExtra(raw); err == nil {
				extras[x.ID] = x
			} else {
				im.fail(Events, "wp/v2 "+itemName(raw), err)
			}
		}
	}
	var ids []int64
	for _, id := range order {
		if id > 0 {
			ids = append(ids, id)
		}
	}
	// A child names no parent: every event is asked for its children, when any event is written.
	if len(changed) > 0 {
		im.eventParents = im.parents(ctx, ids)
	}
	im.eventRaws = make([]json.RawMessage, 0, len(order))
	for _, id := range order {
		im.eventRaws = append(im.eventRaws, byID[id])
	}
	im.eventExtras = extras
}

// probes are the IDs to ask the single-event route for: in a full run every ID below the highest
// known one that no list shows; in a --since run the events imported earlier that no list shows
// (whether they are still there).
func (im *Importer) probes(byID map[int64]json.RawMessage, extras map[int64]*Extra, maxID int64) []int64 {
	var probe []int64
	if !im.since.IsZero() {
		for id := range im.imported[Events] {
			if _, ok := byID[id]; !ok && extras[id] == nil {
				probe = append(probe, id)
			}
		}
		return probe
	}
	for id := int64(1); id < maxID && len(probe) < MaxProbes; id++ {
		if _, ok := byID[id]; !ok {
			if _, ok := extras[id]; !ok {
				probe = append(probe, id)
			}
		}
	}
	if n := maxID - 1 - int64(len(byID)); n > MaxProbes {
		im.fail(Events, "probes", fmt.Errorf("%d IDs below %d are in no list; only %d were probed for events", n, maxID, MaxProbes))
	}
	return probe
}

// fetchEach fetches route(id) for each ID, Options.Concurrency at a time, and returns the answers
// in ID order. With probing, a 404 or 400 answer (no such event) is no failure.
func (im *Importer) fetchEach(ctx context.Context, res Resource, ids []int64, route func(int64) string, probing bool) []json.RawMessage {
	return im.fetchEachQ(ctx, res, ids, route, nil, probing)
}

func (im *Importer) fetchEachQ(ctx context.Context, res Resource, ids []int64, route func(int64) string, q url.Values, probing bool) []json.RawMessage {
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]json.RawMessage, len(ids))
	sem := make(chan struct{}, max(im.opts.Concurrency, 1))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			resp, err := im.client.Get(ctx, im.api.URL(route(id), q))
			if err != nil {
				var he *HTTPError
				if probing && errors.As(err, &he) && (he.Status == 404 || he.Status == 400 || he.Status == 403 || he.Status == 401) {
					return
				}
				// The source has the record: it is reported, never pruned.
				im.presentID(res, id)
				im.fail(res, "id "+strconv.FormatInt(id, 10), err)
				return
			}
			out[i] = resp.Body
		}()
	}
	wg.Wait()
	var found []json.RawMessage
	for _, b := range out {
		if b != nil {
			found = append(found, b)
		}
	}
	return found
}

// parents finds the events' post_parent: no record shows it, but the v1 list filters on it
// (post_parent=ID), so each event is asked for its children. A parent that is not an event is not
// found.
func (im *Importer) parents(ctx context.Context, ids []int64) map[int64]int64 {
	out := map[int64]int64{}
	var mu sync.Mutex
	sem := make(chan struct{}, max(im.opts.Concurrency, 1))
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			q := im.eventQuery()
			q.Set("post_parent", strconv.FormatInt(id, 10))
			q.Set("per_page", strconv.Itoa(PerPage))
			resp, err := im.client.Get(ctx, im.api.URL("/tribe/events/v1/events", q))
			if err != nil {
				var he *HTTPError
				if errors.As(err, &he) && emptyListCode(he.Code) {
					return
				}
				im.fail(Events, "children of "+strconv.FormatInt(id, 10), err)
				return
			}
			var body struct {
				Events []struct {
					ID int64 `json:"id"`
				} `json:"events"`
			}
			if err := json.Unmarshal(resp.Body, &body); err != nil {
				im.fail(Events, "children of "+strconv.FormatInt(id, 10), err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range body.Events {
				if c.ID != id {
					out[c.ID] = id
				}
			}
		}()
	}
	wg.Wait()
	return out
}
