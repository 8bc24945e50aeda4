#!/bin/sh
# As the official redis image: arguments starting with "-" go to redis-server, which runs without
# protected mode when no configuration file is named (the container's network is the boundary).
set -e
case "$1" in -*) set -- redis-server "$@" ;; esac
if [ "$1" = redis-server ]; then
  case "${2:-}" in
    */*.conf|*.conf) ;;
    *) shift; set -- redis-server --protected-mode no "$@" ;;
  esac
fi
exec "$@"
