// Package service puts calendard together: the running store and the HTTP layer over it, with
// search in front when configured. It is the one wiring `calendard serve` and the tests use, so a
// test runs the store as production runs it (change feed, event index, loaded records kept) unless
// it names what differs.
package service

import (
	"context"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/handlers/ical"
	"github.com/calendard/calendard/handlers/tribe"
	"github.com/calendard/calendard/handlers/wpv2"
	"github.com/calendard/calendard/internal/wpauth"
	"github.com/calendard/calendard/wpdb"
)

// Live is how serve runs the store unless configured otherwise (the defaults of
// CALENDAR_WATCH_INTERVAL, CALENDAR_RECONCILE_INTERVAL and CALENDAR_RECORD_CACHE; the event index on).
var Live = wpdb.StartOptions{WatchInterval: time.Second, Reconcile: 5 * time.Minute, Records: 5000}

// Cold is how serve runs the store with CALENDAR_WATCH_INTERVAL=0, CALENDAR_EVENT_INDEX=off and
// CALENDAR_RECORD_CACHE=0: nothing kept between requests, every answer read from the rows. Tests
// that need an answer from SQL alone (an oracle for the live store, a count of the queries a
// request makes, a database that never answers) run it.
var Cold = wpdb.StartOptions{NoIndex: true}

// Start returns the store over db, running until ctx ends: the change feed polled every
// o.WatchInterval, the event index built in the background (unless o.NoIndex), loaded records kept
// (o.Records).
func Start(ctx context.Context, db *wpdb.DB, overrides wpdb.SiteOverrides, o wpdb.StartOptions) *wpdb.Store {
	store := wpdb.NewStore(db, overrides)
	store.Start(ctx, o)
	return store
}

// Search is what Meilisearch (package search) or the geo filters put in front of the store; a nil
// field keeps the store's own answer (Ranked nil: orderby=relevance is ignored, as the plugin does;
// Geo nil: no geo filters).
type Search struct {
	Events calendard.EventService
	Ranked tribe.RankedEvents
	Linked calendard.LinkedService
	Geo    calendard.GeoService
}

// wiring is what Handler puts together: the services of the plugin's routes and the keys of the
// front end's login cookie.
type wiring struct {
	plugin tribe.Services
	keys   wpauth.LoggedInKeys
}

// Option names what a wiring differs in from the store alone.
type Option func(*wiring)

// WithLoggedInKeys validates WordPress' logged-in cookie on the front-end pages (the iCal exports)
// with wp-config.php's LOGGED_IN_KEY and LOGGED_IN_SALT; without them every such request is
// anonymous.
func WithLoggedInKeys(keys wpauth.LoggedInKeys) Option {
	return func(w *wiring) { w.keys = keys }
}

// WithSearch answers searches, relevance order and the geo filters through s.
func WithSearch(s Search) Option {
	return func(w *wiring) {
		d := &w.plugin
		if s.Events != nil {
			d.Events = s.Events
		}
		if s.Linked != nil {
			d.Linked = s.Linked
		}
		d.Ranked, d.Geo = s.Ranked, s.Geo
	}
}

// Handler is the HTTP API over store with cfg's settings (the clock, limits, the response cache
// ...): the only place the handlers get their services.
func Handler(cfg handlers.Config, store *wpdb.Store, opts ...Option) *gin.Engine {
	w := wiring{plugin: tribe.Services{Events: store, Linked: store, Posts: store, Users: store.DB, Terms: store, TermQuery: store,
		Writer: store.DB, Generation: store.Generation, Sync: store}}
	for _, o := range opts {
		o(&w)
	}
	// The exports read the store itself: search in front (WithSearch) answers the REST lists only.
	exports := ical.New(ical.Deps{Site: store, Events: store, Posts: store, Terms: store, Users: store.DB, Options: store.DB},
		w.keys, cfg.Clock, cfg.Logger)
	cfg.FrontEnd = exports.Serve
	core := wpv2.Services{Store: store, Users: store.DB, Terms: store, TermQuery: store, Writer: store.DB}
	return handlers.New(cfg, handlers.Deps{Site: store, DB: store.DB, Users: store.DB},
		tribe.Routes(w.plugin, tribe.Options{StrictReads: cfg.StrictReads, Geo: cfg.Geo, GeoRadiusKM: cfg.GeoRadiusKM,
			RenderCacheBytes: cfg.RenderCacheBytes, ICalMaxEvents: cfg.ICalMaxEvents}),
		wpv2.Routes(core))
}
