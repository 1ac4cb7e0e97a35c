#!/usr/bin/env bash
# Run CMD against a migrated Actae database: .ci/with-db.sh CMD ARGS... (python/actae/pg.py:
# ACTAE_DSN when set, else the local server in .ci/../.actae, stopped afterwards).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec .venv/bin/python -m actae.pg run -- "$@"
