# Development entry points. They need only Python 3.11+ and make: the first run creates .venv.
#   make run    install if needed, migrate, serve on 127.0.0.1:$(PORT) (Celery beat's schedule in process)
#   make test   install if needed, run the whole test suite
#   make lint   install if needed, run ruff, import-linter and mypy (strict, on the engine)
#   make loadtest  the service under gunicorn on PostgreSQL + a Celery worker, N clients (docs/performance.md)

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/install.stamp
PORT ?= 8000

.PHONY: run test lint install loadtest

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	BEAT_IN_PROCESS=1 $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

test: $(STAMP)
	@$(BIN)/python -m pytest $(PYTEST_ARGS); status=$$?; \
	if [ $$status -eq 5 ]; then echo "error: pytest collected no tests" >&2; fi; \
	exit $$status

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy --strict games/engine games/bots games/ratings/glicko.py games/ratings/pairings.py games/ratings/anchors.py

loadtest: $(STAMP)
	$(BIN)/python scripts/loadtest.py $(LOADTEST_ARGS)

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when pyproject.toml is newer than the stamp.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --progress-bar off -e '.[dev]'
	touch $@
