package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// Entry is one change of the sync journal (wpdb.SyncEntry).
type Entry struct {
	Seq      int64
	Resource string // events, venues, organizers, categories, tags
	ID       int64
	Deleted  bool   // the row is gone; trash and draft are Deleted=false with their Status
	Status   string // post_status after the change ("" for terms and deleted rows)
	At       time.Time
}

// Journal is the change journal the dispatcher reads (wpdb.Store's sync journal).
type Journal interface {
	// SyncSince returns up to limit entries with Seq > after, in Seq order.
	SyncSince(ctx context.Context, after int64, limit int) ([]Entry, error)
	// SyncHead returns the journal's epoch (new when the journal starts afresh), its last Seq
	// and the oldest Seq a reader may follow from: the entries up to it are pruned.
	SyncHead(ctx context.Context) (epoch string, head, oldest int64, err error)
	// SyncWake is signalled (or closed) when entries are appended.
	SyncWake() <-chan struct{}
}

// Cursors keeps each endpoint's place in the journal, with a lease so that one instance of a fleet
// delivers for an endpoint at a time.
type Cursors interface {
	// Claim takes key's lease for owner until until, or renews it, unless another owner's lease
	// runs past now (held false). found is false for an endpoint never seen (seq 0, epoch "").
	Claim(ctx context.Context, key, owner string, now, until time.Time) (epoch string, seq int64, found, held bool, err error)
	// Advance stores key's cursor while owner holds its lease (false when it no longer does).
	Advance(ctx context.Context, key, owner, epoch string, seq int64) (bool, error)
	// Release gives the lease up.
	Release(ctx context.Context, key, owner string) error
}

// Options configure a Dispatcher.
type Options struct {
	Endpoints []Endpoint
	Journal   Journal
	Cursors   Cursors
	// Match reports whether the events list with query includes the entry's event (the
	// endpoint's Query filter), as answered once the list reflects the entry; required when an
	// endpoint has a Query.
	Match func(ctx context.Context, e Entry, query url.Values) (bool, error)
	// ItemURL is the REST URL of an item, for the payload.
	ItemURL func(ctx context.Context, resource string, id int64) (string, error)
	Logger  *slog.Logger
	Metrics *Metrics // nil: none
	// Lease is how long a claim on an endpoint lasts without renewal (default 30 s, and at least
	// three times the endpoint's timeout); an instance that dies without releasing it holds the
	// endpoint that long.
	Lease time.Duration
	// Poll is how often the journal is read when no wake-up comes (default 2 s).
	Poll time.Duration
	// Owner names this instance in the lease (default random).
	Owner string
	// Transport sends the requests (default: a clone of http.DefaultTransport).
	Transport http.RoundTripper
}

// Dispatcher delivers the journal's entries to the endpoints, one goroutine each.
type Dispatcher struct {
	o       Options
	client  *http.Client
	workers []*worker
}

// errorWait is the least wait after a failing round (the journal or the cursor table unreachable),
// so that the log is not flooded.
const errorWait = 5 * time.Second

// batch is how many entries one journal read returns.
const batch = 200

// New checks the options and builds a dispatcher; Run starts it.
func New(o Options) (*Dispatcher, error) {
	if o.Journal == nil || o.Cursors == nil || o.ItemURL == nil {
		return nil, errors.New("webhook: Journal, Cursors and ItemURL are required")
	}
	for i := range o.Endpoints {
		if o.Endpoints[i].Query != nil && o.Match == nil {
			return nil, errors.New("webhook: an endpoint filters by query and Match is nil")
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.Owner == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		o.Owner = hex.EncodeToString(b)
	}
	if o.Transport == nil {
		o.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	d := &Dispatcher{o: o, client: &http.Client{Transport: o.Transport,
		// A redirect is the receiver's answer, not a hop to follow with the signed body.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	labels := hostLabels(o.Endpoints)
	for i := range o.Endpoints {
		ep := &o.Endpoints[i]
		// An attempt renews nothing while it waits for an answer: the lease outlasts it.
		lease := max(o.Lease, 3*ep.Timeout)
		d.workers = append(d.workers, &worker{d: d, ep: ep, key: ep.Key(), label: labels[i], lease: lease, wake: make(chan struct{}, 1)})
	}
	return d, nil
}

// hostLabels names each endpoint by its host, with its key's start when hosts repeat.
func hostLabels(eps []Endpoint) []string {
	count := map[string]int{}
	for i := range eps {
		count[eps[i].Host()]++
	}
	out := make([]string, len(eps))
	for i := range eps {
		out[i] = eps[i].Host()
		if count[out[i]] > 1 {
			out[i] += "#" + eps[i].Key()[:8]
		}
	}
	return out
}

// Run delivers until ctx ends, then gives up the leases it holds.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, w := range d.workers {
		wg.Go(func() { w.run(ctx) })
	}
	wg.Go(func() { d.fanOut(ctx) })
	wg.Wait()
}

// fanOut passes the journal's wake-ups to every worker.
func (d *Dispatcher) fanOut(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.o.Journal.SyncWake():
		}
		for _, w := range d.workers {
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
}

// errLeaseLost stops a worker's round: another instance now delivers for the endpoint.
var errLeaseLost = errors.New("lease lost")

type worker struct {
	d          *Dispatcher
	ep         *Endpoint
	key, label string
	lease      time.Duration
	wake       chan struct{}
	epoch      string
	cursor     int64
	leaseUntil time.Time
}

func (w *worker) log() *slog.Logger { return w.d.o.Logger.With("endpoint", w.label) }

func (w *worker) run(ctx context.Context) {
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = w.d.o.Cursors.Release(rctx, w.key, w.d.o.Owner)
	}()
	for ctx.Err() == nil {
		wait, err := w.round(ctx)
		if err != nil && ctx.Err() == nil && !errors.Is(err, errLeaseLost) {
			w.log().Warn("webhook dispatcher", "err", err)
			wait = max(w.d.o.Poll, errorWait)
		}
		if wait > 0 {
			w.idle(ctx, wait)
		}
	}
}

// idle waits for d, a wake-up or the end.
func (w *worker) idle(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-w.wake:
	}
}

// claim takes or renews the lease and loads the cursor; false when another instance holds it.
func (w *worker) claim(ctx context.Context) (bool, error) {
	now := time.Now()
	until := now.Add(w.lease)
	epoch, seq, found, held, err := w.d.o.Cursors.Claim(ctx, w.key, w.d.o.Owner, now, until)
	if err != nil || !held {
		return false, err
	}
	w.leaseUntil = until
	w.epoch, w.cursor = epoch, seq
	if !found {
		w.epoch = ""
		w.cursor = -1
	}
	return true, nil
}

// round delivers what the journal holds past the cursor; it returns how long to wait before the
// next round.
func (w *worker) round(ctx context.Context) (time.Duration, error) {
	held, err := w.claim(ctx)
	if err != nil {
		return 0, err
	}
	if !held {
		// Another instance delivers; take over when its lease runs out.
		return w.lease / 2, nil
	}
	epoch, head, oldest, err := w.d.o.Journal.SyncHead(ctx)
	if err != nil {
		return 0, err
	}
	if err := w.place(ctx, epoch, head, oldest); err != nil {
		return 0, err
	}
	w.d.o.Metrics.pending(w.label, head-w.cursor)
	entries, err := w.d.o.Journal.SyncSince(ctx, w.cursor, batch)
	if err != nil {
		return 0, err
	}
	if len(entries) == 0 {
		// Renew well before the lease runs out.
		return min(w.d.o.Poll, w.lease/3), nil
	}
	done := w.cursor
	for _, e := range entries {
		if e.Seq <= done {
			continue
		}
		want, err := w.wants(ctx, e)
		if err != nil {
			return 0, err
		}
		if want {
			if err := w.renew(ctx); err != nil {
				return 0, err
			}
			if err := w.deliver(ctx, e); err != nil {
				return 0, err
			}
		}
		done = e.Seq
		if want {
			if err := w.advance(ctx, done); err != nil {
				return 0, err
			}
		}
	}
	if done != w.cursor {
		if err := w.advance(ctx, done); err != nil {
			return 0, err
		}
	}
	w.d.o.Metrics.pending(w.label, max(head, done)-done)
	return 0, nil
}

// place sets the cursor against the journal: a new endpoint starts at its head (no history); a
// journal started afresh (new epoch) is delivered from its start; entries the journal dropped
// before they were delivered are lost, said and counted.
func (w *worker) place(ctx context.Context, epoch string, head, oldest int64) error {
	switch {
	case w.cursor < 0:
		w.log().Info("webhook endpoint starts at the journal's head", "seq", head)
		w.epoch, w.cursor = epoch, head
		return w.advance(ctx, head)
	case w.epoch != epoch:
		w.log().Warn("the sync journal started afresh: delivering it from its start; changes of the old journal not yet delivered are lost",
			"delivered_through", w.cursor)
		w.d.o.Metrics.lose(w.label, 0)
		w.epoch = epoch
		return w.advance(ctx, oldest)
	}
	if w.cursor < oldest {
		lost := oldest - w.cursor
		w.log().Error("webhook messages lost: the receiver was behind longer than the journal keeps changes",
			"lost", lost, "delivered_through", w.cursor, "journal_pruned_through", oldest)
		w.d.o.Metrics.lose(w.label, lost)
		return w.advance(ctx, oldest)
	}
	return nil
}

func (w *worker) advance(ctx context.Context, seq int64) error {
	ok, err := w.d.o.Cursors.Advance(ctx, w.key, w.d.o.Owner, w.epoch, seq)
	if err != nil {
		return err
	}
	if !ok {
		return errLeaseLost
	}
	w.cursor = seq
	return nil
}

// renew extends the lease when half of it has passed.
func (w *worker) renew(ctx context.Context) error {
	if time.Until(w.leaseUntil) > w.lease/2 {
		return nil
	}
	cursor, epoch := w.cursor, w.epoch
	held, err := w.claim(ctx)
	if err != nil {
		return err
	}
	if !held || w.cursor != cursor || w.epoch != epoch {
		// Another instance held the endpoint meanwhile: start over from the stored cursor.
		return errLeaseLost
	}
	return nil
}

// wants applies the endpoint's filter. An event that is deleted or no longer published passes a
// query filter unasked: it may have left the list the receiver shows.
func (w *worker) wants(ctx context.Context, e Entry) (bool, error) {
	if !w.ep.Wants(e.Resource) {
		return false, nil
	}
	if w.ep.Query == nil || e.Resource != "events" || e.Deleted || e.Status != "publish" {
		return true, nil
	}
	ok, err := w.d.o.Match(ctx, e, w.ep.Query)
	if err != nil {
		return false, fmt.Errorf("matching event %d against the endpoint's query: %w", e.ID, err)
	}
	return ok, nil
}

// deliver posts e until the receiver answers 2xx, waiting between attempts with exponential
// backoff and jitter; only the end of ctx or a lost lease stops it.
func (w *worker) deliver(ctx context.Context, e Entry) error {
	itemURL, err := w.d.o.ItemURL(ctx, e.Resource, e.ID)
	if err != nil {
		return err
	}
	body, err := Body(e, itemURL)
	if err != nil {
		return err
	}
	id := MessageID(w.epoch, e.Seq)
	bo := &backoff.ExponentialBackOff{InitialInterval: w.ep.RetryMin, RandomizationFactor: 0.5, Multiplier: 2, MaxInterval: w.ep.RetryMax}
	bo.Reset()
	for attempt := 1; ; attempt++ {
		status, err := w.post(ctx, id, body)
		if err == nil && status/100 == 2 {
			w.d.o.Metrics.delivered(w.label, "success", time.Now())
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		next := min(bo.NextBackOff(), w.ep.RetryMax)
		args := []any{"id", id, "attempt", attempt, "retry_in", next.Round(time.Millisecond).String()}
		result := "http_error"
		if err != nil {
			result = "transport_error"
			args = append(args, "err", err.Error())
		} else {
			args = append(args, "status", status)
		}
		w.d.o.Metrics.delivered(w.label, result, time.Time{})
		w.log().Warn("webhook delivery failed", args...)
		if err := w.sleep(ctx, next); err != nil {
			return err
		}
	}
}

// sleep waits d, renewing the lease meanwhile.
func (w *worker) sleep(ctx context.Context, d time.Duration) error {
	end := time.Now().Add(d)
	for {
		left := time.Until(end)
		if left <= 0 {
			return nil
		}
		t := time.NewTimer(min(left, w.lease/3))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		if err := w.renew(ctx); err != nil {
			return err
		}
	}
}

// post sends one attempt, signed at its own time; the error never holds the URL (its path or
// query may carry a token).
func (w *worker) post(ctx context.Context, id string, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, w.ep.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.ep.URL, bytes.NewReader(body))
	if err != nil {
		return 0, errors.New("invalid request")
	}
	now := time.Now()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "calendard-webhooks")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", Sign(w.ep.Secret, id, now, body))
	resp, err := w.d.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, fmt.Errorf("no answer within %v", w.ep.Timeout)
		}
		return 0, err
	}
	// Drain a little so the connection is reused; the answer's body means nothing here.
	_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
	resp.Body.Close()
	return resp.StatusCode, nil
}
