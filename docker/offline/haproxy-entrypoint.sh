#!/bin/sh
# As the official haproxy image: arguments starting with "-" go to haproxy, which runs in the
# foreground in master-worker mode (-W: SIGUSR2 reloads, -db: no daemon).
set -e
case "$1" in -*) set -- haproxy "$@" ;; esac
if [ "$1" = haproxy ]; then
  shift
  set -- haproxy -W -db "$@"
fi
exec "$@"
