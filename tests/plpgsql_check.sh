#!/usr/bin/env bash
# Static check of every PL/pgSQL function in schema actae with the plpgsql_check extension
# (sqlfluff sees $$ bodies as strings; this reads them). Needs ACTAE_DSN; run it through
# .ci/with-db.sh (`make plpgsql-check`), which creates the extension and migrates.
# Fatal errors, warnings, extra warnings and security warnings all fail the check. A function
# can opt out of one check with an in-comment option, e.g. `-- @plpgsql_check_options: ...`.
# Trigger functions are checked against a table they are attached to, skipped if none.
set -euo pipefail
: "${ACTAE_DSN:?ACTAE_DSN is not set (run via .ci/with-db.sh or make plpgsql-check)}"
PSQL=${ACTAE_PG_BIN:-/usr/lib/postgresql/15/bin}/psql

query() { "$PSQL" -X -q -At -v ON_ERROR_STOP=1 --dbname "$ACTAE_DSN" -c "$1"; }

TARGETS="
    select p.oid as fn,
           p.prorettype = 'trigger'::regtype as is_trigger,
           (select min(t.tgrelid) from pg_trigger t where t.tgfoid = p.oid) as relid
    from pg_proc p
    join pg_namespace n on n.oid = p.pronamespace
    join pg_language l on l.oid = p.prolang
    where n.nspname = 'actae' and l.lanname = 'plpgsql'"

if [[ -z $(query "select 1 from pg_extension where extname = 'plpgsql_check'") ]]; then
    echo "plpgsql_check: the extension is not installed in this database" >&2
    exit 1
fi

checked=$(query "select count(*) from ($TARGETS) t where not is_trigger or relid is not null")
skipped=$(query "select string_agg(fn::regprocedure::text, ', ')
                 from ($TARGETS) t where is_trigger and relid is null")

findings=$(query "
    select format('%s line %s: %s %s: %s%s%s',
                  t.fn::regprocedure, coalesce(c.lineno::text, '?'), c.level, c.sqlstate,
                  c.message,
                  coalesce(E'\n    detail: ' || c.detail, ''),
                  coalesce(E'\n    hint: ' || c.hint, ''))
    from ($TARGETS) t
    cross join lateral plpgsql_check_function_tb(
        t.fn, coalesce(t.relid, 0), fatal_errors => false, security_warnings => true) c
    where not t.is_trigger or t.relid is not null
    order by t.fn::regprocedure::text, c.lineno")

[[ -z $skipped ]] || echo "plpgsql_check: skipped trigger functions with no trigger: $skipped"
if [[ -n $findings ]]; then
    printf '%s\n' "$findings"
    echo "plpgsql_check: $(grep -vc '^    ' <<<"$findings") finding(s) in $checked function(s)" >&2
    exit 1
fi
echo "plpgsql_check: $checked function(s) checked, no findings"
