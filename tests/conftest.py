"""Project-wide fixtures.

``celery_worker`` runs a real Celery worker subprocess against the configured broker and the test
database, for tests that must see tasks cross a real broker::

    @pytest.mark.worker
    @pytest.mark.django_db(transaction=True)
    def test_something(celery_worker):
        assert ping.delay().get(timeout=20) == "pong"

The worker starts once per test session, on first use, and stops at the end of the session. When
a test that used it fails, the worker's output during that test is attached to the report.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings

from tests import services
from tests.waits import Waits, spy_on_waits

WORKER_READY_TIMEOUT = 60.0
WORKER_STOP_TIMEOUT = 15.0
# Test-only tasks the worker imports besides the project's own (see tests/worker_tasks.py).
WORKER_EXTRA_TASK_MODULES = "tests.worker_tasks"

_worker_key = pytest.StashKey["tuple[CeleryWorker, int]"]()


class CeleryWorker:
    """A ``celery worker --pool=solo`` subprocess whose output goes to a log file."""

    def __init__(self, database_url: str) -> None:
        self.nodename = f"pytest-{uuid.uuid4().hex[:8]}@%h"
        self.log_path = Path(tempfile.mkstemp(prefix="celery-worker-", suffix=".log")[1])
        env = {**os.environ, "DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1"}
        command = [
            sys.executable, "-m", "celery", "-A", "tute_api", "worker",
            "--pool=solo", "--concurrency=1", "--loglevel=INFO", "--hostname", self.nodename,
            "--without-gossip", "--without-mingle", "--without-heartbeat",
            "--include", WORKER_EXTRA_TASK_MODULES,
        ]  # fmt: skip
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                command, cwd=settings.BASE_DIR, env=env, stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip

    def log(self, start: int = 0) -> str:
        with self.log_path.open("rb") as log:
            log.seek(start)
            return log.read().decode(errors="replace")

    def log_size(self) -> int:
        return self.log_path.stat().st_size

    def wait_until_ready(self, timeout: float = WORKER_READY_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if " ready." in self.log():
                return
            if self.process.poll() is not None:
                self._fail(f"exited with status {self.process.returncode} before it was ready")
            time.sleep(0.2)
        self._fail(f"was not ready after {timeout:.0f}s")

    def assert_alive(self) -> None:
        if self.process.poll() is not None:
            self._fail(f"has died (exit status {self.process.returncode})")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # Warm shutdown: the current task finishes.
            try:
                self.process.wait(WORKER_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_path.unlink(missing_ok=True)

    def _fail(self, what: str) -> None:
        pytest.fail(f"Celery worker {what}. Its output:\n{self.log()}", pytrace=False)


def database_url(db: dict[str, Any]) -> str:
    """A ``DATABASE_URL`` for a Django database settings dict (the test database's, here)."""
    engine = db["ENGINE"].rsplit(".", 1)[-1]
    if engine == "sqlite3":
        return f"sqlite:///{db['NAME']}"
    scheme = {"postgresql": "postgres", "mysql": "mysql"}[engine]
    credentials = quote(db.get("USER") or "", safe="")
    if db.get("PASSWORD"):
        credentials += ":" + quote(db["PASSWORD"], safe="")
    port = f":{db['PORT']}" if db.get("PORT") else ""
    netloc = f"{credentials}@{db.get('HOST') or ''}{port}" if credentials else f"{db.get('HOST') or ''}{port}"
    return f"{scheme}://{netloc}/{quote(db['NAME'], safe='')}"


@pytest.fixture(scope="session")
def _celery_worker_process(request: pytest.FixtureRequest) -> Iterator[CeleryWorker]:
    if not settings.CELERY_BROKER_URL:
        reason = (
            "NO BROKER CONFIGURED: set CELERY_BROKER_URL (e.g. redis://127.0.0.1:6379/0) to run "
            "the tests that need a real Celery worker; .ci/run does."
        )
        services.missing(reason)
    request.getfixturevalue("django_db_setup")  # Now settings.DATABASES names the test database.
    test_db = settings.DATABASES["default"]
    if test_db["ENGINE"].endswith("sqlite3") and "memory" in str(test_db["NAME"]):
        pytest.skip("The test database is SQLite in memory; a worker subprocess cannot share it.")
    worker = CeleryWorker(database_url(test_db))
    try:
        worker.wait_until_ready()
        yield worker
    finally:
        worker.stop()


@pytest.fixture
def celery_worker(
    request: pytest.FixtureRequest, _celery_worker_process: CeleryWorker, transactional_db: None
) -> CeleryWorker:
    """A running Celery worker on the test database (tests must be ``django_db(transaction=True)``
    so that what they write is committed and visible to the worker)."""
    _celery_worker_process.assert_alive()
    request.node.stash[_worker_key] = (_celery_worker_process, _celery_worker_process.log_size())
    return _celery_worker_process


@pytest.fixture
def client() -> Any:
    """pytest-django's ``client``, but checking CSRF as a real server does: API clients send no CSRF
    token, so a view that forgets it is exempt answers them Django's HTML 403 (tests/test_api_routes.py)."""
    from django.test import Client

    return Client(enforce_csrf_checks=True)


@pytest.fixture
def listening(settings: Any) -> Iterator[Any]:
    """This process listens to the live updates' Redis, as a server process does, so that it keeps tokens
    (players/token_cache.py, for 5 s) and the rows it saves (games/matches/kept.py); both empty at first
    and after. The broker."""
    from games.live import channels
    from games.matches import kept
    from players import token_cache

    settings.LIVE_UPDATES_URL = services.redis_url()
    settings.TOKEN_CACHE_SECONDS = 5.0
    broker = channels.broker()
    assert isinstance(broker, channels.RedisBroker)
    token_cache.forget_all()
    kept.forget_all()
    services.until(broker.hears_everything, "the listener to subscribe")
    yield broker
    token_cache.forget_all()
    kept.forget_all()


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Waits:
    """Every wait on a live-updates subscription: its timeout, and whether news or the time ended it
    (tests/waits.py); ``waits.begun`` is set when one begins."""
    return spy_on_waits(monkeypatch)


@pytest.fixture(autouse=True)
def seeds_at_shared_tables(settings: Any) -> None:
    """Tests deal known cards to humans and to other players' bots, as a duplicate tournament would;
    tests/games/test_seeds.py checks the default, which refuses that."""
    settings.SEEDS_AT_SHARED_TABLES = True


@pytest.fixture(autouse=True)
def celery_join_flag_reset() -> Iterator[None]:
    """Celery's eager ``apply`` sets a process-wide "a join would block" flag for the task's run and puts
    back what it found, with no lock: eager tasks run at once in several threads (the queue's concurrency
    test) can leave it set, and every later ``result.get()`` of the run then raises "Never call
    result.get() within a task!". Each test starts with it clear, as a fresh process has it."""
    from celery import _state

    _state._set_task_join_will_block(False)
    yield

@pytest.fixture(autouse=True)
def no_rate_limits(request: pytest.FixtureRequest, settings: Any) -> Iterator[None]:
    """Tests run unthrottled (a test of the limits sets its own rates), with fresh counters."""
    from django.core.cache import cache

    from tute_api import throttling

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": None, "player": None}}
    cache.clear()
    throttling.forget_leases()
    yield


@pytest.fixture(autouse=True)
def every_answer_matches_the_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each answer a test client gets from the API is checked against the schema (tests/responses.py)."""
    from django.test.client import Client

    from tests.responses import check

    request = Client.request

    def checked(self: Client, **environ: Any) -> Any:
        response = request(self, **environ)
        check(environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", ""), response)
        return response

    monkeypatch.setattr(Client, "request", checked)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.failed and _worker_key in item.stash:
        worker, start = item.stash[_worker_key]
        report.sections.append(("Celery worker output during this test", worker.log(start)))
    return report
