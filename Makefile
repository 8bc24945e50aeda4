# calendard — see README.md.
SHELL := /bin/bash
GO       ?= go
BIN      ?= bin/calendard
PKGS      = $(shell $(GO) list ./... | grep -v /compat-tests)

.PHONY: build run test unit compat vet fmt-check tidy-check

build:
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

# test is what CI runs: static checks, unit and store tests against real MariaDB, then the
# compatibility suite replaying the recorded reference answers.
test: vet fmt-check unit compat

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

unit:
	$(GO) test -count=1 $(PKGS)

compat:
	$(GO) test -count=1 -v ./compat-tests/ 2>&1 | grep -v -E '^(=== RUN|=== PAUSE|=== CONT)'; exit $${PIPESTATUS[0]}

tidy-check:
	$(GO) mod tidy
	git diff --exit-code go.mod go.sum
