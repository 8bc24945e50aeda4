package resiliencetests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
)

// Two instances share a Redis and read a replica (CALENDAR_DB_REPLICAS); A answers lists
// from its event index, B from SQL on every request (no index, no record cache), so both read
// paths are on the replica. A write through either is read back at once through the other: while
// the replica replicates, while its SQL thread is stopped (it lags: reads wait for it, bounded,
// then go to the primary, and it is left out), and while it is killed (reads go to the primary,
// no 5xx); once it is back it serves reads again. On MariaDB and on MySQL.
func TestReplicasReadYourWritesAcrossInstances(t *testing.T) {
	calendardBin(t)
	replicasReadYourWrites(t, testenv.NewReplication(t))
}

func TestMySQLReplicasReadYourWritesAcrossInstances(t *testing.T) {
	calendardBin(t)
	replicasReadYourWrites(t, testenv.NewMySQLReplication(t))
}

func replicasReadYourWrites(t *testing.T, rep *testenv.Replication) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := rep.Primary.CreateDatabase(ctx, "wp"); err != nil {
		t.Fatal(err)
	}
	if err := rep.Primary.LoadSQL(ctx, "wp", fixture); err != nil {
		t.Fatal(err)
	}
	if err := rep.WaitReplicated(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	redis := testenv.NewRedis(t)
	env := map[string]string{"CALENDAR_DB_REPLICAS": "mysql://" + rep.Replica.DSN("wp"), "CALENDAR_REPLICA_MAX_LAG": "1s",
		"CALENDAR_CACHE": "redis", "CALENDAR_REDIS_URL": redis.URL(0), "CALENDAR_WATCH_INTERVAL": "1s"}
	a := startServer(t, "mysql://"+rep.Primary.DSN("wp"), env)
	envB := map[string]string{"CALENDAR_EVENT_INDEX": "off", "CALENDAR_RECORD_CACHE": "0"}
	for k, v := range env {
		envB[k] = v
	}
	b := startServer(t, "mysql://"+rep.Primary.DSN("wp"), envB)
	for _, s := range []*server{a, b} {
		waitMetric(t, s, "calendard_db_replica_up", 1, time.Minute)
	}
	ids := eventIDs(t, a)

	n := 0
	// roundTrips writes a new title through one instance and reads it back through the other.
	roundTrips := func(phase string, k int) {
		t.Helper()
		for i := 0; i < k; i++ {
			n++
			w, r := a, b
			if n%2 == 0 {
				w, r = b, a
			}
			id := ids[n%len(ids)]
			title := fmt.Sprintf("Replica %s %d", phase, n)
			ans := w.call(ctx, "POST", "/wp-json/tribe/events/v1/events/"+id, "admin", map[string]any{"title": title})
			if ans.err != nil || ans.status != 200 {
				t.Fatalf("%s: update %s: %v %d %s", phase, id, ans.err, ans.status, ans.body)
			}
			for _, s := range []*server{r, w} {
				got := s.call(ctx, "GET", "/wp-json/tribe/events/v1/events/"+id, "", nil)
				var ev struct {
					Title string `json:"title"`
				}
				if got.err != nil || got.status != 200 || json.Unmarshal(got.body, &ev) != nil {
					t.Fatalf("%s: read %s on %s: %v %d %s", phase, id, s.addr, got.err, got.status, got.body)
				}
				if ev.Title != title {
					t.Fatalf("%s: read %s on %s right after the write returned: title %q, want %q", phase, id, s.addr, ev.Title, title)
				}
			}
		}
	}

	before := metric(t, b, "calendard_db_replica_reads_total")
	roundTrips("replicating", 10)
	if after := metric(t, b, "calendard_db_replica_reads_total"); after <= before {
		t.Fatalf("B read nothing from the replica (reads %v → %v)", before, after)
	}

	// Lag: the replica receives the writes but does not apply them.
	if err := rep.StopApplying(ctx); err != nil {
		t.Fatal(err)
	}
	// An application password created in WordPress (here by the CLI, on the primary) works at once:
	// authentication reads the primary, not the replica that has not applied it.
	create := exec.Command(calendardBin(t), "user", "app-password", "create", "admin", "--name", "replica-lag", "--porcelain")
	create.Env = append(os.Environ(), "CALENDAR_DB=mysql://"+rep.Primary.DSN("wp"))
	out, err := create.Output()
	if err != nil {
		t.Fatalf("app-password create: %v\n%s", err, out)
	}
	for _, s := range []*server{a, b} {
		req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/wp-json/tribe/events/v1/events?status=draft&per_page=1", nil)
		req.SetBasicAuth("admin", strings.TrimSpace(string(out)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("a new application password on %s: %d, want 200", s.addr, resp.StatusCode)
		}
	}
	roundTrips("lagging", 4)
	for _, s := range []*server{a, b} {
		waitMetric(t, s, "calendard_db_replica_up", 0, time.Minute)
	}
	roundTrips("left out", 2)
	if err := rep.StartApplying(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*server{a, b} {
		waitMetric(t, s, "calendard_db_replica_up", 1, time.Minute)
	}
	roundTrips("caught up", 2)

	// Down: killed as a crash would; reads go on from the primary.
	rep.Replica.Kill()
	roundTrips("replica killed", 4)
	for _, s := range []*server{a, b} {
		waitMetric(t, s, "calendard_db_replica_up", 0, time.Minute)
	}
	if err := rep.Replica.Restart(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*server{a, b} {
		waitMetric(t, s, "calendard_db_replica_up", 1, time.Minute)
	}
	before = metric(t, b, "calendard_db_replica_reads_total")
	roundTrips("replica back", 4)
	if after := metric(t, b, "calendard_db_replica_reads_total"); after <= before {
		t.Fatalf("B does not read the replica again after it came back (reads %v → %v)", before, after)
	}
	a.checkLog(t, "read replica")
	b.checkLog(t, "read replica")
}

// eventIDs lists a few event IDs through s.
func eventIDs(t *testing.T, s *server) []string {
	t.Helper()
	ans := s.call(context.Background(), "GET", "/wp-json/tribe/events/v1/events?per_page=5&start_date=2000-01-01", "", nil)
	var page struct {
		Events []struct {
			ID int64 `json:"id"`
		} `json:"events"`
	}
	if ans.err != nil || ans.status != 200 || json.Unmarshal(ans.body, &page) != nil || len(page.Events) == 0 {
		t.Fatalf("listing events: %v %d %s", ans.err, ans.status, ans.body)
	}
	var ids []string
	for _, e := range page.Events {
		ids = append(ids, strconv.FormatInt(e.ID, 10))
	}
	return ids
}

// metric sums the samples of a series on s's /metrics (every label set).
func metric(t *testing.T, s *server, name string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + s.debug + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sum, found := 0.0, false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("%s: %q", name, line)
		}
		sum, found = sum+v, true
	}
	if !found {
		t.Fatalf("%s is not in %s's /metrics", name, s.addr)
	}
	return sum
}

// waitMetric polls until name's value on s is want.
func waitMetric(t *testing.T, s *server, name string, want float64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := metric(t, s, name)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s on %s stayed %v, want %v", name, s.addr, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
