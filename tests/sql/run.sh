#!/usr/bin/env bash
# Run the pgTAP suite against $ACTAE_DSN (a libpq connection string; pgTAP, the Actae
# schema and functions must be installed). pg_prove splits option values on "=", so the
# DSN's "=" are escaped for it. Extra arguments go to pg_prove (e.g. a single file).
set -euo pipefail
: "${ACTAE_DSN:?ACTAE_DSN is not set}"
here=$(cd "$(dirname "$0")" && pwd)
# Tests are tests/sql/<function>/<behaviour>.sql; tests/sql/schema.sql is the schema snapshot.
if [[ $# -eq 0 ]]; then mapfile -t files < <(find "$here" -mindepth 2 -name '*.sql' | sort); set -- "${files[@]}"; fi
exec pg_prove --ext .sql --dbname "${ACTAE_DSN//=/\\=}" "$@"
