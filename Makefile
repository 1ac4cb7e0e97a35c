# Actae: build, lint and test entry points. CI runs `make test` (see .ci/run).
# Targets that need a database run through `python -m actae.pg run -- CMD` (python/actae/pg.py):
# with ACTAE_DSN set they use that database, otherwise the local server in .actae/
# (ACTAE_PG_PORT, default 54329), started for the command and stopped afterwards. Either way
# pgtap/plpgsql_check are created when available and the migrations applied first.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.NOTPARALLEL:

PG_BIN := /usr/lib/postgresql/15/bin
PG_EXT := /usr/share/postgresql/15/extension
ISOLATION_REGRESS := /usr/lib/postgresql/15/lib/pgxs/src/test/isolation/pg_isolation_regress
export PATH := $(PG_BIN):$(PATH)
# Server binaries for actae.pg: Debian's PostgreSQL 15 unless set (a bin folder, or `embedded`).
export ACTAE_PG_BIN ?= $(PG_BIN)

PY := .venv/bin/python
WITH_DB := $(PY) -m actae.pg run --
# The second pytest pass: no ACTAE_DSN, so the suite's plugin (actae.testing) starts a throwaway
# embedded PostgreSQL 18. Tests marked `once` (wheel install, schema snapshot, the worker's
# settings and signals) run in the first pass only, and so do the worker-timing scenarios of
# stalls and run survival (sleeps and process starts, the same SQL on any version); those
# marked `second` (the SIGKILL and race sweeps, signals to the local server's processes,
# connect timeouts against a server that never answers, the command line's own behaviour, the
# documents' code blocks, the console in a browser, the worker example's story, the pytest
# plugin's own sessions, the 260 MB prefetch) run in this pass only; every suite of the
# SQL's behaviour, crash recovery (db_restart) and bad input run in both. The split keeps the
# two passes, which run side by side, about equally long.
PG18_SKIP := $(addprefix --ignore=tests/python/reliability/,test_stalled.py test_runs_survive.py)
PG18 := env -u ACTAE_DSN -u ACTAE_WITH_DB -u PGHOST -u PGPORT -u PGUSER -u PGDATABASE \
	ACTAE_PG_BIN=embedded

# file-that-proves-it-is-installed=Debian package
DEB_DEPS := $(PG_BIN)/initdb=postgresql-15 \
	$(ISOLATION_REGRESS)=postgresql-client-15 \
	$(PG_EXT)/pgtap.control=postgresql-15-pgtap \
	$(PG_EXT)/plpgsql_check.control=postgresql-15-plpgsql-check \
	/usr/bin/pg_prove=libtap-parser-sourcehandler-pgtap-perl \
	/usr/sbin/pgbouncer=pgbouncer \
	/usr/bin/chromium=chromium

.PHONY: help deps venv migrate lint pgtap plpgsql-check isolation pytest pytest-pg18 test \
	test-inner schema demo demo-worker report fidelity bench bench-quick soak clean distclean

help:
	@echo "make test           deps + venv, then plpgsql-check, pgtap, isolation, pytest (PG 15), and"
	@echo "                    alongside them lint and pytest-pg18 (the suite again on the embedded PostgreSQL 18)"
	@echo "make demo           the crash-recovery story, then the fork saving"
	@echo "make demo-worker    a run survives a killed worker; approval from the CLI"
	@echo "make report         the fork token report (baseline vs fork at step 5)"
	@echo "make fidelity       regenerate docs/FIDELITY.md"
	@echo "make soak           long crash/race/stall/restart/bad-input run (~6 min); docs/RELIABILITY.md"
	@echo "make bench          benchmarks vs the pgbench limit, hand-written SQL, DBOS, LangGraph, Absurd, pgtask (~30 min)"
	@echo "make test-citus     the suites on a 3-node Citus cluster (builds Citus when missing)"
	@echo "make bench-quick    the same, shortened (< 3 min), into tests/bench/.quick/ (a smoke run)"
	@echo "make migrate        apply migrations (ACTAE_DSN, else the local server, left running; prints its DSN)"
	@echo "make schema         regenerate tests/sql/schema.sql (pg_dump of schema actae after all migrations)"
	@echo "make lint | pgtap | plpgsql-check | isolation | pytest | pytest-pg18    one step on its own"
	@echo "make deps | venv    Debian packages | .venv with actae[dev]"
	@echo "make clean          stop the local server and delete .actae/ (distclean: .venv too)"

# Debian packages, installed only when missing (apt needs root; otherwise just say what).
deps:
	@missing=(); \
	for dep in $(DEB_DEPS); do [[ -e $${dep%%=*} ]] || missing+=("$${dep#*=}"); done; \
	python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv); \
	if (( $${#missing[@]} == 0 )); then exit 0; fi; \
	if [[ $$EUID -ne 0 ]]; then \
		echo "deps: missing Debian packages (install them as root): $${missing[*]}" >&2; \
		exit 0; \
	fi; \
	echo "deps: installing $${missing[*]}"; \
	apt-get update -qq; \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"$${missing[@]}" >/dev/null

venv: .venv/.stamp

.venv/.stamp: pyproject.toml
	python3 -m venv .venv
	.venv/bin/pip install -q --disable-pip-version-check -e '.[dev]'
	touch $@

migrate: venv
ifdef ACTAE_DSN
	$(PY) -m actae migrate
else
	$(PY) -m actae.pg start
endif

# pyright --strict on the paths listed under [tool.pyright] strict in pyproject.toml.
lint: venv
	.venv/bin/ruff check $(wildcard python tests)
	@dirs="$(wildcard sql migrations)"; \
	if [[ -n $$dirs ]]; then .venv/bin/sqlfluff lint $$dirs; fi
	.venv/bin/pyright

plpgsql-check: venv
	$(WITH_DB) tests/plpgsql_check.sh

# Tests are tests/sql/<function>/<behaviour>.sql (tests/sql/schema.sql is the schema snapshot).
pgtap: venv
	@if [[ -z $$(find tests/sql -mindepth 2 -name '*.sql' 2>/dev/null | head -n 1) ]]; then \
		echo "pgtap: no tests in tests/sql"; exit 0; fi; \
	$(WITH_DB) pg_prove --failures $$(find tests/sql -mindepth 2 -name '*.sql' | sort)

# Specs are tests/isolation/specs/NAME.spec, expected output tests/isolation/expected/NAME.out.
isolation: venv
	@shopt -s nullglob; specs=(tests/isolation/specs/*.spec); \
	if (( $${#specs[@]} == 0 )); then echo "isolation: no specs, skipped"; exit 0; fi; \
	names=(); for spec in "$${specs[@]}"; do n=$${spec##*/}; names+=("$${n%.spec}"); done; \
	mkdir -p .actae/isolation; \
	$(WITH_DB) bash -c '$(ISOLATION_REGRESS) --use-existing --bindir=$(PG_BIN) \
		--inputdir=tests/isolation --outputdir=.actae/isolation \
		--dbname="$$PGDATABASE" "$$@"' isolation "$${names[@]}"

# Tests marked `second` run in the PostgreSQL 18 pass only (pytest-pg18; see PG18 above).
pytest: venv
	$(WITH_DB) .venv/bin/pytest -q -m 'not second'

pytest-pg18: venv
	$(PG18) .venv/bin/pytest -q -m 'not once' $(PG18_SKIP)

# tests/sql/schema.sql from a throwaway server; its test fails when migrations drift from it.
schema: venv
	$(PY) tests/python/integration/test_schema_snapshot.py --write

# One server start and one migration for every step; -k runs the rest after a failure.
# pgTAP files run one at a time: some alter ledger tables inside their transaction.
# The local database is recreated first (as CI's is new), so an edited migration just works.
test: deps venv
	ACTAE_FRESH_DB=1 $(WITH_DB) $(MAKE) --no-print-directory -k test-inner

# The PostgreSQL 18 pass has a server of its own, so it runs alongside the other steps (most of
# its time is waiting on sleeps and child processes), after lint (which needs no database);
# their output is printed after the others'. The database steps run one after the other on
# the local server (pgTAP files alter ledger tables inside their transactions).
# `trap -`: a plain `cmd &` starts with SIGINT ignored, and tests that Ctrl-C a child need it.
test-inner:
	@mkdir -p .actae; (trap - INT QUIT; exec $(MAKE) --no-print-directory -k lint pytest-pg18) \
		>.actae/alongside.log 2>&1 & \
	alongside=$$!; status=0; \
	$(MAKE) --no-print-directory -k plpgsql-check pgtap isolation pytest || status=$$?; \
	wait $$alongside || status=$$?; \
	echo "make lint pytest-pg18 (ran alongside; .actae/alongside.log):"; cat .actae/alongside.log; \
	exit $$status

# The story in under a minute: a worker killed mid-charge, then a fork that skips the prefix.
demo: deps venv
	ACTAE_FRESH_DB=1 $(WITH_DB) $(PY) -m actae demo

# A run that finishes itself: start a worker, SIGKILL it while the run waits for approval,
# approve from the CLI, start another worker, watch the run finish with one refund.
demo-worker: deps venv
	$(WITH_DB) $(PY) python/examples/refund_desk_worker.py demo

# Fork token report: baseline run, fork at step 5, tokens saved (computed from the run).
report: deps venv
	$(WITH_DB) $(PY) -m actae demo report

# Long crash/race/stall/restart/bad-input run (~6 min on 2 cores); writes docs/RELIABILITY.md.
# SOAK_ARGS: --scale N (default 6), --examples N (hypothesis examples per function, 300).
soak: deps venv
	$(WITH_DB) $(PY) -m tests.python.reliability.soak $(SOAK_ARGS)
	$(WITH_DB) $(PY) -m tests.python.reliability.runs_soak $(RUNS_SOAK_ARGS)

# Not part of `make test` (~20 min on 2 cores): regenerates docs/BENCHMARKS.md and
# docs/bench/. Peers (DBOS, LangGraph) and matplotlib live in their own venv, never in
# Actae's dependencies.
BENCH_ENV := tests/bench/.env
bench: deps $(BENCH_ENV)/.stamp
	$(BENCH_ENV)/bin/python tests/bench/run.py

# Every group, shortened (under 3 min), into tests/bench/.quick/: never the committed report.
bench-quick: deps $(BENCH_ENV)/.stamp
	$(BENCH_ENV)/bin/python tests/bench/run.py --quick

$(BENCH_ENV)/.stamp: pyproject.toml tests/bench/requirements.txt
	python3 -m venv $(BENCH_ENV)
	$(BENCH_ENV)/bin/pip install -q --disable-pip-version-check -e . -r tests/bench/requirements.txt
	touch $@

# Regenerates docs/FIDELITY.md (the same suite runs, shorter, inside make test).
fidelity: deps venv
	$(WITH_DB) $(PY) -m tests.tools.fidelity

clean:
	if [[ -x $(PY) ]]; then $(PY) -m actae.pg clean --binaries; fi
	rm -rf .actae

distclean: clean
	rm -rf .venv

# Citus: a coordinator and two workers on this machine, started and stopped by
# tests/citus/cluster.py (ports ACTAE_CITUS_PORT, default 54331, and the next two). Builds
# Citus when missing through $ACTAE_CITUS_BUILD, else ../shared/citus/build.sh (root);
# without Citus and without that script it says so and succeeds. Then migrate, distribute
# (sql/citus/), and run the ledger, events, forks, watch and runs suites, tests/citus and
# the SIGKILL sweep against the coordinator. docs/SCALING.md.
.PHONY: test-citus
test-citus: deps venv
	$(PY) tests/citus/cluster.py test
