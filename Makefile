# calendard — see README.md.
SHELL := /bin/bash
GO       ?= go
BIN      ?= bin/calendard
PKGS      = $(shell $(GO) list ./... | grep -v /compat-tests)
# nomsgpack leaves out gin's MessagePack binding and renderer: calendard speaks JSON only, and the
# codec they pull in is the largest package of the build. Exported so that every go command here,
# the tests' own `go build` of the binary and docker/offline-images.sh share one build cache.
# No DWARF in what make compiles and links: it saves compile time, and stack traces, pprof and
# panics read the symbol and line tables, which stay. DWARF=1 keeps it, for a debugger.
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
# commands (docs/configuration.md). DEMO=auto fills only the embedded store; DEMO=1 any store,
# DEMO=0 none.
DEMO ?= auto
# Application passwords work over plain HTTP only in WordPress' "local" environment; make run is the
# local way in, so it defaults to it (set CALENDAR_ENVIRONMENT to serve otherwise).
run: export CALENDAR_ENVIRONMENT ?= local
run: build
	./$(BIN) migrate
	@if [ "$(DEMO)" = 1 ] || { [ "$(DEMO)" = auto ] && [[ "$${CALENDAR_DB:-sqlite://}" == sqlite://* ]]; }; then \
		./$(BIN) demo; fi
	./$(BIN) serve

# test is what CI runs: static checks, then unit and store tests against real MariaDB, Redis and
# Meilisearch, the racing writers under the race detector, a short pass of the fuzz targets
# (fuzz-short), every Go benchmark once (microbench), and the compatibility suite replaying the
# recorded reference answers. They run three at a time (TEST_JOBS): the suite and the unit tests
# mostly wait on servers and deadlines while the (niced) race build compiles, so together they keep
# two cores busy. -Otarget prints each one's output whole when it ends.
# GOTESTFLAGS=-vet=off: the vet step already runs every analyzer go test's own vet pass would, which
# would vet every package again under other cache keys.
# CGO_ENABLED=0: the tests build and run the static binary docker/Dockerfile ships, and vet, the
# tests and the offline image's build share one build cache. race turns cgo back on: the race
# detector needs it.
TEST_JOBS ?= 3
GOTESTFLAGS ?=
test: export CGO_ENABLED = 0
test: vet fmt-check
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) -Otarget GOTESTFLAGS=-vet=off compat unit race fuzz-short microbench

# vet also runs staticcheck (its default checks; 0 findings is the bar), the version go.mod's tool
# directive pins: go tool builds it from the module cache, nothing to install.
vet:
	$(GO) vet ./...
	$(GO) tool staticcheck -tags $(TAGS) ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# unit runs every test but the racing ones, two packages at a time (go test's default -p on two
# cores). The benchmarks are microbench's: with -bench, go test runs packages one at a time.
unit:
	$(GO) test $(GOTESTFLAGS) -count=1 -timeout 20m -skip '^TestRace' $(PKGS)

# race runs the concurrency tests (writers racing on one record, readers racing the live caches;
# handlers/race_test.go, TestRace*) under the race detector; unit leaves them to it. Its build is
# niced (the first go test, which runs no test), so that it takes only the CPU the suite and the unit
# tests leave idle and does not slow their servers and deadlines; the tests then run at the usual
# priority. -tags nosqlite leaves the SQLite driver out: the racing tests run on MariaDB, and
# instrumenting the driver is a large part of the build.
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

# fuzz-short (make test's pass) leaves handlers' targets to make fuzz: each input there goes through
# the whole service, so 1 s does not even get through their seed corpus; their seeds run as plain
# tests in unit.
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=1s FUZZMINIMIZE=1s FUZZ_DIRS='$(filter-out ./handlers/,$(FUZZ_DIRS))'

# hostile is the long run of the hostile-request test (resilience-tests/hostile_test.go;
# docs/reliability.md): 100,000 generated requests per store against the real binary on
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
# default 10,000 into Meilisearch would be most of this target's time, and one iteration measures
# nothing.
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

# Docker (docs/operations.md). docker-images builds, with no registry, images standing in for the
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
	$(COMPOSE) -f docker/compose.fleet.yaml config -q
	$(COMPOSE) -f docker/compose.fleet.yaml --env-file bin/docker-images.env config -q
	@echo "docker/compose.yaml, docker/compose.wordpress.yaml and docker/compose.fleet.yaml validate ($(COMPOSE))"
	bash docker/offline/smoke.sh

docker-ci: docker-images docker-check
	. bin/docker-images.env && COMPAT_DOCKER_REQUIRED=1 $(MAKE) --no-print-directory compat-docker \
		IMAGE="$$MARIADB_IMAGE" REDIS_IMAGE="$$REDIS_IMAGE" MEILI_IMAGE="$$MEILI_IMAGE" CALENDARD_IMAGE="$$CALENDARD_IMAGE"

tidy-check:
	$(GO) mod tidy
	git diff --exit-code go.mod go.sum

# bench is calendard-bench (cmd/calendard-bench, docs/operations.md): for each store in STORES it generates
# a calendar of EVENTS events (bench/gen; a comma list such as EVENTS=10000,100000 measures several
# sizes in one report), serves it with $(BIN) and drives it with the request mix of bench/mix.txt at
# CONCURRENCY clients from a separate process: WARMUP, then DURATION measured per concurrency. The
# report goes to BENCH_OUT; BENCH_FLAGS passes more flags (calendard-bench -h). Needs the MariaDB
# server binaries, as make test does. The windows start once the server's first index build is in
# and written to its index file. A million events (EVENTS=1000000) takes about 4 GB of disk per
# store and long generations (SQLite: over 10 minutes on 2 cores); on 2 cores measure one store at
# a time with short windows, e.g. STORES=mysql CONCURRENCY=1,8 WARMUP=3s DURATION=10s.
EVENTS      ?= 10000
STORES      ?= mysql,sqlite
CONCURRENCY ?= 1,8,32
WARMUP      ?= 5s
DURATION    ?= 20s
BENCH_OUT   ?= BENCHMARKS.md
BENCH_FLAGS ?=
# The served response cache is off unless asked for: BENCH_CACHE=memory (or redis, with
# CALENDAR_REDIS_URL) measures cached answers.
BENCH_CACHE ?= off
bench: build
	$(GO) build -o bin/calendard-bench ./cmd/calendard-bench
	CALENDAR_CACHE=$(BENCH_CACHE) bin/calendard-bench --build=false --bin $(BIN) --events $(EVENTS) --stores $(STORES) \
		--concurrency $(CONCURRENCY) --warmup $(WARMUP) --duration $(DURATION) --out $(BENCH_OUT) $(BENCH_FLAGS)

# bench-quick tries the benchmark in about a minute: 2,000 events, short windows, report in bin/.
bench-quick:
	$(MAKE) bench EVENTS=2000 CONCURRENCY=1,8 WARMUP=1s DURATION=3s BENCH_OUT=bin/bench-quick.md
