#!/usr/bin/env bash
# Starts the Redis and Meilisearch images named in bin/docker-images.env (or the environment) on the
# host network, on loopback ports, and checks each answers its own health probe, as compose's
# health checks will ask it, and has the HAProxy image check the fleet's configuration. The MariaDB
# and calendard images are proven by make compat-docker, and the fleet as a whole by TestFleetDocker.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f bin/docker-images.env ] && . bin/docker-images.env
port() { shuf -i 20000-59999 -n 1; }
ids=()
trap 'for id in "${ids[@]}"; do docker rm -f "$id" >/dev/null 2>&1 || true; done' EXIT

# probe NAME CONTAINER CMD...: retries CMD inside the container for up to 30 s.
probe() {
  local name=$1 id=$2
  shift 2
  for _ in $(seq 150); do
    if out=$(docker exec "$id" "$@" 2>/dev/null); then echo "$name: $out"; return 0; fi
    sleep 0.2
  done
  docker logs "$id" 2>&1 | tail -n 20 >&2
  echo "$name did not answer" >&2
  return 1
}

p=$(port)
ids+=("$(docker run -d --network host "${REDIS_IMAGE:-redis:7.0}" --port "$p" --bind 127.0.0.1 --save '')")
probe "${REDIS_IMAGE:-redis:7.0} redis-cli ping" "${ids[-1]}" redis-cli -p "$p" ping

p=$(port)
ids+=("$(docker run -d --network host -e MEILI_HTTP_ADDR="127.0.0.1:$p" -e MEILI_MASTER_KEY="smoke-$(date +%s%N)" \
  -e MEILI_ENV=development "${MEILI_IMAGE:-getmeili/meilisearch:v1.21}")")
probe "${MEILI_IMAGE:-getmeili/meilisearch:v1.21} /health" "${ids[-1]}" curl -fsS "http://127.0.0.1:$p/health"
# A stop must reach the server (the image's init passes SIGTERM on; as PID 1 alone Meilisearch
# ignores it, and docker stop kills it after the timeout: exit 137).
docker stop -t 5 "${ids[-1]}" >/dev/null
code=$(docker inspect -f '{{.State.ExitCode}}' "${ids[-1]}")
if [ "$code" = 137 ]; then echo "${MEILI_IMAGE:-getmeili/meilisearch:v1.21} ignored SIGTERM and was killed" >&2; exit 1; fi
echo "${MEILI_IMAGE:-getmeili/meilisearch:v1.21} stopped on SIGTERM (exit $code)"

# HAProxy's own check of the fleet's configuration (docker/compose.fleet.yaml mounts it).
docker run --rm --network none -v "$PWD/docker/haproxy/fleet.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" \
  "${HAPROXY_IMAGE:-haproxy:2.6}" haproxy -c -f /usr/local/etc/haproxy/haproxy.cfg
