# Actae: build, lint and test entry points. CI runs `make test` (see .ci/run).
# Targets that need a database run through .ci/with-db.sh: with ACTAE_DSN set they use that
# database, otherwise a throwaway local server (.ci/pg.sh) that is stopped afterwards.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.NOTPARALLEL:

PG_BIN := /usr/lib/postgresql/15/bin
PG_EXT := /usr/share/postgresql/15/extension
ISOLATION_REGRESS := /usr/lib/postgresql/15/lib/pgxs/src/test/isolation/pg_isolation_regress
export PATH := $(PG_BIN):$(PATH)

PY := .venv/bin/python
WITH_DB := .ci/with-db.sh

# file-that-proves-it-is-installed=Debian package
DEB_DEPS := $(PG_BIN)/initdb=postgresql-15 \
	$(ISOLATION_REGRESS)=postgresql-client-15 \
	$(PG_EXT)/pgtap.control=postgresql-15-pgtap \
	$(PG_EXT)/plpgsql_check.control=postgresql-15-plpgsql-check \
	/usr/bin/pg_prove=libtap-parser-sourcehandler-pgtap-perl

.PHONY: help deps venv migrate lint pgtap plpgsql-check isolation pytest test test-inner \
	demo report fidelity bench soak clean distclean

help:
	@echo "make test           deps + venv, then lint, plpgsql-check, pgtap, isolation, pytest"
	@echo "make demo           the crash-recovery story, then the fork saving"
	@echo "make report         the fork token report (baseline vs fork at step 5)"
	@echo "make fidelity       regenerate docs/FIDELITY.md"
	@echo "make soak           long crash/race/stall/restart/bad-input run (~6 min); docs/RELIABILITY.md"
	@echo "make bench          benchmarks vs the pgbench limit, hand-written SQL, DBOS, LangGraph (~20 min)"
	@echo "make test-citus     the suites on a 3-node Citus cluster (builds Citus when missing)"
	@echo "make migrate        apply migrations (ACTAE_DSN, else the local server, left running)"
	@echo "make lint | pgtap | plpgsql-check | isolation | pytest    one step on its own"
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
	ACTAE_KEEP_DB=1 $(WITH_DB) true
endif

lint: venv
	.venv/bin/ruff check $(wildcard python tests)
	@dirs="$(wildcard sql migrations)"; \
	if [[ -n $$dirs ]]; then .venv/bin/sqlfluff lint $$dirs; fi

plpgsql-check: venv
	$(WITH_DB) tests/plpgsql_check.sh

pgtap: venv
	@if [[ -z $$(find tests/sql -name '*.sql' 2>/dev/null | head -n 1) ]]; then \
		echo "pgtap: no tests in tests/sql"; exit 0; fi; \
	$(WITH_DB) pg_prove --failures --ext .sql -r tests/sql

# Specs are tests/isolation/specs/NAME.spec, expected output tests/isolation/expected/NAME.out.
isolation: venv
	@shopt -s nullglob; specs=(tests/isolation/specs/*.spec); \
	if (( $${#specs[@]} == 0 )); then echo "isolation: no specs, skipped"; exit 0; fi; \
	names=(); for spec in "$${specs[@]}"; do n=$${spec##*/}; names+=("$${n%.spec}"); done; \
	mkdir -p .actae/isolation; \
	$(WITH_DB) bash -c '$(ISOLATION_REGRESS) --use-existing --bindir=$(PG_BIN) \
		--inputdir=tests/isolation --outputdir=.actae/isolation \
		--dbname="$$PGDATABASE" "$$@"' isolation "$${names[@]}"

pytest: venv
	$(WITH_DB) .venv/bin/pytest -q

# One server start and one migration for every step; -k runs the rest after a failure.
# pgTAP files run one at a time: some alter ledger tables inside their transaction.
# The local database is recreated first (as CI's is new), so an edited migration just works.
test: deps venv
	ACTAE_FRESH_DB=1 $(WITH_DB) $(MAKE) --no-print-directory -k test-inner

test-inner: lint plpgsql-check pgtap isolation pytest

# The story in under a minute: a worker killed mid-charge, then a fork that skips the prefix.
demo: deps venv
	ACTAE_FRESH_DB=1 $(WITH_DB) bash -c \
		'$(PY) python/examples/crash_demo.py && echo && $(PY) python/examples/fork_demo.py'

# Fork token report: baseline run, fork at step 5, tokens saved (computed from the run).
report: deps venv
	$(WITH_DB) $(PY) python/examples/fork_report.py

# Long crash/race/stall/restart/bad-input run (~6 min on 2 cores); writes docs/RELIABILITY.md.
# SOAK_ARGS: --scale N (default 6), --examples N (hypothesis examples per function, 300).
soak: deps venv
	$(WITH_DB) $(PY) -m tests.python.reliability.soak $(SOAK_ARGS)

# Not part of `make test` (~20 min on 2 cores): regenerates docs/BENCHMARKS.md and
# docs/bench/. Peers (DBOS, LangGraph) and matplotlib live in their own venv, never in
# Actae's dependencies.
BENCH_ENV := tests/bench/.env
bench: deps $(BENCH_ENV)/.stamp
	$(BENCH_ENV)/bin/python tests/bench/run.py

$(BENCH_ENV)/.stamp: pyproject.toml tests/bench/requirements.txt
	python3 -m venv $(BENCH_ENV)
	$(BENCH_ENV)/bin/pip install -q --disable-pip-version-check -e . -r tests/bench/requirements.txt
	touch $@

# Regenerates docs/FIDELITY.md (the same suite runs, shorter, inside make test).
fidelity: deps venv
	$(WITH_DB) $(PY) python/examples/fidelity.py

clean:
	.ci/pg.sh stop
	@base=$$(cat .actae/base 2>/dev/null || true); \
	if [[ $$base == /tmp/actae-pg-* ]]; then rm -rf "$$base"; fi
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
