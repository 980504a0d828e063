#!/bin/bash
# Entrypoint of sdwan/postgres:local (see Dockerfile for the contract).
# Extra args after "postgres" are passed to the server, e.g. `postgres -c fsync=off`.
set -euo pipefail

: "${PGDATA:=/var/lib/postgresql/data}"
: "${PGPORT:=5432}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_PASSWORD:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
export PGDATA PGPORT

# Accept the official image's calling convention: CMD ["postgres", args...].
if [ "${1:-}" = postgres ]; then shift; fi
if [ "${1:-}" != "" ] && [ "${1:0:1}" != "-" ]; then
  exec "$@"   # arbitrary command, e.g. `psql ...`
fi

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" \
    -E UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=md5 >/dev/null
  rm -f "$pwfile"
  if [ "$POSTGRES_DB" != postgres ]; then
    # Single-user mode: never prints "ready to accept connections".
    db_ident="\"${POSTGRES_DB//\"/\"\"}\""
    user_ident="\"${POSTGRES_USER//\"/\"\"}\""
    if ! out="$(echo "CREATE DATABASE $db_ident OWNER $user_ident;" \
        | postgres --single -D "$PGDATA" -c listen_addresses='' postgres 2>&1)"; then
      printf '%s\n' "$out" >&2; exit 1
    fi
  fi
  echo "sdwan/postgres: initialized $PGDATA (user=$POSTGRES_USER db=$POSTGRES_DB port=$PGPORT)"
fi

exec postgres -D "$PGDATA" \
  -c listen_addresses=127.0.0.1 \
  -c port="$PGPORT" \
  -c unix_socket_directories=/var/run/postgresql \
  "$@"
