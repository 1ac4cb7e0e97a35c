#!/usr/bin/env bash
# Throwaway local PostgreSQL for Actae development and CI.
#
#   .ci/pg.sh start    initdb if needed, start, wait until ready, create database "actae"
#   .ci/pg.sh fresh    start, then drop and recreate database "actae" (an empty database)
#   .ci/pg.sh stop     stop the server (no-op when it is not running)
#   .ci/pg.sh status   exit 0 and say so when running, exit 3 otherwise
#   .ci/pg.sh env      print export lines: ACTAE_DSN, PGHOST, PGPORT, PGUSER, PGDATABASE
#
# Data lives in .actae/ (pgdata/, run/ for the unix socket, log/). When the server must run
# as the postgres user (we are root) and that user cannot reach the repo (e.g. a clone under
# a 0700 `mktemp -d` folder), or the socket path would be too long or hold spaces, it lives
# in /tmp/actae-pg-<hash of repo path> instead. .actae/base records which.
# Settings: ACTAE_PG_PORT (default 54329), ACTAE_PG_BIN (default /usr/lib/postgresql/15/bin).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
STATE=$REPO/.actae
PG_BIN=${ACTAE_PG_BIN:-/usr/lib/postgresql/15/bin}
PORT_DEFAULT=${ACTAE_PG_PORT:-54329}
DBNAME=actae
SUPERUSER=postgres

# Run a server-side command as the user that owns the cluster.
as_owner() {
    if [[ $EUID -eq 0 ]]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# Where the data area is: .actae/ itself, or a /tmp folder named after the repo path.
# A choice recorded in .actae/base wins if it still belongs to this repo path.
base_dir() {
    local fallback recorded
    fallback=/tmp/actae-pg-$(printf '%s' "$REPO" | sha256sum | cut -c1-12)
    recorded=$(cat "$STATE/base" 2>/dev/null || true)
    if [[ $recorded == "$STATE" || $recorded == "$fallback" ]]; then
        echo "$recorded"
    elif [[ $EUID -eq 0 ]] && ! runuser -u postgres -- test -x "$REPO"; then
        echo "$fallback"
    elif (( ${#STATE} + 30 > 100 )) || [[ $STATE == *[[:space:]]* ]]; then
        echo "$fallback"  # socket paths are limited to ~107 bytes; the DSN has no quoting
    else
        echo "$STATE"
    fi
}

BASE=$(base_dir)
PGDATA=$BASE/pgdata
RUN=$BASE/run
LOG=$BASE/log/postgres.log

running() {
    [[ -f $PGDATA/postmaster.pid ]] && as_owner "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1
}

# Port of the running server (postmaster.pid line 4), else the configured one.
port() {
    if running; then sed -n 4p "$PGDATA/postmaster.pid"; else echo "$PORT_DEFAULT"; fi
}

psql_admin() {
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$RUN" -p "$(port)" -U "$SUPERUSER" "$@"
}

init() {
    mkdir -p "$STATE"
    printf '%s\n' "$BASE" >"$STATE/base"
    mkdir -p "$BASE" "$RUN" "$(dirname "$LOG")"
    if [[ $EUID -eq 0 ]]; then chown postgres: "$BASE" "$RUN" "$BASE/log"; fi
    chmod 700 "$BASE"
    [[ -f $PGDATA/PG_VERSION ]] && return
    as_owner "$PG_BIN/initdb" -D "$PGDATA" -U "$SUPERUSER" --auth=trust \
        --encoding=UTF8 --locale=C.UTF-8 >"$BASE/log/initdb.log" 2>&1 \
        || { cat "$BASE/log/initdb.log" >&2; exit 1; }
    cat >>"$PGDATA/postgresql.conf" <<EOF

# Actae test server
listen_addresses = '127.0.0.1'
unix_socket_directories = '$RUN'
max_connections = 200
shared_preload_libraries = ''
timezone = 'UTC'
log_min_messages = warning
EOF
}

start() {
    init
    if ! running; then
        if ! as_owner "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$LOG" -o "-p $PORT_DEFAULT" \
            -w -t 60 start >/dev/null; then
            echo "pg.sh: server did not start (is port $PORT_DEFAULT in use? set" \
                "ACTAE_PG_PORT); last log lines:" >&2
            tail -n 20 "$LOG" >&2
            exit 1
        fi
    fi
    "$PG_BIN/pg_isready" -q -h "$RUN" -p "$(port)" -t 30
    local exists
    exists=$(psql_admin -d postgres -tAc "select 1 from pg_database where datname = '$DBNAME'")
    [[ -n $exists ]] || psql_admin -d postgres -c "create database $DBNAME"
}

stop() {
    if running; then as_owner "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null; fi
}

env_lines() {
    local p
    p=$(port)
    printf 'export ACTAE_DSN=%q\n' "host=$RUN port=$p user=$SUPERUSER dbname=$DBNAME"
    printf 'export PGHOST=%q PGPORT=%q PGUSER=%q PGDATABASE=%q\n' "$RUN" "$p" "$SUPERUSER" "$DBNAME"
}

case ${1:-} in
    start) start ;;
    fresh)
        start
        psql_admin -d postgres -c "drop database $DBNAME with (force)" -c "create database $DBNAME"
        ;;
    stop) stop ;;
    status)
        if running; then echo "running: $PGDATA (port $(port))"; else echo "stopped"; exit 3; fi ;;
    env) env_lines ;;
    *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
