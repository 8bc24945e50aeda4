#!/bin/bash
# The part of the official mariadb image's entrypoint that calendard's compose files and tests use:
# on an empty data directory, create the system tables, the root password (MARIADB_ROOT_PASSWORD or
# MARIADB_ALLOW_EMPTY_ROOT_PASSWORD), MARIADB_DATABASE and MARIADB_USER/MARIADB_PASSWORD (MYSQL_*
# spellings too), and replication as the official image sets it up: with MARIADB_REPLICATION_USER
# and MARIADB_REPLICATION_PASSWORD alone, a primary's replication account; with MARIADB_MASTER_HOST
# (and MARIADB_MASTER_PORT) too, a replica of that primary (GTID, from its first binlog event);
# then run mariadbd in the foreground, logging to stderr. As there, the initialisation runs on a
# server started with the command's own options (log-bin, server-id), and only the root accounts
# are kept out of the binlog: the database, the user and the replication account are replicated.
set -euo pipefail
if [ "${1:0:1}" = '-' ]; then set -- mariadbd "$@"; fi
if [ "$1" != mariadbd ] && [ "$1" != mysqld ]; then exec "$@"; fi

root_pw=${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}
allow_empty=${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-${MYSQL_ALLOW_EMPTY_PASSWORD:-}}
database=${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}
user=${MARIADB_USER:-${MYSQL_USER:-}}
password=${MARIADB_PASSWORD:-${MYSQL_PASSWORD:-}}
repl_user=${MARIADB_REPLICATION_USER:-}
repl_password=${MARIADB_REPLICATION_PASSWORD:-}
master_host=${MARIADB_MASTER_HOST:-}
master_port=${MARIADB_MASTER_PORT:-3306}
datadir=/var/lib/mysql

if [ ! -d "$datadir/mysql" ]; then
  if [ -z "$root_pw" ] && [ -z "$allow_empty" ]; then
    echo >&2 'error: database is uninitialized and no root password is set: set MARIADB_ROOT_PASSWORD (or MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=1)'
    exit 1
  fi
  if { [ -n "$repl_user" ] || [ -n "$master_host" ]; } && { [ -z "$repl_user" ] || [ -z "$repl_password" ]; }; then
    echo >&2 'error: replication needs both MARIADB_REPLICATION_USER and MARIADB_REPLICATION_PASSWORD'
    exit 1
  fi
  mariadb-install-db --user=mysql --datadir="$datadir" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve >/dev/null
  sock=/run/mysqld/init.sock
  mariadbd "${@:2}" --user=mysql --datadir="$datadir" --skip-networking --socket="$sock" &
  pid=$!
  for _ in $(seq 300); do mariadb-admin --socket="$sock" -uroot ping >/dev/null 2>&1 && break; sleep 0.1; done
  q() { printf '%s' "$1" | sed "s/'/''/g; s/\\\\/\\\\\\\\/g"; }
  {
    # The root accounts are this server's own: never replicated.
    echo "SET @@SESSION.SQL_LOG_BIN=0;"
    # mariadb-install-db also makes password-less root accounts for 127.0.0.1, ::1 and the host
    # name, which would win over root@'%' for TCP clients: drop them, as the official image does.
    echo "DROP USER IF EXISTS root@'127.0.0.1', root@'::1';"
    echo "EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@\\'', @@hostname, '\\'');"
    echo "CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY '$(q "$root_pw")';"
    echo "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '$(q "$root_pw")';"
    echo "SET @@SESSION.SQL_LOG_BIN=1;"
    if [ -n "$database" ]; then
      echo "CREATE DATABASE IF NOT EXISTS \`$database\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;"
    fi
    if [ -n "$user" ]; then
      echo "CREATE USER IF NOT EXISTS '$(q "$user")'@'%' IDENTIFIED BY '$(q "$password")';"
      [ -n "$database" ] && echo "GRANT ALL ON \`$database\`.* TO '$(q "$user")'@'%';"
    fi
    if [ -n "$repl_user" ] && [ -z "$master_host" ]; then
      echo "CREATE USER '$(q "$repl_user")'@'%' IDENTIFIED BY '$(q "$repl_password")';"
      echo "GRANT REPLICATION REPLICA ON *.* TO '$(q "$repl_user")'@'%';"
    fi
    echo "FLUSH PRIVILEGES;"
    if [ -n "$master_host" ]; then
      echo "CHANGE MASTER TO MASTER_HOST='$(q "$master_host")', MASTER_USER='$(q "$repl_user")', MASTER_PASSWORD='$(q "$repl_password")', MASTER_PORT=$((master_port)), MASTER_CONNECT_RETRY=10, MASTER_USE_GTID=slave_pos;"
      echo "START REPLICA;"
    fi
  } | mariadb --socket="$sock" -uroot
  kill "$pid"
  wait "$pid" || true
fi
exec "$@" --user=mysql
