package handlers_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/internal/service"
	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/wpdb"
)

// BenchmarkEventUpdate is the cost of one event update through the whole handler on MariaDB, as a
// started store runs it: authentication, the write's transaction (revision, meta, occurrences, the
// change log), the change feed's announcement and the event index's patch; without the network.
//
//	go test ./handlers/ -run '^$' -bench EventUpdate -benchtime 200x
func BenchmarkEventUpdate(b *testing.B) {
	dsn := testenv.FixtureDB(b, fixture, "bench_wr")
	db, err := wpdb.OpenMySQL(dsn, "wp_")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := service.Start(ctx, db, wpdb.SiteOverrides{}, service.Live)
	h := service.Handler(handlers.Config{Environment: "local", DBTimeout: time.Minute}, store)
	auth := basic("admin", appPasswords["admin"])
	update := func(i int) {
		body := fmt.Sprintf(`{"title":"Benchmark night %d","start_date":"2027-05-10 10:00:00","end_date":"2027-05-10 12:00:00"}`, i)
		req := httptest.NewRequest("POST", "/wp-json/tribe/events/v1/events/34", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range auth {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("update: %d %.300s", rec.Code, rec.Body.String())
		}
	}
	update(-1) // the first one logs in and warms the caches
	b.ResetTimer()
	for i := range b.N {
		update(i)
	}
}
