package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
	"github.com/calendard/calendard/webhook"
)

// TestServeWebhooks runs calendard serve on MariaDB with two endpoints on one real receiver: one
// for every change, one for featured events only (evaluated by the events list). Changes come
// through the REST API and as direct SQL edits (WordPress' own); the receiver goes down; calendard
// is stopped with a delivery pending and started again, the receiver back. After deduplication by webhook-id, the first endpoint saw every journal entry
// exactly once, in order; the second only the featured event and the trashed one; every request
// verifies with npm's standardwebhooks; no secret, signature or URL token is in any log.
func TestServeWebhooks(t *testing.T) {
	testenv.SkipIfShort(t, "mariadbd, node and npm's standardwebhooks")
	maria := testenv.SharedMariaDB(t)
	name := testenv.DBName("hooks", t)
	ctx := context.Background()
	if err := maria.CreateDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	sqldb, err := sql.Open("mysql", maria.DSN(name))
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()

	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("served-webhook-secret-0123456789"))
	all := testenv.StartReceiver(t, nil)
	featured := testenv.StartReceiver(t, nil)
	hooks := fmt.Sprintf(`[{"url":%q,"secret":%q,"retry_min":"50ms","retry_max":"500ms"},
		{"url":%q,"secret":%q,"resources":["events"],"query":"featured=true","retry_min":"50ms","retry_max":"500ms"}]`,
		all.URL(), secret, featured.URL(), secret)
	env := cleanEnv("CALENDAR_DB=mysql://"+maria.DSN(name), "CALENDAR_WEBHOOKS="+hooks, "CALENDAR_WATCH_INTERVAL=100ms",
		"CALENDAR_SITE_URL=http://cal.test", "CALENDAR_METRICS=public", "CALENDAR_ENVIRONMENT=local")
	mig := runCmd(t, env, time.Minute, "migrate")
	if mig.err != nil {
		t.Fatalf("migrate: %v\n%s", mig.err, mig.output())
	}
	m := regexp.MustCompile(`application password:\s*\n\s*\n\s+(\S[^\n]*)\n`).FindStringSubmatch(mig.stdout)
	if m == nil {
		t.Fatalf("no application password in:\n%s", mig.stdout)
	}
	appPass := strings.TrimSpace(m[1])

	bin := cliBinary(t)
	addr, stop, logs1 := serveOnFreePort(t, bin, "127.0.0.1", env)
	var logs2 *testenv.SyncBuffer
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range []*testenv.Receiver{all, featured} {
				for _, d := range r.Deliveries() {
					t.Logf("%s got %s %s", r.Addr, d.ID, d.Body)
				}
			}
			t.Logf("first run's log:\n%s", logs1.String())
			if logs2 != nil {
				t.Logf("second run's log:\n%s", logs2.String())
			}
		}
	})
	waitUntil(t, "both endpoints placed", time.Minute, func() bool { return strings.Count(logs1.String(), "starts at the journal's head") == 2 })
	var epoch string
	var startHead int64
	if err := sqldb.QueryRow("SELECT epoch, head FROM wp_calendard_sync_state WHERE id = 1").Scan(&epoch, &startHead); err != nil {
		t.Fatal(err)
	}
	write := func(addr, path string, body any) int64 {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/wp-json/tribe/events/v1/"+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.SetBasicAuth("admin", appPass)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		var v struct{ ID int64 }
		if resp.StatusCode != http.StatusCreated || json.Unmarshal(out, &v) != nil || v.ID == 0 {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, out)
		}
		return v.ID
	}
	seen := func(r *testenv.Receiver, resource string, id int64, status string) bool {
		for _, d := range r.Deliveries() {
			var p webhook.Payload
			if json.Unmarshal(d.Body, &p) == nil && p.Data.Resource == resource && p.Data.ID == id && p.Data.Status == status {
				return true
			}
		}
		return false
	}
	lastSeq := func(r *testenv.Receiver, resource string, id int64) int64 {
		var last int64
		for _, d := range r.Deliveries() {
			var p webhook.Payload
			if json.Unmarshal(d.Body, &p) == nil && p.Data.Resource == resource && p.Data.ID == id {
				last = max(last, p.Data.Seq)
			}
		}
		return last
	}

	// A REST write, then a direct SQL edit of the same event, as WordPress makes it (its modified
	// date moves on: the change feed's watermark follows the newest one, to the second).
	plain := write(addr, "events", map[string]any{"title": "Plain", "start_date": "2027-01-01 10:00:00", "end_date": "2027-01-01 11:00:00", "status": "publish"})
	waitUntil(t, "the new event delivered", time.Minute, func() bool { return seen(all, "events", plain, "publish") })
	before := lastSeq(all, "events", plain)
	if _, err := sqldb.Exec("UPDATE wp_posts SET post_title = 'Plain, edited in WordPress', post_modified_gmt = DATE_ADD(UTC_TIMESTAMP(), INTERVAL 10 SECOND) WHERE ID = ?", plain); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the direct edit delivered", time.Minute, func() bool { return lastSeq(all, "events", plain) > before })
	gala := write(addr, "events", map[string]any{"title": "Gala", "start_date": "2027-02-01 19:00:00", "end_date": "2027-02-01 23:00:00", "status": "publish", "featured": true})
	waitUntil(t, "the featured event delivered to both", time.Minute, func() bool {
		return seen(all, "events", gala, "publish") && seen(featured, "events", gala, "publish")
	})

	// The receiver goes down; a venue is created; calendard stops with it pending.
	all.Down()
	venue := write(addr, "venues", map[string]any{"venue": "Hall", "status": "publish"})
	waitUntil(t, "a failed delivery", time.Minute, func() bool { return strings.Contains(logs1.String(), "webhook delivery failed") })
	stop()
	if err := all.Up(); err != nil {
		t.Fatal(err)
	}
	addr2, stop2, logs2b := serveOnFreePort(t, bin, "127.0.0.1", env)
	logs2 = logs2b
	waitUntil(t, "the pending venue delivered after the restart", time.Minute, func() bool { return seen(all, "venues", venue, "publish") })
	if _, err := sqldb.Exec("UPDATE wp_posts SET post_status = 'trash', post_modified_gmt = DATE_ADD(UTC_TIMESTAMP(), INTERVAL 20 SECOND) WHERE ID = ?", plain); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the venue and the trashed event delivered", time.Minute, func() bool {
		return seen(all, "venues", venue, "publish") && seen(all, "events", plain, "trash") && seen(featured, "events", plain, "trash")
	})

	// Every journal entry past the start, exactly once and in order, to the first endpoint.
	waitUntil(t, "nothing pending", time.Minute, func() bool {
		return strings.Contains(metricsText(t, addr2), `calendard_webhook_pending{endpoint="`+all.Addr+`"} 0`)
	})
	rows, err := sqldb.Query("SELECT seq, resource, object_id FROM wp_calendard_sync WHERE seq > ? ORDER BY seq", startHead)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var seq, id int64
		var res string
		if err := rows.Scan(&seq, &res, &id); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%s %s/%d", webhook.MessageID(epoch, seq), res, id))
	}
	rows.Close()
	var got []string
	for _, d := range testenv.Unique(all.Deliveries()) {
		var p webhook.Payload
		_ = json.Unmarshal(d.Body, &p)
		got = append(got, fmt.Sprintf("%s %s/%d", d.ID, p.Data.Resource, p.Data.ID))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("delivered (deduplicated):\n%s\nthe journal holds:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var fgot []string
	for _, d := range testenv.Unique(featured.Deliveries()) {
		var p webhook.Payload
		_ = json.Unmarshal(d.Body, &p)
		fgot = append(fgot, fmt.Sprintf("%s/%d %s", p.Data.Resource, p.Data.ID, p.Data.Status))
	}
	if w := fmt.Sprintf("events/%d publish\nevents/%d trash", gala, plain); strings.Join(fgot, "\n") != w {
		t.Errorf("the featured endpoint got:\n%s\nwant:\n%s", strings.Join(fgot, "\n"), w)
	}
	if p := payloadOf(t, all.Deliveries()[0]); p.Data.URL != fmt.Sprintf("http://cal.test/wp-json/tribe/events/v1/events/%d", plain) || p.Type != "event.updated" {
		t.Errorf("first payload %+v", p)
	}

	raw := append(all.Deliveries(), featured.Deliveries()...)
	for i, v := range testenv.VerifyStandardWebhooks(t, "../../webhook/testdata/standardwebhooks", secret, raw) {
		if !v.OK {
			t.Errorf("delivery %d (%s) does not verify: %s", i, raw[i].ID, v.Error)
		}
	}
	metrics := metricsText(t, addr2)
	for _, series := range []string{`calendard_webhook_deliveries_total{endpoint="` + all.Addr + `",result="success"}`,
		`calendard_webhook_last_success_timestamp_seconds{endpoint="` + featured.Addr + `"}`} {
		if !strings.Contains(metrics, series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	stop2()
	allLogs := logs1.String() + logs2.String()
	for _, leak := range []string{secret, strings.TrimPrefix(secret, "whsec_"), "secret-token-in-query", "v1,"} {
		if strings.Contains(allLogs, leak) {
			t.Errorf("the logs show %q:\n%s", leak, allLogs)
		}
	}
	if !strings.Contains(allLogs, "endpoint="+all.Addr) {
		t.Errorf("the failure is not logged with the endpoint's host:\n%s", allLogs)
	}

	// -h masks the secrets; a query the events list refuses stops the start, quoting no secret.
	help := runCmd(t, env, time.Minute, "serve", "-h")
	if strings.Contains(help.output(), strings.TrimPrefix(secret, "whsec_")) || !strings.Contains(help.output(), "CALENDAR_WEBHOOKS") {
		t.Errorf("serve -h:\n%s", help.output())
	}
	bad := strings.Replace(hooks, "featured=true", "featured=maybe", 1)
	res := runCmd(t, append(env, "CALENDAR_WEBHOOKS="+bad, "CALENDAR_LISTEN=127.0.0.1:0"), time.Minute, "serve")
	if res.err == nil || !strings.Contains(res.stderr, "CALENDAR_WEBHOOKS") || !strings.Contains(res.stderr, "endpoint 2: query") ||
		strings.Contains(res.output(), strings.TrimPrefix(secret, "whsec_")) {
		t.Errorf("a refused query: %v\n%s", res.err, res.output())
	}
}

func payloadOf(t *testing.T, d testenv.Delivery) webhook.Payload {
	t.Helper()
	var p webhook.Payload
	if err := json.Unmarshal(d.Body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func metricsText(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
