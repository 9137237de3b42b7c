#!/usr/bin/env bash
# A throw-away PostgreSQL server on loopback, for the tests, the fleet proof and the demo.
#
#   scripts/postgres.sh start DIR   installs PostgreSQL from Debian when it is missing, makes a cluster in a new
#                                   temporary folder (initdb; as the `postgres` user when run as root, which initdb
#                                   refuses), starts it on a free 127.0.0.1 port with trust authentication, makes
#                                   the database `endpointkit`, and writes DIR/postgres.env
#                                   (ENDPOINTKIT_POSTGRES_URL, ENDPOINTKIT_POSTGRES_DATA, ENDPOINTKIT_POSTGRES_BIN)
#                                   and DIR/postgres.pid
#   scripts/postgres.sh stop DIR    stops it by PID (a fast shutdown, then SIGKILL), and removes its folder
#
# For the demo, one command: `scripts/postgres.sh start /tmp/ek-pg && source /tmp/ek-pg/postgres.env`.
set -euo pipefail
cd "$(dirname "$0")/.."

command=${1:?usage: postgres.sh start|stop DIR}
state=${2:?usage: postgres.sh start|stop DIR}
mkdir -p "$state"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The newest server binaries Debian's packages installed.
server_bin() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$found" ] && [ -x "$found/initdb" ] && echo "$found"
}

install_missing() {
    server_bin >/dev/null && return 0
    echo "postgres: installing PostgreSQL from Debian"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    server_bin >/dev/null || { echo "postgres: no initdb after installing postgresql" >&2; return 1; }
}

# Runs a server program as the user who may own the cluster: `postgres` when this script runs as root.
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start() {
    install_missing
    local bin data port
    bin=$(server_bin)
    # Outside DIR: DIR may be a folder only root can enter, and the cluster's owner must enter its own.
    data=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-postgres.XXXXXX")
    [ "$(id -u)" = 0 ] && chown postgres: "$data"
    chmod 700 "$data"
    as_owner "$bin/initdb" -D "$data/cluster" -U endpointkit --auth=trust -E UTF8 --no-sync >"$state/postgres.log"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/postgres" -D "$data/cluster" -p "$port" -c listen_addresses=127.0.0.1 \
        -c unix_socket_directories="$data" -c max_connections=200 -c fsync=on \
        >>"$state/postgres.log" 2>&1 &
    local pid=$! # the shell that starts it, until the server writes its own PID
    for _ in $(seq 1 300); do
        if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then break; fi
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "postgres: the server exited during start-up; its log:" >&2
            cat "$state/postgres.log" >&2
            return 1
        fi
        sleep 0.1
    done
    "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" || { echo "postgres: no answer in 30 s" >&2; return 1; }
    pid=$(head -n 1 "$data/cluster/postmaster.pid")
    echo "$pid" >"$state/postgres.pid"
    "$bin/psql" -q -h 127.0.0.1 -p "$port" -U endpointkit -d postgres -c "CREATE DATABASE endpointkit" >/dev/null
    cat >"$state/postgres.env" <<ENV
export ENDPOINTKIT_POSTGRES_URL=postgres://endpointkit@127.0.0.1:$port/endpointkit
export ENDPOINTKIT_POSTGRES_DATA=$data/cluster
export ENDPOINTKIT_POSTGRES_BIN=$bin
ENV
    echo "postgres: $("$bin/postgres" --version | sed 's/postgres (PostgreSQL) /PostgreSQL /') on 127.0.0.1:$port" \
        "(database endpointkit, user endpointkit), PID $pid"
}

stop() {
    [ -f "$state/postgres.pid" ] || return 0
    local pid data
    pid=$(cat "$state/postgres.pid")
    data=$(sed -n 's/^export ENDPOINTKIT_POSTGRES_DATA=//p' "$state/postgres.env" 2>/dev/null || true)
    # A restart by the fleet proof (pg_ctl restart) leaves a new postmaster: its PID is in the cluster's file.
    if [ -n "$data" ] && [ -f "$data/postmaster.pid" ]; then pid=$(head -n 1 "$data/postmaster.pid"); fi
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$state/postgres.pid"
    [ -n "$data" ] && rm -rf "$(dirname "$data")"
}

case "$command" in
start) start ;;
stop) stop ;;
*) echo "usage: postgres.sh start|stop DIR" >&2; exit 64 ;;
esac
