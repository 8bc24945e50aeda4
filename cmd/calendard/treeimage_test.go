package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// treeImage returns a calendard image made from this tree: the static binary compiled here (the
// command and flags of docker/offline-images.sh's CALENDARD_BUILD=host, so the build cache CI
// filled serves it) in docker/Dockerfile, tagged by the hash of both. The compose tests run it
// instead of bin/docker-images.env's CALENDARD_IMAGE, which make docker-images built from whatever
// the tree was then: a test of the tree must not run an older binary. The image is removed when
// the test ends (unless a container still uses it).
func treeImage(t *testing.T, root string) string {
	t.Helper()
	start := time.Now()
	ctx := t.TempDir()
	build := "CGO_ENABLED=0 go build -tags nomsgpack -ldflags='-s -w' -o " + ctx + "/calendard ./cmd/calendard"
	if out, err := shell(root, newcomerEnv(), 15*time.Minute, build); err != nil {
		t.Fatalf("%s: %v\n%s", build, err, out)
	}
	h := sha256.New()
	for _, f := range []string{filepath.Join(ctx, "calendard"), filepath.Join(root, "docker", "Dockerfile")} {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	image := "calendard-local/calendard:tree-" + hex.EncodeToString(h.Sum(nil))[:16]
	if _, err := shell(root, nil, time.Minute, "docker image inspect -f . "+image); err == nil {
		t.Logf("calendard image of this tree: %s (present; binary built in %.1f s)", image, time.Since(start).Seconds())
		return image
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ctx, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The builder stage only copies the binary: offline-images.sh's Debian base has the shell it needs.
	base := "calendard-local/debian:bookworm"
	cmd := fmt.Sprintf("docker build -q -t %s -f docker/Dockerfile --build-arg GO_IMAGE=%s --build-arg RUNTIME_IMAGE=scratch "+
		"--build-arg PREBUILT=calendard %s", image, base, ctx)
	if out, err := shell(root, nil, 10*time.Minute, cmd); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	// The builder stage's image is left untagged by the classic builder: offline-images.sh's prune
	// label removes it.
	_, _ = shell(root, nil, time.Minute, "docker image prune -f --filter label=io.calendard.stage=build")
	t.Cleanup(func() { _, _ = shell(root, nil, time.Minute, "docker rmi "+image) })
	t.Logf("calendard image of this tree: %s (built in %.1f s)", image, time.Since(start).Seconds())
	return image
}

// indexFileWarning is what an instance logs when it cannot write its event index file (a cache
// directory it may not create, as the image's user without a home directory had).
var indexFileWarning = regexp.MustCompile(`(?m)^.*event index file.*$`)

// checkIndexFile checks that a calendard container wrote its event index file (CALENDAR_INDEX_FILE
// auto: the image's cache directory on /data) and logged no warning about it. The file is written a
// few seconds (eventindex.FileSaveDelay) after a full build with the events' texts, which a calendar
// with events gets at start: polled, within a generous bound.
func checkIndexFile(t *testing.T, root string, env []string, container string) {
	t.Helper()
	var out string
	var err error
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		out, err = shell(root, env, time.Minute, "docker cp "+container+":/data/cache/calendard - | tar -t")
		if err == nil && strings.Contains(out, "calendard/index-") {
			break
		}
	}
	if err != nil || !strings.Contains(out, "calendard/index-") {
		t.Errorf("container %.12s wrote no event index file in /data/cache/calendard: %v\n%s", container, err, out)
	}
	checkNoIndexFileWarning(t, root, env, container)
}

// checkNoIndexFileWarning checks that a calendard container logged nothing about its event index
// file (a stack whose calendar was empty at start may not have written one yet: it is rebuilt by
// patches until the next reconcile).
func checkNoIndexFileWarning(t *testing.T, root string, env []string, container string) {
	t.Helper()
	logs, err := shell(root, env, time.Minute, "docker logs "+container+" 2>&1")
	if err != nil {
		t.Errorf("docker logs %.12s: %v\n%s", container, err, logs)
	}
	if m := indexFileWarning.FindAllString(logs, 3); m != nil {
		t.Errorf("container %.12s logged about its event index file:\n%s", container, strings.Join(m, "\n"))
	}
}
