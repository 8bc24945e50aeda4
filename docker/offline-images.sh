#!/usr/bin/env bash
# Builds, without any container registry, images equivalent to the upstream ones docker/compose*.yaml
# and the container tests use: a Debian base made by debootstrap and `docker import`, MariaDB,
# Redis and HAProxy from Debian's packages, Meilisearch from the binary the tests run (.ci/install-meilisearch),
# and calendard from docker/Dockerfile (from the host's static build, or compiled in a builder made
# of that base and the host's Go toolchain: CALENDARD_BUILD below). Images that exist are kept (REBUILD=1 rebuilds them),
# except a Debian-package image whose Dockerfile or entrypoint in docker/offline changed since it was built;
# calendard is rebuilt every time, as its source changes. The tags are written to
# bin/docker-images.env, ready for `docker compose --env-file` and for the tests' environment.
#
# Needs: a running Docker engine, debootstrap, Go; the Debian mirror is the one apt uses here.
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX=${LOCAL_IMAGE_PREFIX:-calendard-local}
SUITE=${DEBIAN_SUITE:-bookworm}
REBUILD=${REBUILD:-0}
BASE_IMAGE=$PREFIX/debian:$SUITE
GO_VERSION=$(go env GOVERSION)
GOLANG_IMAGE=$PREFIX/golang:${GO_VERSION#go}
MARIADB_IMAGE=$PREFIX/mariadb:10.11
REDIS_IMAGE=$PREFIX/redis:7.0
HAPROXY_IMAGE=$PREFIX/haproxy:2.6
MEILI_IMAGE=$PREFIX/meilisearch:v1.21
CALENDARD_IMAGE=$PREFIX/calendard:latest
ENV_FILE=bin/docker-images.env
mkdir -p bin

step_start=0
step() { step_start=$(date +%s.%N); printf '%-28s' "$1"; }
done_step() { printf '%6.1f s  %s\n' "$(echo "$(date +%s.%N) - $step_start" | bc)" "$1"; }
have() { [ "$REBUILD" != 1 ] && docker image inspect "$1" >/dev/null 2>&1; }
# current IMAGE INPUTS: have IMAGE, built from INPUTS (a hash, kept in the image's io.calendard.inputs label).
current() { have "$1" && [ "$(docker image inspect -f '{{index .Config.Labels "io.calendard.inputs"}}' "$1")" = "$2" ]; }

# mirror prints the first Debian archive URI apt is configured with (one-line or deb822 sources),
# so debootstrap fetches from the same place apt-get does on this machine.
mirror() {
  local files=() f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  awk -v suite="$SUITE" '
    /^[[:space:]]*#/ { next }
    $1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i+1) == suite) { print $i; exit } break } }
    $1 == "URIs:" { uri = $2 }
    $1 == "Suites:" { for (i = 2; i <= NF; i++) if ($i == suite && uri != "") { print uri; exit } }
    /^[[:space:]]*$/ { uri = "" }
  ' "${files[@]}"
}

if have "$BASE_IMAGE"; then
  echo "$BASE_IMAGE: present"
else
  MIRROR=${DEBIAN_MIRROR:-$(mirror)}
  [ -n "$MIRROR" ] || { echo "no Debian mirror for $SUITE in /etc/apt/sources.list*; set DEBIAN_MIRROR" >&2; exit 1; }
  step "$BASE_IMAGE"
  rootfs=$(mktemp -d)
  trap 'rm -rf "$rootfs"' EXIT
  debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >bin/debootstrap.log 2>&1 ||
    { tail -n 20 bin/debootstrap.log >&2; exit 1; }
  # Images are not booted: no apt caches or lists in the layer.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  # dpkg without an fsync per file, as Debian's official images have it: an image build that fails is
  # simply run again (this speeds up the MariaDB, Redis and Meilisearch images' apt-get installs).
  printf 'force-unsafe-io\n' >"$rootfs"/etc/dpkg/dpkg.cfg.d/docker-apt-speedup
  tar -C "$rootfs" -c . | docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'CMD ["bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
  done_step "debootstrap $SUITE from $MIRROR"
fi

# build IMAGE DOCKERFILE CONTEXT [ARGS...]: docker build on the host's network (apt inside reaches the
# same mirror as debootstrap did), quiet unless it fails.
build() {
  local image=$1 file=$2 ctx=$3 log
  shift 3
  log=bin/docker-build-$(basename "${image%%:*}").log
  if ! docker build --network host -t "$image" -f "$file" "$@" "$ctx" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    exit 1
  fi
}

for spec in "$MARIADB_IMAGE:mariadb" "$REDIS_IMAGE:redis" "$HAPROXY_IMAGE:haproxy"; do
  image=${spec%:*} name=${spec##*:}
  inputs=$(cat "docker/offline/$name.Dockerfile" "docker/offline/$name-entrypoint.sh" | sha256sum | cut -c1-16)
  if current "$image" "$inputs"; then echo "$image: present"; continue; fi
  step "$image"
  build "$image" "docker/offline/$name.Dockerfile" docker/offline --build-arg "BASE_IMAGE=$BASE_IMAGE" \
    --label "io.calendard.inputs=$inputs"
  done_step "Debian's $name"
done

# The script that fetches the binary (it pins the release) is an input, the binary itself is not
# (100 MB to hash on every run).
inputs=$(cat docker/offline/meilisearch.Dockerfile .ci/install-meilisearch | sha256sum | cut -c1-16)
if current "$MEILI_IMAGE" "$inputs"; then
  echo "$MEILI_IMAGE: present"
else
  step "$MEILI_IMAGE"
  bash .ci/install-meilisearch >/dev/null
  meili="${CALENDARD_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/calendard}/meilisearch-1.21.0/meilisearch"
  ctx=$(mktemp -d)
  cp docker/offline/meilisearch.Dockerfile "$ctx/Dockerfile"
  ln "$meili" "$ctx/meilisearch" 2>/dev/null || cp "$meili" "$ctx/meilisearch"
  build "$MEILI_IMAGE" "$ctx/Dockerfile" "$ctx" --build-arg "BASE_IMAGE=$BASE_IMAGE" \
    --label "io.calendard.inputs=$inputs"
  rm -rf "$ctx"
  done_step "binary of .ci/install-meilisearch"
fi

# calendard itself. CALENDARD_BUILD=host (the default, and CI's) compiles the static binary on the
# host, with the Dockerfile's command, tags and flags but -trimpath (which would compile every package
# again instead of sharing the build cache with the tests: make test builds with CGO_ENABLED=0 too,
# so on a fresh machine the tree is compiled once for both), and builds docker/Dockerfile from it
# (PREBUILT). CALENDARD_BUILD=image compiles inside the builder
# stage instead, as a registry user's `docker build` does, from a local Go image and the modules
# vendored into the context: minutes on a fresh machine, most of them compiling the modules.
# CALENDARD_BUILD=none builds every other image and leaves calendard's for a later run: .ci/run
# builds those while the Go build cache is being filled, then calendard once it is.
# nomsgpack: see the Makefile (gin's MessagePack support, unused, left out of every build).
CALENDARD_BUILD=${CALENDARD_BUILD:-host}
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
if [ "$CALENDARD_BUILD" = none ]; then
  echo "$CALENDARD_IMAGE: left for later (CALENDARD_BUILD=none)"
elif [ "$CALENDARD_BUILD" = host ]; then
  step "$CALENDARD_IMAGE"
  cp go.mod go.sum "$ctx/"
  CGO_ENABLED=0 go build -tags nomsgpack -ldflags='-s -w' -o "$ctx/calendard" ./cmd/calendard
  build "$CALENDARD_IMAGE" docker/Dockerfile "$ctx" --build-arg "GO_IMAGE=$BASE_IMAGE" \
    --build-arg RUNTIME_IMAGE=scratch --build-arg PREBUILT=calendard
  done_step "docker/Dockerfile from the host's build, $(docker image inspect -f '{{.Size}}' "$CALENDARD_IMAGE" | awk '{printf "%.1f MB", $1/1e6}')"
else
  # The Go builder: the host's toolchain (the one go.mod's go line is built with here) on the base.
  if have "$GOLANG_IMAGE"; then
    echo "$GOLANG_IMAGE: present"
  else
    step "$GOLANG_IMAGE"
    gctx=$(mktemp -d)
    printf 'ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nCOPY go /usr/local/go\nENV PATH=/usr/local/go/bin:$PATH GOTOOLCHAIN=local GOPROXY=off\n' >"$gctx/Dockerfile"
    cp -a "$(go env GOROOT)" "$gctx/go"
    build "$GOLANG_IMAGE" "$gctx/Dockerfile" "$gctx" --build-arg "BASE_IMAGE=$BASE_IMAGE"
    rm -rf "$gctx"
    done_step "Go from $(go env GOROOT)"
  fi

  # calendard's build context: the work tree's sources (tracked and new files, as .gitignore and
  # .dockerignore leave them) and the modules vendored beside them, so that the build stage needs no
  # network. vendor/ is made here, never in the work tree (a vendor/ there would switch every go
  # command in it to vendor mode).
  git ls-files -z --cached --others --exclude-standard | xargs -0 -r sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' _ |
    tar --null -T - -c | tar -x -C "$ctx"
  go mod vendor -o "$ctx/vendor"

  # The packages calendard's binary imports from modules, compiled once into a builder image of their
  # own, so that calendard's build compiles only what changed since: the same paths and flags as the
  # Dockerfile's build give the same Go build cache keys. It is only a warm cache (a module added
  # later is compiled by calendard's build), so it is kept whatever changes, like the other images.
  go list -deps -tags nomsgpack -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./cmd/calendard | grep -v '^github.com/calendard/calendard' >"$ctx/deps.txt"
  DEPS_IMAGE=$PREFIX/golang-deps:${GO_VERSION#go}
  if have "$DEPS_IMAGE"; then
    echo "$DEPS_IMAGE: present"
  else
    step "$DEPS_IMAGE"
    printf '%s\n' 'ARG GO_IMAGE' 'FROM ${GO_IMAGE}' 'WORKDIR /src' 'ENV CGO_ENABLED=0' 'COPY go.mod go.sum deps.txt ./' 'COPY vendor ./vendor' \
      'RUN xargs go build -mod=vendor -trimpath -tags nomsgpack <deps.txt' >"$ctx/deps.Dockerfile"
    build "$DEPS_IMAGE" "$ctx/deps.Dockerfile" "$ctx" --build-arg "GO_IMAGE=$GOLANG_IMAGE"
    done_step "modules calendard imports, compiled"
  fi

  step "$CALENDARD_IMAGE"
  build "$CALENDARD_IMAGE" docker/Dockerfile "$ctx" --build-arg "GO_IMAGE=$DEPS_IMAGE" \
    --build-arg RUNTIME_IMAGE=scratch --build-arg GOFLAGS=-mod=vendor
  done_step "docker/Dockerfile, $(docker image inspect -f '{{.Size}}' "$CALENDARD_IMAGE" | awk '{printf "%.1f MB", $1/1e6}')"
fi
if [ "$CALENDARD_BUILD" != none ]; then
  # Docker's classic builder keeps each build's first stage as an untagged image (~190 MB: the base
  # and the context), and the calendard image a rebuild replaces loses its tag: both are labelled by
  # docker/Dockerfile and removed here, once untagged, so that repeated runs do not fill the disk.
  docker image prune -f --filter label=io.calendard.stage=build >/dev/null
  docker image prune -f --filter label=io.calendard.stage=final >/dev/null
fi

cat >"$ENV_FILE" <<ENV
# Written by docker/offline-images.sh: images built here from Debian packages, in place of the
# upstream ones (docker compose --env-file $ENV_FILE ...; make compat-docker reads it too).
CALENDARD_IMAGE=$CALENDARD_IMAGE
MARIADB_IMAGE=$MARIADB_IMAGE
REDIS_IMAGE=$REDIS_IMAGE
MEILI_IMAGE=$MEILI_IMAGE
HAPROXY_IMAGE=$HAPROXY_IMAGE
ENV
echo "tags in $ENV_FILE"
