# Sourced by .ci/run: a throw-away PostgreSQL server for the store's backend tests.
#
# initdb into a temporary folder, listen on 127.0.0.1 only, on a free port, with password
# (scram) authentication over TCP; the superuser's password is random and reaches the tests
# through PGPASSWORD, never through the URL. The server is stopped and its folder removed at
# exit (the trap). PostgreSQL refuses to run as root, so as root it runs as the 'postgres'
# system user (created if missing).
#
# Exports POOLKIT_TEST_POSTGRES (a libpq URL without password) and PGPASSWORD.

pg_bindir() {
    if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
        pg_config --bindir
        return
    fi
    local d
    for d in /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
        if [ -x "$d/initdb" ]; then echo "$d"; return; fi
    done
    command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)"
}

start_throwaway_postgres() {
    local bindir port owner
    bindir="$(pg_bindir)" || true
    if [ -z "${bindir:-}" ]; then
        echo "postgres: no server binaries (initdb) found; the PostgreSQL store tests will skip" >&2
        return 0
    fi
    PG_TMP="$(mktemp -d /tmp/poolkit-pg.XXXXXX)"
    port="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    PGPASSWORD="$(python -c 'import secrets; print(secrets.token_hex(16))')"
    printf '%s\n' "$PGPASSWORD" > "$PG_TMP/pwfile"
    owner=""
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
        owner=postgres
        chown -R postgres "$PG_TMP"
        chmod 700 "$PG_TMP"
    fi
    pg_as() { if [ -n "$owner" ]; then runuser -u "$owner" -- "$@"; else "$@"; fi; }
    pg_as "$bindir/initdb" -D "$PG_TMP/data" -U postgres --pwfile="$PG_TMP/pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C >"$PG_TMP/initdb.log" 2>&1 \
        || { cat "$PG_TMP/initdb.log" >&2; return 1; }
    rm -f "$PG_TMP/pwfile"
    pg_as "$bindir/pg_ctl" -D "$PG_TMP/data" -l "$PG_TMP/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $PG_TMP -c fsync=off" start >/dev/null \
        || { cat "$PG_TMP/server.log" >&2; return 1; }
    PG_STOP="$bindir/pg_ctl"
    PG_OWNER="$owner"
    trap stop_throwaway_postgres EXIT
    export PGPASSWORD
    export POOLKIT_TEST_POSTGRES="postgresql://postgres@127.0.0.1:$port/postgres"
    echo "postgres: throw-away server on 127.0.0.1:$port ($PG_TMP)"
}

stop_throwaway_postgres() {
    if [ -n "${PG_TMP:-}" ] && [ -d "$PG_TMP/data" ]; then
        if [ -n "${PG_OWNER:-}" ]; then
            runuser -u "$PG_OWNER" -- "$PG_STOP" -D "$PG_TMP/data" -m fast -w stop >/dev/null 2>&1 || true
        else
            "$PG_STOP" -D "$PG_TMP/data" -m fast -w stop >/dev/null 2>&1 || true
        fi
    fi
    [ -n "${PG_TMP:-}" ] && rm -rf "$PG_TMP"
}

# `bash .ci/postgres.sh run CMD ARGS...`: CMD with a throw-away server (benchmarks use it).
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = run ]; then
    set -euo pipefail
    shift
    start_throwaway_postgres
    "$@"
fi
