package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/internal/testenv"
)

// TestFleetDocker brings up docker/compose.fleet.yaml from the offline images (a MariaDB primary
// and its GTID replica, Redis, Meilisearch, three calendard instances reading the replica, HAProxy
// in front) and checks what docs/operations.md says of it: a write through one instance, directly,
// is read back at once through the balancer, by every instance in turn, with its latest title;
// reads do go to the replica; an instance killed is routed around, and instances added by --scale
// are found and served from; with the replica stopped, reads and writes go on, still fresh, from
// the primary; every instance keeps its event index file (on its own /data volume) and logs no
// warning about it. Each write must answer 2xx and each read 200 with the latest title: no retry;
// the waits for a state (an instance up, routed around, added, the replica left out) poll it within
// bounds of minutes, so that only a state never reached fails on a loaded machine. calendard is
// this tree's build (treeImage). The project is the test's own (down -v at the end, also on failure); the balancer's
// port is a free loopback one, and the instances and HAProxy's statistics, which publish none, are
// reached at their containers' addresses on the project's bridge.
func TestFleetDocker(t *testing.T) {
	testenv.SkipIfShort(t, "a Docker engine, docker compose or docker-compose, and make docker-images' images")
	started := time.Now()
	f := startFleet(t)
	t.Logf("fleet up and serving through the balancer: %.1f s", time.Since(started).Seconds())

	writer := f.ip("calendard", 1)
	instances := func() map[int]string {
		out := map[int]string{}
		for _, n := range f.running("calendard") {
			out[n] = f.ip("calendard", n)
		}
		return out
	}
	three := instances()
	if len(three) != 3 {
		t.Fatalf("%d calendard instances running, want 3 (the file's scale)", len(three))
	}
	for _, ip := range three {
		f.waitMetric(ip, "calendard_db_replica_up", 1, 2*time.Minute)
	}
	f.waitServers(3, 2*time.Minute)

	replicaReads := func(ips map[int]string) (sum float64) {
		for _, ip := range ips {
			sum += f.metric(ip, "calendard_db_replica_reads_total")
		}
		return sum
	}
	before, served := replicaReads(three), f.served()
	f.roundTrips(writer, "replicating", 12)
	if after := replicaReads(three); after <= before {
		t.Errorf("the instances read nothing from the replica (reads %v → %v)", before, after)
	}
	f.checkSpread("replicating", served, 3)

	// One instance (not the writer) killed: HAProxy's checks and DNS take it out, and a request
	// sent to it meanwhile is redispatched.
	killed := time.Now()
	if out, err := shell(f.root, f.env, time.Minute, "docker kill "+f.containerID("calendard", 3)); err != nil {
		t.Fatalf("docker kill: %v\n%s", err, out)
	}
	failed := f.readsUntil(func() bool { return f.upServers() == 2 }, 2*time.Minute)
	t.Logf("instance 3 killed: routed around after %.1f s; %d of the reads meanwhile failed",
		time.Since(killed).Seconds(), failed)
	served = f.served()
	f.roundTrips(writer, "instance killed", 6)
	f.checkSpread("instance killed", served, 2)

	// --scale: the killed instance starts again and a fourth is added; HAProxy finds both.
	scaled := time.Now()
	if out, err := f.compose(5*time.Minute, "up -d --no-deps --scale calendard=4 calendard"); err != nil {
		t.Fatalf("up --scale calendard=4: %v\n%s", err, out)
	}
	four := instances()
	if len(four) != 4 {
		t.Fatalf("%d calendard instances running after --scale calendard=4", len(four))
	}
	f.waitServers(4, 2*time.Minute)
	t.Logf("scaled to 4: all in the balancer after %.1f s", time.Since(scaled).Seconds())
	served = f.served()
	f.roundTrips(writer, "scaled to 4", 8)
	f.checkSpread("scaled to 4", served, 4)

	// The replica stopped: reads right after it go on, fresh, from the primary.
	primaryReads := func() (sum float64) {
		for _, ip := range four {
			sum += f.metric(ip, "calendard_db_primary_reads_total")
		}
		return sum
	}
	before = primaryReads()
	if out, err := f.compose(2*time.Minute, "stop replica"); err != nil {
		t.Fatalf("stop replica: %v\n%s", err, out)
	}
	f.roundTrips(writer, "replica stopped", 8)
	for _, ip := range four {
		f.waitMetric(ip, "calendard_db_replica_up", 0, 2*time.Minute)
	}
	f.roundTrips(writer, "replica left out", 4)
	if after := primaryReads(); after <= before {
		t.Errorf("no read went to the primary with the replica stopped (reads %v → %v)", before, after)
	}
	t.Logf("%d writes, %d reads through the balancer, all fresh; wall time so far %.1f s",
		f.writes, f.reads, time.Since(started).Seconds())
	for _, n := range f.running("calendard") {
		checkIndexFile(t, f.root, f.env, f.containerID("calendard", n))
	}
}

// fleet is one compose project of docker/compose.fleet.yaml.
type fleet struct {
	t       *testing.T
	root    string
	env     []string
	project string
	prefix  string // the compose command, up to its subcommand
	addr    string // the balancer
	pass    string // the administrator's application password
	client  *http.Client

	ids           []string          // events written, in order
	titles        map[string]string // each one's latest title
	writes, reads int
}

// startFleet builds or refreshes the offline images, brings the fleet up on a free port and waits
// until the balancer answers /healthz and the administrator's password is known.
func startFleet(t *testing.T) *fleet {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	compose := dockerCompose(t, root)
	env := newcomerEnv("CALENDAR_ENVIRONMENT=local")
	for i := 0; i < len(env); i++ {
		if strings.HasPrefix(env[i], "HAPROXY_IMAGE=") {
			env = append(env[:i], env[i+1:]...)
			i--
		}
	}
	// The images: make docker-images' (CI builds them just before make test), built again by
	// offline-images.sh when one is missing or a Debian-package one is older than its Dockerfile or
	// entrypoint (the replica needs the MariaDB entrypoint's replication). calendard's is this
	// tree's (treeImage), whatever bin/docker-images.env names.
	if stale := staleImages(t, root); stale != "" {
		t.Logf("%s: running docker/offline-images.sh (CALENDARD_BUILD=none)", stale)
		if out, err := shell(root, append(env, "CALENDARD_BUILD=none"), 20*time.Minute, "bash docker/offline-images.sh"); err != nil {
			t.Fatalf("docker/offline-images.sh: %v\n%s", err, out)
		}
	}
	env = append(env, "CALENDARD_IMAGE="+treeImage(t, root))
	f := &fleet{t: t, root: root, env: env, project: fmt.Sprintf("calendardfleet%d", os.Getpid()),
		client: &http.Client{Timeout: 30 * time.Second}, titles: map[string]string{}}
	f.prefix = compose + " -f docker/compose.fleet.yaml -p " + f.project + " --env-file bin/docker-images.env"
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := f.compose(time.Minute, "ps; "+f.prefix+" logs --no-color --tail 40")
			t.Logf("the fleet when the test failed:\n%s", out)
		}
		start := time.Now()
		if out, err := f.compose(3*time.Minute, "down -v --remove-orphans"); err != nil {
			t.Errorf("down -v: %v\n%s", err, out)
		}
		t.Logf("down -v: %.1f s", time.Since(start).Seconds())
	})
	err = testenv.OnFreePort(func(port int) error {
		f.addr = "127.0.0.1:" + strconv.Itoa(port)
		f.env = append(env, "CALENDARD_PORT="+f.addr)
		out, err := f.compose(10*time.Minute, "up -d")
		if err != nil && strings.Contains(out, "port is already allocated") {
			out += "\n(address already in use)" // taken by another container: another port
		}
		if err != nil {
			return fmt.Errorf("%v\n%s", err, out)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("up -d: %v", err)
	}
	if err := pollHealthz(f.addr, 3*time.Minute); err != nil {
		t.Fatalf("the balancer on %s: %v", f.addr, err)
	}
	out, err := f.compose(time.Minute, "logs --no-color migrate")
	plain := regexp.MustCompile(`(?m)^[^|\n]*\| ?`).ReplaceAllString(out, "")
	if m := appPasswordRe.FindStringSubmatch(plain); err != nil || m == nil {
		t.Fatalf("logs migrate printed no application password (%v):\n%s", err, out)
	} else {
		f.pass = m[1]
	}
	return f
}

// staleImages says why the images bin/docker-images.env names will not do ("" when they will): an
// image missing, or a Debian-package image whose io.calendard.inputs label (offline-images.sh's
// hash of its Dockerfile and entrypoint) is not that of the files in the tree.
func staleImages(t *testing.T, root string) string {
	t.Helper()
	for _, c := range []struct{ variable, name string }{{"MEILI_IMAGE", ""},
		{"MARIADB_IMAGE", "mariadb"}, {"REDIS_IMAGE", "redis"}, {"HAPROXY_IMAGE", "haproxy"}} {
		image := envFileImage(root, c.variable)
		if image == "" {
			return "bin/docker-images.env names no " + c.variable
		}
		out, err := shell(root, nil, time.Minute, "docker image inspect -f '{{index .Config.Labels \"io.calendard.inputs\"}}' "+image)
		if err != nil {
			return "no image " + image
		}
		if c.name == "" {
			continue
		}
		h := sha256.New()
		for _, f := range []string{c.name + ".Dockerfile", c.name + "-entrypoint.sh"} {
			b, err := os.ReadFile(filepath.Join(root, "docker", "offline", f))
			if err != nil {
				t.Fatal(err)
			}
			h.Write(b)
		}
		if want := hex.EncodeToString(h.Sum(nil))[:16]; strings.TrimSpace(out) != want {
			return fmt.Sprintf("%s built from other sources (inputs %q, the tree's %s)", image, strings.TrimSpace(out), want)
		}
	}
	return ""
}

// envFileImage is the image bin/docker-images.env names for a variable ("" when none).
func envFileImage(root, variable string) string {
	b, _ := os.ReadFile(filepath.Join(root, "bin", "docker-images.env"))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, variable+"="); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// compose runs a compose subcommand of the project.
func (f *fleet) compose(limit time.Duration, sub string) (string, error) {
	return shell(f.root, f.env, limit, f.prefix+" "+sub)
}

// containerID is the id of a service's container number n (compose's own label, v1 and v2 alike).
func (f *fleet) containerID(service string, n int) string {
	f.t.Helper()
	out, err := shell(f.root, f.env, time.Minute, fmt.Sprintf("docker ps -aq --filter label=com.docker.compose.project=%s "+
		"--filter label=com.docker.compose.service=%s --filter label=com.docker.compose.container-number=%d", f.project, service, n))
	id := strings.TrimSpace(out)
	if err != nil || id == "" || strings.Contains(id, "\n") {
		f.t.Fatalf("container %d of %s: %v %q", n, service, err, out)
	}
	return id
}

// running lists the container numbers of a service's running containers.
func (f *fleet) running(service string) []int {
	f.t.Helper()
	out, err := shell(f.root, f.env, time.Minute, fmt.Sprintf("docker ps --filter label=com.docker.compose.project=%s "+
		"--filter label=com.docker.compose.service=%s --format '{{.Label \"com.docker.compose.container-number\"}}'", f.project, service))
	if err != nil {
		f.t.Fatalf("docker ps: %v\n%s", err, out)
	}
	var ns []int
	for _, s := range strings.Fields(out) {
		n, err := strconv.Atoi(s)
		if err != nil {
			f.t.Fatalf("docker ps: container number %q", s)
		}
		ns = append(ns, n)
	}
	return ns
}

// ip is a container's address on the project's network.
func (f *fleet) ip(service string, n int) string {
	f.t.Helper()
	out, err := shell(f.root, f.env, time.Minute,
		"docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "+f.containerID(service, n))
	ip := strings.TrimSpace(out)
	if err != nil || ip == "" {
		f.t.Fatalf("address of %s %d: %v %q", service, n, err, out)
	}
	return ip
}

// get returns a GET's status and body (status 0 when the request failed).
func (f *fleet) get(url string) (int, []byte) {
	resp, err := f.client.Get(url)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// metric is the sum of a Prometheus series' values on an instance's metrics listener.
func (f *fleet) metric(ip, name string) float64 {
	f.t.Helper()
	v, err := f.readMetric(ip, name)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

func (f *fleet) readMetric(ip, name string) (float64, error) {
	status, body := f.get("http://" + ip + ":9090/metrics")
	if status != http.StatusOK {
		return 0, fmt.Errorf("metrics of %s: %d %s", ip, status, body)
	}
	sum, found := 0.0, false
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
			v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err != nil {
				return 0, fmt.Errorf("metrics of %s: %q", ip, line)
			}
			sum, found = sum+v, true
		}
	}
	if !found {
		return 0, fmt.Errorf("metrics of %s: no %s", ip, name)
	}
	return sum, nil
}

// waitMetric polls an instance's metric until it is want (the instance may still be starting).
func (f *fleet) waitMetric(ip, name string, want float64, within time.Duration) {
	f.t.Helper()
	var got float64
	var err error
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if got, err = f.readMetric(ip, name); err == nil && got == want {
			return
		}
	}
	f.t.Fatalf("%s on %s: %v (%v) after %v, want %v", name, ip, got, err, within, want)
}

// stats reads HAProxy's CSV statistics: the calendard backend's server slots, by name, each a
// column-to-value map.
func (f *fleet) stats() map[string]map[string]string {
	f.t.Helper()
	status, body := f.get("http://" + f.ip("haproxy", 1) + ":8404/stats;csv")
	if status != http.StatusOK {
		f.t.Fatalf("HAProxy statistics: %d %s", status, body)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("# ")))).ReadAll()
	if err != nil || len(rows) < 2 {
		f.t.Fatalf("HAProxy statistics: %v\n%s", err, body)
	}
	out := map[string]map[string]string{}
	for _, row := range rows[1:] {
		if len(row) < len(rows[0]) || row[0] != "calendard" || row[1] == "BACKEND" {
			continue
		}
		m := map[string]string{}
		for i, col := range rows[0] {
			m[col] = row[i]
		}
		out[row[1]] = m
	}
	return out
}

// upServers counts the balancer's servers that are UP.
func (f *fleet) upServers() int {
	n := 0
	for _, s := range f.stats() {
		if s["status"] == "UP" {
			n++
		}
	}
	return n
}

// waitServers polls until exactly n servers are UP in the balancer.
func (f *fleet) waitServers(n int, within time.Duration) {
	f.t.Helper()
	if f.readsUntil(func() bool { return f.upServers() == n }, within) > 0 {
		f.t.Logf("waiting for %d servers in the balancer, some reads failed", n)
	}
}

// served is each UP server's count of 2xx answers so far.
func (f *fleet) served() map[string]int {
	out := map[string]int{}
	for name, s := range f.stats() {
		if s["status"] == "UP" {
			out[name], _ = strconv.Atoi(s["hrsp_2xx"])
		}
	}
	return out
}

// checkSpread checks that n servers are UP and each answered reads since before.
func (f *fleet) checkSpread(phase string, before map[string]int, n int) {
	f.t.Helper()
	after := f.served()
	if len(after) != n {
		f.t.Errorf("%s: %d servers UP in the balancer, want %d", phase, len(after), n)
	}
	for name, k := range after {
		if k <= before[name] {
			f.t.Errorf("%s: server %s answered nothing (2xx %d → %d): the balancer does not spread the reads", phase, name, before[name], k)
		}
	}
}

// readsUntil reads an event list through the balancer until done says so, returning how many
// reads failed meanwhile; it fails the test when within runs out.
func (f *fleet) readsUntil(done func() bool, within time.Duration) (failed int) {
	f.t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if status, _ := f.get("http://" + f.addr + "/wp-json/tribe/events/v1/events?per_page=1"); status != http.StatusOK {
			failed++
		}
		if done() {
			return failed
		}
	}
	f.t.Fatalf("not so after %v (%d reads failed meanwhile); the balancer's servers: %v", within, failed, f.stats())
	return failed
}

// roundTrips writes k times through the instance at writer (a new event while there are fewer
// than four, else a new title for one of them), reading each write back through the balancer six
// times right after it returned: the event alone and in a list, in turns, so that each instance
// answers both. Every read must show the write.
func (f *fleet) roundTrips(writer, phase string, k int) {
	f.t.Helper()
	for i := 0; i < k; i++ {
		f.writes++
		title := fmt.Sprintf("Fleet %s %d", phase, f.writes)
		var id string
		if len(f.ids) < 4 {
			day := len(f.ids) + 1
			id = f.write(writer, "/wp-json/tribe/events/v1/events", map[string]any{"title": title, "status": "publish",
				"start_date": fmt.Sprintf("2030-01-%02d 10:00:00", day), "end_date": fmt.Sprintf("2030-01-%02d 11:00:00", day)})
			f.ids = append(f.ids, id)
		} else {
			id = f.ids[f.writes%len(f.ids)]
			f.write(writer, "/wp-json/tribe/events/v1/events/"+id, map[string]any{"title": title})
		}
		f.titles[id] = title
		for r := 0; r < 6; r++ {
			f.reads++
			if r%2 == 0 {
				f.checkEvent(phase, id)
			} else {
				f.checkList(phase, id)
			}
		}
	}
}

// write POSTs body as the administrator and returns the event's id.
func (f *fleet) write(writer, path string, body map[string]any) string {
	f.t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", "http://"+writer+":8080"+path, bytes.NewReader(b))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth("admin", f.pass)
	resp, err := f.client.Do(req)
	if err != nil {
		f.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	ans, _ := io.ReadAll(resp.Body)
	var ev struct {
		ID int64 `json:"id"`
	}
	if resp.StatusCode/100 != 2 || json.Unmarshal(ans, &ev) != nil || ev.ID == 0 {
		f.t.Fatalf("POST %s: %d %s", path, resp.StatusCode, ans)
	}
	return strconv.FormatInt(ev.ID, 10)
}

// checkEvent reads one event through the balancer: it must have its latest title.
func (f *fleet) checkEvent(phase, id string) {
	f.t.Helper()
	status, body := f.get("http://" + f.addr + "/wp-json/tribe/events/v1/events/" + id)
	var ev struct {
		Title string `json:"title"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &ev) != nil {
		f.t.Fatalf("%s: event %s through the balancer: %d %s", phase, id, status, body)
	}
	if ev.Title != f.titles[id] {
		f.t.Fatalf("%s: event %s through the balancer right after the write returned: title %q, want %q", phase, id, ev.Title, f.titles[id])
	}
}

// checkList reads January 2030 through the balancer: every event written must be listed with its
// latest title.
func (f *fleet) checkList(phase, id string) {
	f.t.Helper()
	status, body := f.get("http://" + f.addr + "/wp-json/tribe/events/v1/events?start_date=2030-01-01&end_date=2030-01-31&per_page=50")
	var page struct {
		Events []struct {
			ID    int64  `json:"id"`
			Title string `json:"title"`
		} `json:"events"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &page) != nil {
		f.t.Fatalf("%s: list through the balancer: %d %s", phase, status, body)
	}
	got := map[string]string{}
	for _, ev := range page.Events {
		got[strconv.FormatInt(ev.ID, 10)] = ev.Title
	}
	for want, title := range f.titles {
		if got[want] != title {
			f.t.Fatalf("%s: list through the balancer right after writing event %s: event %s has title %q, want %q",
				phase, id, want, got[want], title)
		}
	}
}
