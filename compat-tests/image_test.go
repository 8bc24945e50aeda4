package compattests

import (
	"context"
	"testing"
	"time"
)

// replayImage runs the calendard image against the container's fixture and checks it the way the
// image is meant to be run: Docker's own HEALTHCHECK (calendard healthcheck → /healthz) must report
// it healthy, and it must answer the recorded read cases of one clock (the clock with the most
// cases; a container per clock would cost a start each) exactly as the process does.
func replayImage(t *testing.T, ctx context.Context, set *Set, db *dbContainer, image string, filter func(string) bool) {
	if err := db.CloneDatabase(ctx, "compat_fixture", "compat_image"); err != nil {
		t.Fatal(err)
	}
	byNow := map[string][]*Case{}
	best := ""
	for _, c := range set.Cases {
		if c.Group != "read" || !filter(c.Name) {
			continue
		}
		byNow[c.Now] = append(byNow[c.Now], c)
		if best == "" || len(byNow[c.Now]) > len(byNow[best]) {
			best = c.Now
		}
	}
	if best == "" {
		t.Fatal("no read case to replay against the image")
	}
	c, svc, err := calendardContainer(ctx, image, map[string]string{
		"CALENDAR_DB":          "mysql://" + db.DSN("compat_image"),
		"CALENDAR_NOW":         best,
		"CALENDAR_ENVIRONMENT": "local",
	})
	if err != nil {
		t.Fatalf("starting %s: %v", image, err)
	}
	terminateAtCleanup(t, c)
	// The image's HEALTHCHECK runs every 10 s: the first verdict comes within about that.
	if err := waitHealthy(ctx, c, 45*time.Second); err != nil {
		t.Fatalf("%s: %v", image, err)
	}
	t.Logf("%s: Docker reports it healthy (its HEALTHCHECK asks /healthz)", image)
	r := &runner{t: t, ctx: ctx, set: set, svc: svc}
	var results []result
	for _, c := range byNow[best] {
		for _, ns := range Spellings {
			results = append(results, r.run(c, ns))
		}
	}
	report(t, "mysql, calendard image "+image+", clock "+best, results)
}
