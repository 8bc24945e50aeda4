# calendard — see README.md.
SHELL := /bin/bash
GO       ?= go
BIN      ?= bin/calendard
PKGS      = $(shell $(GO) list ./... | grep -v /compat-tests)
# nomsgpack leaves out gin's MessagePack binding and renderer: calendard reads and writes JSON only
# and never calls gin's binding, and the codec they pull in (github.com/ugorji/go/codec) was the
# largest package of the whole build (34 s CPU to compile, 39 s more under -race, on a fresh CI
# machine; issue 15). Exported so that every go command here, the tests' own `go build` of the
# binary and docker/offline-images.sh build with the same tags and share one build cache.
# -gcflags=all=-dwarf=false -ldflags=-w: no DWARF debugging information in what make compiles and
# links (stack traces, pprof and panics read the symbol and line tables, which stay). Measured on a
# cold build cache, CGO_ENABLED=0 go build ./cmd/calendard: 209 s → 192 s of CPU (-8 %); every test
# binary of make test is compiled and linked the same way (issue 15). The image strips it anyway
# (-s -w). DWARF=1 keeps it, for a debugger (make build DWARF=1).
TAGS ?= nomsgpack
NODWARF = $(if $(filter 1,$(DWARF)),,-gcflags=all=-dwarf=false -ldflags=-w)
export GOFLAGS := -tags=$(TAGS) $(NODWARF) $(GOFLAGS)

.PHONY: build run test unit race fuzz fuzz-short hostile microbench compat compat-search vet fmt-check tidy-check bench bench-quick \
	docker-images compat-docker docker-check docker-ci

build:
	@echo "building $(BIN) (the first build compiles every dependency and takes a few minutes; later ones seconds)…"
	$(GO) build -o $(BIN) ./cmd/calendard

# run prepares the database, fills it with the demo calendar the first time (calendard demo does
# nothing once the calendar has events) and serves the API. The store is the embedded
# sqlite://calendard.db unless CALENDAR_DB names another; CALENDAR_* variables configure all three
# commands (see README). DEMO=auto fills only the embedded store; DEMO=1 any store, DEMO=0 none.
DEMO ?= auto
# Application passwords work over plain HTTP only in WordPress' "local" environment; make run is the
# local way in, so it defaults to it (set CALENDAR_ENVIRONMENT to serve otherwise).
run: export CALENDAR_ENVIRONMENT ?= local
run: build
	./$(BIN) migrate
	@if [ "$(DEMO)" = 1 ] || { [ "$(DEMO)" = auto ] && [[ "$${CALENDAR_DB:-sqlite://}" == sqlite://* ]]; }; then \
		./$(BIN) demo; fi
	./$(BIN) serve

# test is what CI runs: static checks, then unit and store tests against real MariaDB, the racing
# writers under the race detector, a short pass of the fuzz targets (fuzz-short), every Go benchmark
# once (microbench), and the compatibility suite replaying the recorded reference answers (site-a,
# its legacy-storage and moved-zone twins, the wp/v2 set). Those five run three at a time
# (TEST_JOBS), the suite, the unit tests and the race build first: the suite and the unit tests are
# mostly waiting (servers starting, deadlines, drains), the race build is all compiling (niced, see
# race), so the three keep two cores busy (issue 15). -Otarget prints each one's output whole when
# it ends.
# GOTESTFLAGS=-vet=off: the vet step above is `go vet ./...`, every analyzer go test's own vet pass
# runs and more; go test's pass would vet every package and each of its dependencies once more under
# other cache keys (cold build cache: 104 s of the 385 s CPU that compiling every test binary took).
# CGO_ENABLED=0: the tests build and run the static binary docker/Dockerfile ships (nothing here
# needs cgo), and vet, the tests and the offline image's build (docker/offline-images.sh, which CI
# runs first) share one build cache: with cgo on in one and off in the other, a fresh CI machine
# compiled the tree twice (issue 15). race turns cgo back on: the race detector needs it.
TEST_JOBS ?= 3
GOTESTFLAGS ?=
test: export CGO_ENABLED = 0
test: vet fmt-check
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) -Otarget GOTESTFLAGS=-vet=off compat unit race fuzz-short microbench

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# unit runs every test but the racing ones, two packages at a time (go test's default -p on two
# cores). The benchmarks are microbench's: with -bench, go test runs its packages one at a time and
# only after every test binary is built (cmd/go forces benchmarks serial), which had made unit run
# its 17 packages one after the other (issue 15: 736 s of CI's wall time, the longest job).
unit:
	$(GO) test $(GOTESTFLAGS) -count=1 -timeout 20m -skip '^TestRace' $(PKGS)

# race runs the concurrency tests (writers racing on one record, readers racing the live caches;
# handlers/race_test.go, TestRace*) under the race detector; unit leaves them to it. Its build,
# every package of handlers' tree under -race (about 4 minutes of CPU on a fresh machine), is niced
# (the first go test, which runs no test): in make test it only takes the CPU the suite and the unit
# tests beside it leave idle, and does not slow their servers and deadlines. The tests themselves
# then run at the usual priority (the second go test links the cached packages).
# -tags nosqlite leaves the SQLite driver out (wpdb/sqlite_driver.go): the racing tests run on
# MariaDB, and instrumenting the driver was 56 s of this build's 272 s of CPU on a fresh machine.
race:
	CGO_ENABLED=1 nice -n 10 $(GO) test $(GOTESTFLAGS) -race -tags=$(TAGS),nosqlite -count=1 -run '^$$' ./handlers/
	CGO_ENABLED=1 $(GO) test $(GOTESTFLAGS) -race -tags=$(TAGS),nosqlite -count=1 -run 'Race' ./handlers/

# fuzz runs every Go fuzz target (func FuzzXxx) for FUZZTIME each, one after the other: go test
# -fuzz takes one target of one package per run. Seeds and crashers are in testdata/fuzz/FuzzXxx;
# a failure writes its input there (keep it as a regression seed once fixed). FUZZMINIMIZE bounds
# the time spent shrinking each new input. fuzz-short is the pass make test runs. Go 1.26's
# coordinator may end a timed run with a bare "context deadline exceeded" and no input written
# (golang/go#75804, fixed in Go 1.27): that is reported and not counted as a failure.
FUZZTIME     ?= 10s
FUZZMINIMIZE ?= 2s
FUZZ_DIRS     = $(sort $(dir $(shell grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '^./compat-tests/')))
fuzz:
	@mkdir -p bin; for dir in $(FUZZ_DIRS); do \
		for target in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir*_test.go | sed 's/^func //'); do \
			echo "fuzz $$dir $$target ($(FUZZTIME))"; \
			before=$$(ls $${dir}testdata/fuzz/$$target 2>/dev/null | wc -l); \
			if $(GO) test $(GOTESTFLAGS) -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$dir \
				> bin/fuzz.log 2>&1; then \
				grep 'fuzz: elapsed' bin/fuzz.log | tail -n 1; \
			elif ! grep -q -e '^--- FAIL: Test' -e '^panic: ' bin/fuzz.log && grep -qx '    context deadline exceeded' bin/fuzz.log && \
				[ "$$(ls $${dir}testdata/fuzz/$$target 2>/dev/null | wc -l)" = "$$before" ]; then \
				echo "  ended by golang/go#75804 (no failing input): not a failure"; \
			else \
				cat bin/fuzz.log; exit 1; \
			fi; \
		done; \
	done

# fuzz-short (make test's pass) leaves handlers' 8 targets to make fuzz: each input there goes
# through the whole service, and in 1 s none of them even got through its seed corpus (issue 15,
# cold CI: "gathering baseline coverage: 0/169 completed", 0 to 2 of 8 to 169 seeds per target),
# so they mutated nothing; their seeds run as plain tests in unit, and the pass cost a fuzz-
# instrumented build of handlers' whole tree (247 s CPU cold) and a link and start per target.
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=1s FUZZMINIMIZE=1s FUZZ_DIRS='$(filter-out ./handlers/,$(FUZZ_DIRS))'

# hostile is the long run of the hostile-request test (resilience-tests/hostile_test.go; README,
# "Reliability and security"): 100,000 generated requests per store against the real binary on
# MariaDB and SQLite, and three rounds of 16 clients sending 8 MB body bombs. make test (unit) runs
# the same test with 10,000 per store. HOSTILE_SEED=N sends other requests, HOSTILE_REQUESTS=N
# another number.
hostile:
	HOSTILE_LONG=1 $(GO) test -count=1 -timeout 60m -run '^TestHostileRequests$$' -v ./resilience-tests/ 2>&1 \
		| grep -v -E '^=== RUN'; exit $${PIPESTATUS[0]}

# microbench runs every Go benchmark once (-benchtime=1x) so none of them rots (make test runs it);
# `go test -bench` with a real -benchtime gives the figures. Only the packages that have benchmarks:
# the others would be linked and started for nothing.
# The search benchmarks run on a 1,000-event calendar here (SEARCH_BENCH_EVENTS): indexing the
# default 10,000 into Meilisearch was most of this target's time, and one iteration measures nothing.
BENCH_DIRS = $(sort $(dir $(shell grep -rl --include='*_test.go' '^func Benchmark' . | grep -v '^./compat-tests/')))
microbench:
	SEARCH_BENCH_EVENTS=1000 $(GO) test $(GOTESTFLAGS) -count=1 -run '^$$' -bench . -benchtime=1x $(BENCH_DIRS)

compat:
	$(GO) test $(GOTESTFLAGS) -count=1 -timeout 30m -v ./compat-tests/ 2>&1 | grep -v -E '^(=== RUN|=== PAUSE|=== CONT)'; exit $${PIPESTATUS[0]}

# compat-search replays every read case of site-a with Meilisearch configured (TestCompatSearch,
# part of make compat); the differences it allows are named in its log.
compat-search:
	$(GO) test -count=1 -timeout 30m -v -run '^TestCompatSearch$$' ./compat-tests/ 2>&1 \
		| grep -v -E '^(=== RUN|=== PAUSE|=== CONT)'; exit $${PIPESTATUS[0]}

# Docker (README, "Docker"). docker-images builds, with no registry, images standing in for the
# official ones (docker/offline-images.sh; tags in bin/docker-images.env). compat-docker replays the
# compatibility suite against a container of IMAGE, any MySQL or MariaDB image, with the response
# cache on a container of REDIS_IMAGE, both started by testcontainers-go (and, when CALENDARD_IMAGE
# is set, checks that image's HEALTHCHECK and replays a clock's read cases against it); with no
# Docker engine it falls back to the local processes and says so on its first line. docker-check
# validates the compose files and probes the Redis and Meilisearch images. docker-ci is all of it
# on the offline images, where a missing engine is a failure. CI (.ci/run) builds the images, runs
# docker-check, then make test with the suite's containers switched on: the suite runs once.
IMAGE           ?= mariadb:10.11
REDIS_IMAGE     ?= redis:7.0
MEILI_IMAGE     ?= getmeili/meilisearch:v1.21
CALENDARD_IMAGE ?=
docker-images:
	bash docker/offline-images.sh

compat-docker:
	COMPAT_DB=docker COMPAT_DB_IMAGE='$(IMAGE)' COMPAT_REDIS_IMAGE='$(REDIS_IMAGE)' COMPAT_MEILI_IMAGE='$(MEILI_IMAGE)' \
		COMPAT_CALENDARD_IMAGE='$(CALENDARD_IMAGE)' \
		$(GO) test -count=1 -timeout 30m -v -run '^TestCompat(Search)?$$' ./compat-tests/ 2>&1 \
		| grep -v -E '^(=== RUN|=== PAUSE|=== CONT)'; exit $${PIPESTATUS[0]}

COMPOSE = $(shell docker compose version >/dev/null 2>&1 && echo 'docker compose' || echo docker-compose)
docker-check:
	$(COMPOSE) -f docker/compose.yaml config -q
	CALENDAR_DB='mysql://u:p@tcp(h:3306)/wordpress' $(COMPOSE) -f docker/compose.wordpress.yaml config -q
	$(COMPOSE) -f docker/compose.yaml --env-file bin/docker-images.env config -q
	@echo "docker/compose.yaml and docker/compose.wordpress.yaml validate ($(COMPOSE))"
	bash docker/offline/smoke.sh

docker-ci: docker-images docker-check
	. bin/docker-images.env && COMPAT_DOCKER_REQUIRED=1 $(MAKE) --no-print-directory compat-docker \
		IMAGE="$$MARIADB_IMAGE" REDIS_IMAGE="$$REDIS_IMAGE" MEILI_IMAGE="$$MEILI_IMAGE" CALENDARD_IMAGE="$$CALENDARD_IMAGE"

tidy-check:
	$(GO) mod tidy
	git diff --exit-code go.mod go.sum

# bench is calendard-bench (cmd/calendard-bench, see README): for each store in STORES it generates
# a calendar of EVENTS events (bench/gen; a comma list such as EVENTS=10000,100000 measures several
# sizes in one report), serves it with $(BIN) and drives it with the request mix of bench/mix.txt at
# CONCURRENCY clients from a separate process: WARMUP, then DURATION measured per concurrency. The
# report goes to BENCH_OUT; BENCH_FLAGS passes more flags (calendard-bench -h). Needs the MariaDB
# server binaries, as make test does.
EVENTS      ?= 10000
STORES      ?= mysql,sqlite
CONCURRENCY ?= 1,8,32
WARMUP      ?= 5s
DURATION    ?= 20s
BENCH_OUT   ?= BENCHMARKS.md
BENCH_FLAGS ?=
# The served response cache (issue 13) is off unless asked for: BENCH_CACHE=memory (or redis, with
# CALENDAR_REDIS_URL) measures cached answers.
BENCH_CACHE ?= off
bench: build
	$(GO) build -o bin/calendard-bench ./cmd/calendard-bench
	CALENDAR_CACHE=$(BENCH_CACHE) bin/calendard-bench --build=false --bin $(BIN) --events $(EVENTS) --stores $(STORES) \
		--concurrency $(CONCURRENCY) --warmup $(WARMUP) --duration $(DURATION) --out $(BENCH_OUT) $(BENCH_FLAGS)

# bench-quick tries the benchmark in about a minute: 2,000 events, short windows, report in bin/.
bench-quick:
	$(MAKE) bench EVENTS=2000 CONCURRENCY=1,8 WARMUP=1s DURATION=3s BENCH_OUT=bin/bench-quick.md
