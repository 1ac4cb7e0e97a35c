#!/usr/bin/env bash
# Run a command against a migrated Actae database: .ci/with-db.sh CMD ARGS...
#
# ACTAE_DSN unset: start the local server (.ci/pg.sh), export its ACTAE_DSN and PG* vars, and
#   stop it when CMD ends if this script started it, unless ACTAE_KEEP_DB=1. With
#   ACTAE_FRESH_DB=1 its database "actae" is dropped and recreated first, so migrations run
#   from scratch as in CI.
# ACTAE_DSN set: use that database; PG* vars are derived from it for psql-based tools.
# Then create the pgtap and plpgsql_check extensions when the server has them, apply the
# migrations (`python -m actae migrate`), run CMD and exit with its status.
# Inside another with-db.sh (ACTAE_WITH_DB=1), CMD just runs: one server, one migration.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
PY=$REPO/.venv/bin/python
PSQL=${ACTAE_PG_BIN:-/usr/lib/postgresql/15/bin}/psql

[[ $# -gt 0 ]] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }
[[ ${ACTAE_WITH_DB:-} == 1 ]] && exec "$@"

if [[ -z ${ACTAE_DSN:-} ]]; then
    if [[ ${ACTAE_KEEP_DB:-0} != 1 ]] && ! "$REPO/.ci/pg.sh" status >/dev/null; then
        trap '"$REPO/.ci/pg.sh" stop' EXIT
    fi
    action=start
    [[ ${ACTAE_FRESH_DB:-0} == 1 ]] && action=fresh
    "$REPO/.ci/pg.sh" "$action"
    eval "$("$REPO/.ci/pg.sh" env)"
else
    # libpq reads PGHOST, PGPORT, ... so tools given no DSN reach the same database.
    eval "$("$PY" -c '
import os, shlex
from psycopg.conninfo import conninfo_to_dict
keys = ("host", "hostaddr", "port", "user", "password", "dbname", "sslmode", "options",
        "service", "passfile", "sslrootcert", "sslcert", "sslkey", "connect_timeout")
env = {"dbname": "PGDATABASE", "connect_timeout": "PGCONNECT_TIMEOUT"}
for key, value in conninfo_to_dict(os.environ["ACTAE_DSN"]).items():
    if key in keys and value is not None:
        name = env.get(key) or "PG" + key.upper()
        print(f"export {name}={shlex.quote(str(value))}")
')"
fi
export ACTAE_WITH_DB=1

"$PSQL" -X -q -v ON_ERROR_STOP=1 --dbname "$ACTAE_DSN" <<'SQL'
do $$
declare
    v_name text;
begin
    for v_name in
        select name from pg_available_extensions
        where name in ('pgtap', 'plpgsql_check') and installed_version is null
    loop
        execute format('create extension if not exists %I', v_name);
    end loop;
end;
$$;
SQL
"$PY" -m actae migrate

rc=0
"$@" || rc=$?
exit "$rc"
