# Agent Avenue Arena — developer commands.
#   make demo   the main job: install, migrate, play the demo league (house bots and an SDK bot
#               over gRPC), serve the site, API and gateway on http://127.0.0.1:$(PORT)/
#   make check  the loop before every commit (lint, types, import contract and every test that
#               starts no process of its own), in parallel; docs/testing.md
#   make test   the whole suite (ruff, mypy, import contract, pytest) against PostgreSQL and Redis
# Every target creates .venv and installs into it with requirements.lock as needed.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
LOCK   := requirements.lock
# The rules engine compiled with mypyc, in a venv of its own beside the pure-Python one:
# tests/referee/test_compiled.py plays the same games through both, bench/referee_speed.py
# times both. Rebuilt whenever a referee source changes.
# ... and in place in the checkout (referee/*.so beside the sources), so that every process
# that plays games from the checkout (workers, the demo, the bot host, the SDK's local arena)
# runs it; referee/_selection.py runs the sources instead when they changed since.
INPLACE_STAMP  := referee/_compiled.json
COMPILED_VENV  := $(VENV)/compiled
COMPILED_PY    := $(COMPILED_VENV)/bin/python
COMPILED_STAMP := $(COMPILED_VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000
# the demo's gateway port; empty: GATEWAY_ADDRESS's (default 50051)
GATEWAY_PORT ?=
PYTEST_ARGS ?=
# pytest-xdist workers for make check and make test: `auto` is one per CPU. Worker gw<i> uses
# Redis database N+i of REDIS_URL's N and PostgreSQL database test_<name>_gw<i> (tests/conftest.py).
JOBS ?= auto
XDIST = -n $(JOBS) --dist worksteal
# where make test keeps its phases' JUnit reports, for the list of the slowest tests
REPORTS := var/test-reports

# python3.11 if present, else python3 (its version is checked when the venv is made).
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)

# Services the test suite runs against; override on the command line or in the environment.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/agent_avenue
TEST_REDIS_URL    ?= redis://127.0.0.1:6379/0

# Paths mypy checks: only those that exist (referee/ may land after this Makefile).
MYPY_PATHS = $(wildcard config arena leaderboard workers referee scripts tests sdk/avenue_sdk manage.py)

section = @printf '\n==== %s ====\n' "$(1)"

# ruff (lint and format), mypy and the import contract: each a target of its own, and
# together the lint of make check, make test and make lint
define ruff_steps
	$(call section,ruff)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
endef
define mypy_steps
	$(call section,mypy)
	$(VENV)/bin/mypy $(MYPY_PATHS)
endef
define imports_steps
	$(call section,import contract (lint-imports))
	$(VENV)/bin/lint-imports --no-cache
endef
define lint_steps
	$(ruff_steps)
	$(mypy_steps)
	$(imports_steps)
endef

.PHONY: help install install-steps demo check test test-faults lint ruff mypy imports test-referee test-referee-pure proto lock clean

help:
	@echo "make demo    main job: install, migrate (SQLite), demo league with an SDK bot, serve site + API + gateway on $(HOST):$(PORT)"
	@echo "make check   before every commit (<= 5 min): ruff, mypy, import contract, and in parallel every"
	@echo "             test that starts no process (pytest -m 'not processes'); PostgreSQL + Redis"
	@echo "make test    whole suite (<= 10 min): ruff, mypy, import contract; pytest in parallel, then the"
	@echo "             referee's on the pure engine, the serial tests beside both; lists the 20 slowest"
	@echo "             and each phase's time (docs/testing.md)"
	@echo "             JOBS=N: xdist workers (default auto); PYTEST_ARGS=...: passed to pytest"
	@echo "make test-faults  only the fault tests (Redis, gateways, workers killed mid-play)"
	@echo "make lint    ruff + mypy + the import contract only"
	@echo "make proto   regenerate sdk/agent_avenue/ from proto/"
	@echo "make lock    re-resolve requirements.lock from pyproject.toml (needs the network)"
	@echo "make clean   remove .venv, caches and var/"

# ---------------------------------------------------------------- environment

$(PY):
	@if [ -z "$(PYTHON)" ]; then \
	  echo "ERROR: no python3.11 or python3 on PATH; install Python 3.11 or newer."; exit 1; fi
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || { \
	  echo "ERROR: $(PYTHON) is Python $$($(PYTHON) -c 'import platform; print(platform.python_version())'); this project needs 3.11 or newer."; \
	  echo "       Install python3.11, or run: make PYTHON=/path/to/python3.11 ..."; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Reinstall only when what defines the environment changed.
$(STAMP): pyproject.toml $(LOCK) sdk/pyproject.toml referee/pyproject.toml | $(PY)
	$(call section,install into $(VENV))
	$(PY) -m pip install --quiet --upgrade pip
	@# setuptools warns about every editable install (nothing a newcomer can act on)
	PYTHONWARNINGS="ignore:Editable installation" $(PY) -m pip install --quiet -c $(LOCK) -e './sdk[rl]' -e '.[dev]'
	@# The SDK depends on the engine by a file: URL (referee/), which pip installs as a copy
	@# and will not let an editable one satisfy in the same command: swap the copy for an
	@# editable install, so that edits to referee/ take effect without reinstalling.
	PYTHONWARNINGS="ignore:Editable installation" $(PY) -m pip install --quiet --no-deps -e ./referee
	@touch $@

# AVENUE_ENGINE_COMPILE=1 makes referee/setup.py compile with mypyc (mypy from the lock is
# its build requirement then); a plain `pip install ./referee` stays pure Python.
$(COMPILED_STAMP): referee/pyproject.toml referee/setup.py referee/_build/backend.py \
		$(wildcard referee/*.py referee/bots/*.py) $(LOCK) | $(PY)
	$(call section,compiled engine (mypyc) into $(COMPILED_VENV))
	@rm -rf $(COMPILED_VENV)
	$(PYTHON) -m venv $(COMPILED_VENV)
	AVENUE_ENGINE_COMPILE=1 PIP_CONSTRAINT=$(CURDIR)/$(LOCK) \
	  $(COMPILED_PY) -m pip install --quiet --no-deps ./referee
	@touch $@

# Built in place with the venv's own mypy (from the lock). No C compiler: a warning, and
# every process runs the pure engine (saying so).
$(INPLACE_STAMP): referee/setup.py referee/_build/backend.py referee/_build/mypyc.ini \
		$(wildcard referee/*.py) | $(STAMP)
	$(call section,compiled engine (mypyc) in place: referee/*.so)
	@cd referee && rm -f *.so _compiled.json && \
	  if AVENUE_ENGINE_COMPILE=1 ../$(PY) setup.py -q build_ext --inplace > ../$(VENV)/engine-build.log 2>&1; then \
	    rm -rf build; echo "built: $$(ls *.so | wc -l) modules (log: $(VENV)/engine-build.log)"; \
	  else \
	    rm -rf build *.so _compiled.json; \
	    echo "WARNING: the compiled engine could not be built (see $(VENV)/engine-build.log);"; \
	    echo "         every process runs the pure Python engine (about a third as fast)."; \
	  fi

# The compiled wheel's venv needs nothing of the arena's: it is built while the arena's venv
# installs (make -j2; each step's output shown whole when it ends), the in-place build after.
install:
	@$(MAKE) --no-print-directory -j2 --output-sync=target install-steps
install-steps: $(STAMP) $(INPLACE_STAMP) $(COMPILED_STAMP)
	@:

# ---------------------------------------------------------------- main job

demo: install
	$(call section,demo: migrate + admin user + demo league with an SDK bot over gRPC + serve)
	$(PY) manage.py demo --host $(HOST) --port $(PORT) $(if $(GATEWAY_PORT),--gateway-port $(GATEWAY_PORT))

# ---------------------------------------------------------------- tests

ENGINE_EXPECT = AVENUE_ENGINE_EXPECT=$$($(PY) -c 'import referee; print(referee.ENGINE)')

# The loop before every commit: lint, types, the import contract, and every test that starts
# no process of its own (the `processes` marker), on xdist workers with services each.
check: export DATABASE_URL ?= $(TEST_DATABASE_URL)
check: export REDIS_URL ?= $(TEST_REDIS_URL)
check: install
	$(call section,services: PostgreSQL and Redis)
	$(PY) scripts/check_services.py --create-database
	$(lint_steps)
	$(call section,pytest: every test that starts no process (-m "not processes", $(JOBS) workers))
	@set +e; $(ENGINE_EXPECT) $(VENV)/bin/pytest $(XDIST) -m "not processes" $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then \
	  echo "ERROR: pytest collected no tests (exit code 5); a suite that runs nothing is a failure."; \
	  exit 1; \
	fi; exit $$rc

test: export DATABASE_URL ?= $(TEST_DATABASE_URL)
test: export REDIS_URL ?= $(TEST_REDIS_URL)
test: install
	$(call section,services: PostgreSQL and Redis)
	$(PY) scripts/check_services.py --create-database
	$(call section,browser: Debian chromium for the Playwright tests)
	bash scripts/ensure_chromium.sh
	$(call section,sandbox: bubblewrap for the hosted-bot tests)
	bash scripts/ensure_bubblewrap.sh
	$(call section,go: Debian's Go toolchain for the Go starter's tests)
	bash scripts/ensure_go.sh
	@rm -rf $(REPORTS)
	@# lint, the parallel phase and the pure-engine referee phase one after another, the
	@# serial phase beside them on services of its own; every phase runs, the worst wins
	@MAKE="$(MAKE)" $(PY) scripts/test_phases.py --jobs $(JOBS) --reports $(REPORTS) -- $(PYTEST_ARGS)

# Only the fault tests (pytest -m faults: Redis, gateways and workers killed or restarted
# mid-play, each against processes of its own); `make test` runs them with the rest.
test-faults: export DATABASE_URL ?= $(TEST_DATABASE_URL)
test-faults: export REDIS_URL ?= $(TEST_REDIS_URL)
test-faults: install
	$(PY) scripts/check_services.py --create-database
	$(VENV)/bin/pytest -m faults $(PYTEST_ARGS)

lint: install ruff mypy imports

ruff: install
	$(ruff_steps)

mypy: install
	$(mypy_steps)

# The layering of docs/architecture.md, as contracts in pyproject.toml [tool.importlinter].
imports: install
	$(imports_steps)

# The referee's tests need neither Django nor services: run them with pytest-django off.
test-referee: install
	@set +e; $(VENV)/bin/pytest -p no:django tests/referee $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests under tests/referee."; exit 1; fi; \
	exit $$rc

# The same tests on the pure Python engine (the whole suite runs the compiled one where
# make install could build it): AVENUE_ENGINE=pure makes the sources win over the build.
test-referee-pure: install
	@set +e; AVENUE_ENGINE=pure AVENUE_ENGINE_EXPECT=pure $(VENV)/bin/pytest -p no:django \
	  -p no:cacheprovider tests/referee $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests under tests/referee."; exit 1; fi; \
	exit $$rc

# ---------------------------------------------------------------- code generation

proto: install
	$(PY) scripts/gen_proto.py
	@# the Go starter's copy (protoc and its Go plugins: bash scripts/ensure_go.sh)
	bash starters/go/gen_proto.sh

# Re-resolve the lock from pyproject.toml's ranges in a throwaway venv.
lock:
	@rm -rf .lockvenv
	$(PYTHON) -m venv .lockvenv
	.lockvenv/bin/python -m pip install --quiet --upgrade pip
	.lockvenv/bin/python -m pip install --quiet -e './sdk[rl]' -e '.[dev]'
	.lockvenv/bin/python -m pip install --quiet --no-deps -e ./referee
	@{ echo "# Exact versions installed with: pip install -c requirements.lock -e './sdk[rl]' -e '.[dev]' (then -e ./referee)"; \
	   echo "# Regenerate with: make lock (pip itself is not pinned)"; \
	   .lockvenv/bin/python -m pip freeze --all --exclude-editable | grep -v '^pip=='; } > $(LOCK)
	@rm -rf .lockvenv
	@echo "wrote $(LOCK)"

clean:
	rm -rf $(VENV) .lockvenv var .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name '*.egg-info' -type d -prune -exec rm -rf {} +
