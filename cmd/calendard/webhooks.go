package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/webhook"
	"github.com/calendard/calendard/wpdb"
)

// storeJournal is the store's sync journal as the dispatcher reads it.
type storeJournal struct{ *wpdb.Store }

func (j storeJournal) SyncSince(ctx context.Context, after int64, limit int) ([]webhook.Entry, error) {
	es, err := j.Store.SyncSince(ctx, after, limit)
	out := make([]webhook.Entry, len(es))
	for i, e := range es {
		out[i] = webhook.Entry{Seq: e.Seq, Resource: e.Resource, ID: e.ID, Deleted: e.Deleted, Status: e.Status, At: e.At}
	}
	return out, err
}

var _ webhook.Cursors = (*wpdb.WebhookCursors)(nil)

// startWebhooks runs the webhook dispatcher of CALENDAR_WEBHOOKS until ctx ends; stop waits for it
// to give its leases up. An endpoint's query is checked against the events list first: one the
// list refuses stops the start.
func startWebhooks(ctx context.Context, cfg *Config, store *wpdb.Store, api http.Handler, log *slog.Logger, reg *prometheus.Registry) (stop func(), err error) {
	match := func(ctx context.Context, e webhook.Entry, q url.Values) (bool, error) {
		waitSafe(ctx, store, e.Seq)
		return listIncludes(ctx, api, e.ID, q)
	}
	for i, ep := range cfg.Webhooks {
		if ep.Query == nil {
			continue
		}
		if _, err := listIncludes(ctx, api, 1, ep.Query); err != nil { // any valid ID: only the answer's status counts
			if _, refused := err.(*listRefused); refused {
				return nil, &ConfigError{Var: "CALENDAR_WEBHOOKS", Err: fmt.Errorf("endpoint %d: query: %w", i+1, err)}
			}
			log.Warn("webhook query not checked yet", "endpoint", ep.Host(), "err", err)
		}
	}
	var m *webhook.Metrics
	if reg != nil {
		m = webhook.NewMetrics(reg)
	}
	d, err := webhook.New(webhook.Options{
		Endpoints: cfg.Webhooks,
		Journal:   storeJournal{store},
		Cursors:   store.DB.WebhookCursors(),
		Match:     match,
		ItemURL: func(ctx context.Context, resource string, id int64) (string, error) {
			site, err := store.Site(ctx)
			if err != nil {
				return "", err
			}
			return handlers.RestURL(site, "/tribe/events/v1/"+resource+"/"+strconv.FormatInt(id, 10)), nil
		},
		Logger:  log,
		Metrics: m,
	})
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { d.Run(runCtx); close(done) }()
	log.Info("webhooks on", "endpoints", len(cfg.Webhooks))
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	}, nil
}

// safeWait bounds how long a query filter waits for this instance's lists to reflect an entry
// (a watermark poll or two); past it the list is asked as it is.
const safeWait = 10 * time.Second

// waitSafe waits until every answer of this instance reflects the journal's entry seq (the event
// index and the caches have applied it): a list asked earlier may not show the change yet.
func waitSafe(ctx context.Context, store *wpdb.Store, seq int64) {
	ctx, cancel := context.WithTimeout(ctx, safeWait)
	defer cancel()
	for {
		if _, safe, err := store.SyncSafeHead(ctx, false); err != nil || safe >= seq {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// listRefused is the events list's 4xx to an endpoint's query.
type listRefused struct {
	status  int
	message string
}

func (e *listRefused) Error() string {
	return fmt.Sprintf("the events list answers %d: %s", e.status, e.message)
}

// listIncludes asks the events list, as an anonymous visitor would, whether it includes event id
// under query q: the same code answers as the site's own list pages.
func listIncludes(ctx context.Context, api http.Handler, id int64, q url.Values) (bool, error) {
	v := url.Values{}
	for k, vs := range q {
		v[k] = vs
	}
	v.Set("include", strconv.FormatInt(id, 10))
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/wp-json/tribe/events/v1/events?"+v.Encode(), nil)
	req.RemoteAddr = "127.0.0.1:0"
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, req)
	var body struct {
		Events  []json.RawMessage `json:"events"`
		Message string            `json:"message"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	switch {
	case rec.Code == http.StatusOK:
		return len(body.Events) > 0, nil
	case rec.Code >= 400 && rec.Code < 500:
		return false, &listRefused{rec.Code, body.Message}
	}
	return false, fmt.Errorf("the events list answers %d", rec.Code)
}
