# Development entry points. They need only Python 3.11+ and make: the first run creates .venv.
#   make run    install if needed, migrate, serve on $(HOST):$(PORT) under uvicorn (ASGI; Celery beat's schedule in process)
#   make test   install if needed, run the whole test suite
#   make lint   install if needed, run ruff, import-linter and mypy (strict, on the engine)
#   make fuzz   install if needed, a long schema fuzzing run of new cases (FUZZ_CASES; make test runs 1,000 fixed ones)
#   make loadtest  the service under gunicorn on PostgreSQL + a Celery worker, N clients (docs/performance.md)
#   make reqbench  the server's CPU per request of each kind, one process, one client (docs/performance.md)
#   make reqcount  the application's instructions per request, counted by valgrind (docs/performance.md)
#   make chaos  5 minutes of mixed play on own PostgreSQL/Redis with faults at random (docs/reliability.md)

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/install.stamp
PORT ?= 8000
# 0.0.0.0 to reach make run from a phone on the LAN; an emulator reaches 127.0.0.1 as 10.0.2.2.
HOST ?= 127.0.0.1

.PHONY: run test lint install loadtest reqbench reqcount contract scalebench fuzz queuebench chaos

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	BEAT_IN_PROCESS=1 $(BIN)/python -m uvicorn tute_api.asgi:application --host $(HOST) --port $(PORT) --reload --reload-dir tute_api --reload-dir games --reload-dir players

test: $(STAMP)
	@$(BIN)/python -m pytest $(PYTEST_ARGS); status=$$?; \
	if [ $$status -eq 5 ]; then echo "error: pytest collected no tests" >&2; fi; \
	exit $$status

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy --strict games/engine games/bots games/ratings/glicko.py games/ratings/pairings.py games/ratings/anchors.py games/lobby/pools.py

# The schema through the tools client developers use: drf-spectacular's validation, Redocly's linter
# (clients/redocly.yaml), openapi-typescript, and tsc --strict on types used as an app would (clients/check.ts).
contract: $(STAMP) clients/node_modules/.stamp
	mkdir -p var
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file var/schema.yaml
	cd clients && npx --no-install redocly lint ../var/schema.yaml --config redocly.yaml
	cd clients && npx --no-install openapi-typescript ../var/schema.yaml -o ../var/tute-api.d.ts
	cd clients && npx --no-install tsc --strict --noEmit --lib es2022 check.ts

clients/node_modules/.stamp: clients/package.json clients/package-lock.json
	cd clients && npm ci --no-audit --no-fund
	touch $@

# schemathesis against the live schema, in process (tests/fuzz, docs/reliability.md "Schema fuzzing").
FUZZ_CASES ?= 20000
fuzz: $(STAMP)
	FUZZ_RANDOM=1 FUZZ_CASES=$(FUZZ_CASES) $(BIN)/python -m pytest tests/fuzz -p no:cacheprovider -o timeout=0 $(PYTEST_ARGS)

loadtest: $(STAMP)
	$(BIN)/python scripts/loadtest.py $(LOADTEST_ARGS)

reqbench: $(STAMP)
	$(BIN)/python scripts/reqbench.py $(REQBENCH_ARGS)

reqcount: $(STAMP)
	$(BIN)/python scripts/reqcount.py $(REQCOUNT_ARGS)

# Play now's queue: N players queueing over a minute for clasico and dos (scripts/queuebench.py).
queuebench: $(STAMP)
	$(BIN)/python scripts/queuebench.py $(QUEUEBENCH_ARGS)

chaos: $(STAMP)
	$(BIN)/python scripts/chaos.py $(CHAOS_ARGS)

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when pyproject.toml is newer than the stamp.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --progress-bar off -e '.[dev]'
	touch $@

# Every read endpoint and periodic task on an empty database and on one of a million finished matches
# (scripts/scalebench.py, docs/scaling.md): make scalebench SCALEBENCH_ARGS="--matches 100000 --json"
scalebench: $(STAMP)
	$(BIN)/python scripts/scalebench.py $(SCALEBENCH_ARGS)
