package compattests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/calendard/calendard/internal/testenv"
)

// The suite's database is the local throwaway MariaDB process (internal/testenv) unless
// COMPAT_DB=docker: then testcontainers-go starts COMPAT_DB_IMAGE (any MySQL or MariaDB image; the
// reference was recorded on MariaDB 10.11) and, when COMPAT_CALENDARD_IMAGE names one, the calendard
// image too. Where no Docker engine answers, the suite falls back to the local process and says so
// on its first line, unless COMPAT_DOCKER_REQUIRED=1 (CI), which makes that a failure.
const (
	envDB             = "COMPAT_DB"
	envDBImage        = "COMPAT_DB_IMAGE"
	envCalendardImage = "COMPAT_CALENDARD_IMAGE"
	envDockerRequired = "COMPAT_DOCKER_REQUIRED"
	envRedisImage     = "COMPAT_REDIS_IMAGE"
	envMeiliImage     = "COMPAT_MEILI_IMAGE"
	defaultDBImage    = "mariadb:10.11"
	defaultRedisImage = "redis:7.0"
	defaultMeiliImage = "getmeili/meilisearch:v1.21"
)

// SQLServer is what the stores need of the MySQL-compatible server: the local MariaDB
// (*testenv.MariaDB) and a container's (*testenv.Server) both provide it.
type SQLServer interface {
	DSN(dbname string) string
	CloneDatabase(ctx context.Context, src, dst string) error
	ResetDatabase(ctx context.Context, src, dst string) error
}

// fixtureServer is a server the suite can also load a dump into.
type fixtureServer interface {
	SQLServer
	CreateDatabase(ctx context.Context, name string) error
	LoadSQL(ctx context.Context, dbname, file string) error
}

// suiteServer returns the server the suite replays against, and the container it runs in (nil for
// the local process). The first line the suite prints says which it is.
func suiteServer(ctx context.Context, t *testing.T) (fixtureServer, *dbContainer) {
	t.Helper()
	local := func(reason string) fixtureServer {
		fmt.Println("compat: " + reason)
		return testenv.SharedMariaDB(t)
	}
	if os.Getenv(envDB) == "mysql" {
		fmt.Println("compat: database: local MySQL process (internal/testenv, .ci/install-mysql)")
		return localServer(t), nil
	}
	if os.Getenv(envDB) != "docker" {
		return local("database: local MariaDB process (internal/testenv); COMPAT_DB=docker runs it in a container"), nil
	}
	image := envOr(envDBImage, defaultDBImage)
	if err := dockerReachable(ctx); err != nil {
		if os.Getenv(envDockerRequired) == "1" {
			fmt.Printf("compat: no Docker engine reachable (%v), and %s=1\n", err, envDockerRequired)
			t.Fatalf("no Docker engine reachable: %v", err)
		}
		return local(fmt.Sprintf("no Docker engine reachable (%s): FALLING BACK to the local MariaDB process, %s not tested",
			strings.ReplaceAll(err.Error(), "\n", "; "), image)), nil
	}
	how := "calendard as a process"
	if img := os.Getenv(envCalendardImage); img != "" {
		how += ", and as image " + img
	}
	fmt.Printf("compat: database: %s in a container started by testcontainers-go (host network); %s\n", image, how)
	c, err := startDBContainer(ctx, image)
	if err != nil {
		t.Fatalf("starting %s: %v", image, err)
	}
	t.Cleanup(func() { c.terminate() })
	return c, c
}

// localServer is the suites' local server process: MariaDB, or with COMPAT_DB=mysql Oracle's MySQL
// (not part of make test: the reference was recorded on MariaDB, whose plan orders rows with equal
// sort keys as MySQL's need not; docs/compatibility.md).
func localServer(t *testing.T) *testenv.MariaDB {
	t.Helper()
	if os.Getenv(envDB) == "mysql" {
		return testenv.SharedMySQL(t)
	}
	return testenv.SharedMariaDB(t)
}

// redisFor returns the Redis URL the MySQL store's response cache uses: with the database in a
// container, a container of COMPAT_REDIS_IMAGE (the official redis image by default, or the one
// docker/offline-images.sh builds) started the same way; otherwise "", a local redis-server.
func redisFor(ctx context.Context, t *testing.T, docker bool) string {
	t.Helper()
	if !docker {
		return ""
	}
	image := envOr(envRedisImage, defaultRedisImage)
	var port int
	var c testcontainers.Container
	// Both images run redis-server with these arguments: loopback, the test's port, no snapshots.
	// The log line is this container's own: it has bound the port.
	err := testenv.OnFreePort(func(p int) (err error) {
		port = p
		c, err = hostNetwork(ctx, testcontainers.ContainerRequest{
			Image:      image,
			Cmd:        []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", ""},
			WaitingFor: wait.ForLog("Ready to accept connections").WithStartupTimeout(time.Minute),
		})
		return err
	})
	if err != nil {
		t.Fatalf("starting %s: %v", image, err)
	}
	terminateAtCleanup(t, c)
	fmt.Printf("compat: response cache of the mysql store: %s in a container, port %d\n", image, port)
	return fmt.Sprintf("redis://127.0.0.1:%d/0", port)
}

// meiliFor returns the URL and master key of the Meilisearch a search suite runs against: with
// COMPAT_DB=docker and an engine, a container of COMPAT_MEILI_IMAGE (the official image by
// default, or the one docker/offline-images.sh builds) on the host network; otherwise the local
// binary (internal/testenv). The first line it prints says which.
func meiliFor(ctx context.Context, t *testing.T) (url, key string) {
	t.Helper()
	if os.Getenv(envDB) == "docker" {
		if err := dockerReachable(ctx); err == nil {
			return meiliContainer(ctx, t)
		} else if os.Getenv(envDockerRequired) == "1" {
			t.Fatalf("no Docker engine reachable: %v", err)
		}
	}
	dir := t.TempDir()
	m, err := testenv.StartMeilisearch(dir)
	if err != nil {
		t.Fatalf("starting Meilisearch: %v", err)
	}
	t.Cleanup(m.Stop)
	fmt.Println("compat: search: local Meilisearch process (internal/testenv)")
	return m.URL, m.Key
}

func meiliContainer(ctx context.Context, t *testing.T) (string, string) {
	image := envOr(envMeiliImage, defaultMeiliImage)
	var port int
	var key string
	var c testcontainers.Container
	err := testenv.OnFreePort(func(p int) (err error) {
		port = p
		key = "compat-" + strconv.Itoa(port) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		c, err = hostNetwork(ctx, testcontainers.ContainerRequest{
			Image: image,
			// The official image and the offline one both read these; development mode takes any key.
			Env: map[string]string{"MEILI_HTTP_ADDR": "127.0.0.1:" + strconv.Itoa(port), "MEILI_MASTER_KEY": key,
				"MEILI_ENV": "development", "MEILI_NO_ANALYTICS": "true", "MEILI_MAX_INDEXING_THREADS": "2"},
		})
		if err != nil {
			return err
		}
		if err = meiliAnswers(ctx, c, "http://127.0.0.1:"+strconv.Itoa(port), key); err != nil {
			terminate(c)
		}
		return err
	})
	if err != nil {
		t.Fatalf("starting %s: %v", image, err)
	}
	terminateAtCleanup(t, c)
	fmt.Printf("compat: search: %s in a container started by testcontainers-go, port %d\n", image, port)
	return "http://127.0.0.1:" + strconv.Itoa(port), key
}

// meiliAnswers waits until the container's server answers on url. On the host network the engine
// maps no port to wait on, and another Meilisearch holding the port would answer /health too: only
// this one accepts key. A container that exited says why in its logs (a taken port: tried again).
func meiliAnswers(ctx context.Context, c testcontainers.Container, url, key string) error {
	client := &http.Client{Timeout: 2 * time.Second}
	var err error
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if st, serr := c.State(ctx); serr == nil && !st.Running {
			return fmt.Errorf("the container exited (%d):\n%s", st.ExitCode, containerLogs(ctx, c))
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", url+"/keys?limit=1", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		var resp *http.Response
		if resp, err = client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /keys: %s", resp.Status)
		}
	}
	return fmt.Errorf("does not answer %s: %v\n%s", url, err, containerLogs(ctx, c))
}

func terminate(c testcontainers.Container) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = c.Terminate(ctx)
}

// terminateAtCleanup removes a container the test started when the test ends.
func terminateAtCleanup(t *testing.T, c testcontainers.Container) {
	t.Cleanup(func() { terminate(c) })
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// dockerReachable asks the engine testcontainers-go would use (DOCKER_HOST, the default socket...)
// for its info. Ryuk, the reaper container, is switched off unless asked for: its image cannot be
// pulled without a registry, and the suite removes its containers itself.
func dockerReachable(ctx context.Context) (err error) {
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	// The suite's first line says which database it runs on; testcontainers' banner and progress
	// lines would come before it (its errors are returned, and reported, all the same).
	tclog.SetDefault(tclog.NewNoopLogger())
	defer func() {
		// Some versions panic when no engine can be located at all.
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return p.Health(ctx)
}

// hostNetwork runs a container in the host's network namespace: the engine may have no bridge
// (dockerd --bridge=none here), and the servers then listen on loopback ports chosen by the test.
// The provider is told "host" is its default network, so it neither creates a bridge network of
// its own nor attaches the container to one.
func hostNetwork(ctx context.Context, req testcontainers.ContainerRequest) (testcontainers.Container, error) {
	req.HostConfigModifier = func(hc *container.HostConfig) { hc.NetworkMode = "host" }
	p, err := testcontainers.NewDockerProvider(testcontainers.WithDefaultBridgeNetwork("host"))
	if err != nil {
		return nil, err
	}
	c, err := p.RunContainer(ctx, req)
	if err != nil && c != nil {
		logs := containerLogs(ctx, c)
		_ = c.Terminate(context.Background())
		return nil, fmt.Errorf("%w\n%s", err, logs)
	}
	return c, err
}

// containerLogs is the tail of a container's output, for failure messages.
func containerLogs(ctx context.Context, c testcontainers.Container) string {
	r, err := c.Logs(ctx)
	if err != nil {
		return ""
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// dbContainer is a MySQL or MariaDB server in a container, on a loopback port of the host.
type dbContainer struct {
	testenv.Server
	c     testcontainers.Container
	port  int
	image string
}

// startDBContainer starts image with a root password on a free port. The official mysql and
// mariadb images and the Debian-built one (docker/offline) all take server options as arguments
// and print "port: N" once the real server (not the initialisation's) accepts connections; the
// testcontainers modules wait for log lines only the upstream builds print.
func startDBContainer(ctx context.Context, image string) (d *dbContainer, err error) {
	err = testenv.OnFreePort(func(port int) (err error) {
		d, err = startDBContainerOn(ctx, image, port)
		return err
	})
	return d, err
}

// startDBContainerOn starts image on port; the log line waited for is this container's own.
func startDBContainerOn(ctx context.Context, image string, port int) (*dbContainer, error) {
	password := "compat-" + strconv.Itoa(port)
	c, err := hostNetwork(ctx, testcontainers.ContainerRequest{
		Image: image,
		Env:   map[string]string{"MARIADB_ROOT_PASSWORD": password, "MYSQL_ROOT_PASSWORD": password},
		// Loopback only; "loose-" lets MariaDB ignore the MySQL-only X protocol switch, whose own
		// port would otherwise be fixed (33060) and collide between runs.
		Cmd: []string{"--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1", "--loose-mysqlx=OFF",
			"--innodb-flush-log-at-trx-commit=2", "--max-connections=500"},
		WaitingFor: wait.ForLog(`port: ` + strconv.Itoa(port) + `\s`).AsRegexp().WithStartupTimeout(3 * time.Minute),
	})
	if err != nil {
		return nil, err
	}
	d := &dbContainer{Server: testenv.Server{Addr: "127.0.0.1:" + strconv.Itoa(port), User: "root", Password: password},
		c: c, port: port, image: image}
	if err := d.ping(ctx); err != nil {
		d.terminate()
		return nil, err
	}
	return d, nil
}

// ping waits until the server answers queries (it may log its port a moment before).
func (d *dbContainer) ping(ctx context.Context) error {
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err = d.Exec(ctx, "SELECT 1"); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%s does not answer on port %d: %w", d.image, d.port, err)
}

func (d *dbContainer) terminate() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = d.c.Terminate(ctx)
}

// LoadSQL feeds a mysqldump file to the image's own command-line client (mariadb or mysql), as
// the local suite feeds it to the local one: the dump uses client-side syntax.
func (d *dbContainer) LoadSQL(ctx context.Context, dbname, file string) error {
	dst := "/tmp/" + path.Base(file)
	if err := d.c.CopyFileToContainer(ctx, file, dst, 0o644); err != nil {
		return err
	}
	script := `c=$(command -v mariadb || command -v mysql) && exec "$c" --no-defaults --protocol=tcp -h127.0.0.1 -P"$0" -uroot "$1" < "$2"`
	code, out, err := d.c.Exec(ctx, []string{"sh", "-c", script, strconv.Itoa(d.port), dbname, dst},
		tcexec.Multiplexed(), tcexec.WithEnv([]string{"MYSQL_PWD=" + d.Password}))
	if err != nil {
		return err
	}
	if code != 0 {
		b, _ := io.ReadAll(out)
		return fmt.Errorf("loading %s into %s: exit %d: %s", file, d.image, code, bytes.TrimSpace(b))
	}
	return nil
}

// calendardContainer runs the calendard image on a free loopback port with env, and waits until
// it listens. Stop it with Terminate.
func calendardContainer(ctx context.Context, image string, env map[string]string) (c testcontainers.Container, svc *Service, err error) {
	err = testenv.OnFreePort(func(port int) (err error) {
		c, svc, err = calendardContainerOn(ctx, image, port, env)
		return err
	})
	return c, svc, err
}

// calendardContainerOn runs the image on port; the log line waited for is this container's own.
func calendardContainerOn(ctx context.Context, image string, port int, env map[string]string) (testcontainers.Container, *Service, error) {
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	e := map[string]string{"CALENDAR_LISTEN": "127.0.0.1:" + strconv.Itoa(port), "CALENDAR_SITE_URL": base,
		"CALENDAR_LOG_LEVEL": "info"}
	for k, v := range env {
		e[k] = v
	}
	c, err := hostNetwork(ctx, testcontainers.ContainerRequest{
		Image:      image,
		Env:        e,
		WaitingFor: wait.ForLog("calendard listening").WithStartupTimeout(time.Minute),
	})
	if err != nil {
		return nil, nil, err
	}
	return c, &Service{Base: base, Now: env["CALENDAR_NOW"]}, nil
}

// waitHealthy waits until Docker reports the container healthy by the image's own HEALTHCHECK.
func waitHealthy(ctx context.Context, c testcontainers.Container, within time.Duration) error {
	status := "no health check"
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		info, err := c.Inspect(ctx)
		if err != nil {
			return err
		}
		if info.State == nil || info.State.Health == nil {
			return errors.New("the image declares no HEALTHCHECK")
		}
		status = string(info.State.Health.Status)
		if status == "healthy" {
			return nil
		}
		if status == "unhealthy" {
			break
		}
	}
	return fmt.Errorf("health is %q after %s\n%s", status, within, strings.TrimSpace(containerLogs(ctx, c)))
}
