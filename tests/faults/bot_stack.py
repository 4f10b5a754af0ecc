"""The production stack for the bot-turn faults and `make chaos`: gunicorn (``gunicorn.conf.py``, ``DEBUG=false``),
Celery workers and beat, on a PostgreSQL and a broker given by the caller (``tests/faults/services.py``).

    with Stack(pg, broker_url=redis.url_for(0), workers=2) as stack:
        stack.client()                     # an HTTP client of the service (bot_stack.Client)
        stack.kill_worker(0)               # SIGKILL the worker's main process and its pool
        stack.start_worker(0)

Workers are started with ``--include tests.faults.holds``: a bot turn waits, in the middle of its
transaction, while the file ``stack.hold`` exists (see :mod:`tests.faults.holds`), so that a test can
kill the worker that holds it. Each worker runs in a process group of its own, one pool process.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from tests.faults.services import Postgres
from tests.services import free_port

ROOT = Path(__file__).resolve().parent.parent.parent
HOST = "127.0.0.1"


class Client:
    """One player over a kept-alive HTTP connection; a failed connection is opened again."""

    def __init__(self, port: int, timeout: float = 15) -> None:
        self.port, self.timeout, self.token = port, timeout, ""
        self.connection = http.client.HTTPConnection(HOST, port, timeout=timeout)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        try:
            self.connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=sent)
            response = self.connection.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
            raise
        try:
            return response.status, json.loads(payload) if payload else None
        except ValueError:
            return response.status, payload.decode(errors="replace")

    def new_player(self, name: str) -> None:
        status, player = self.call("POST", "/api/v1/players/", {"username": f"{name}-{secrets.token_hex(3)}"})
        assert status == 201, (status, player)
        self.token = player["token"]


class Stack:
    def __init__(self, pg: Postgres, *, broker_url: str, workers: int = 2, web_workers: int = 2,
                 env: dict[str, str] | None = None) -> None:  # fmt: skip
        self.pg, self.port = pg, free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="tute-stack-"))
        self.hold = self.folder / "hold"
        database = f"tute_{secrets.token_hex(4)}"
        pg.create_database(database)
        self.database_url = pg.database_url(database)
        self.env = {
            **os.environ,
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": HOST,
            "SECURE_SSL_REDIRECT": "false",
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": broker_url,
            "CELERY_RESULT_BACKEND": "",
            "CELERY_QUEUE": f"faults-{secrets.token_hex(4)}",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
            "THROTTLE_RATE_PLAYER": "1000/s",
            "THROTTLE_RATE_ANON": "10000/min",
            "WEB_CONCURRENCY": str(web_workers),
            "WEB_THREADS": "4",
            "FAULTS_HOLD_FILE": str(self.hold),
            **(env or {}),
        }
        for name in ("TEST_DATABASE_NAME", "REQUIRE_WORKER_TESTS", "CACHE_URL", "LIVE_UPDATES_URL"):
            if name not in (env or {}):
                self.env.pop(name, None)
        self.workers: list[subprocess.Popen[bytes] | None] = [None] * workers
        self.web: subprocess.Popen[bytes] | None = None
        self.beat: subprocess.Popen[bytes] | None = None
        self.log = (self.folder / "stack.log").open("ab")

    # -- processes --------------------------------------------------------------------------------

    def _popen(self, command: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            command, cwd=ROOT, env={**self.env, **(env or {})}, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def start(self) -> None:
        python = sys.executable
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env, check=True)
        self.web = self._popen([python, "-m", "gunicorn", "tute_api.asgi:application", "--bind", f"{HOST}:{self.port}"])
        self.beat = self._popen([python, "-m", "celery", "-A", "tute_api", "beat", "--loglevel=WARNING",
                                 "--schedule", str(self.folder / "beat-schedule")])  # fmt: skip
        for number in range(len(self.workers)):
            self.start_worker(number)
        self.wait_ready()

    def start_worker(self, number: int) -> None:
        (self.folder / f"ready-w{number}").unlink(missing_ok=True)
        self.workers[number] = self._popen(
            [sys.executable, "-m", "celery", "-A", "tute_api", "worker", "--loglevel=WARNING", "--concurrency=1",
             "--include", "tests.faults.holds", "--hostname", f"w{number}-{self.env['CELERY_QUEUE']}@%h"],
            env={"FAULTS_WORKER": f"w{number}"},
        )  # fmt: skip

    def wait_worker_ready(self, number: int, timeout: float = 60) -> float:
        """Wait until the worker consumes (``worker_ready``); returns the seconds waited."""
        start = time.monotonic()
        while not (self.folder / f"ready-w{number}").exists():
            if time.monotonic() - start > timeout:
                raise RuntimeError(f"worker w{number} not ready within {timeout:.0f} s: {self.log_text()}")
            time.sleep(0.02)
        return time.monotonic() - start

    def kill_worker(self, number: int) -> None:
        """SIGKILL the worker's main process and its pool process, as the OOM killer or a host's loss."""
        process = self.workers[number]
        assert process is not None
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        self.workers[number] = None

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if Client(self.port, timeout=3).call("GET", "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"the stack on port {self.port} was not ready within {timeout:.0f} s: {self.log_text()}")

    def client(self) -> Client:
        return Client(self.port)

    def log_text(self) -> str:
        self.log.flush()
        return (self.folder / "stack.log").read_text(errors="replace")[-4000:]

    def held_by(self) -> str | None:
        """The worker (``w0``, ``w1``…) whose bot turn waits on the hold file, if one does."""
        marks = sorted(self.folder.glob("held-by-*"), key=lambda path: path.stat().st_mtime)
        return marks[-1].name.removeprefix("held-by-") if marks else None

    def stop(self) -> None:
        for process in [self.web, self.beat, *self.workers]:
            if process is not None and process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                    process.wait(timeout=10)
                except (subprocess.TimeoutExpired, ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()


def events_of(database_url: str, match_id: str) -> list[int]:
    """The seqs of a match's event log, in the order of their ids."""
    import psycopg

    with psycopg.connect(database_url.replace("postgres://", "postgresql://"), connect_timeout=5) as connection:
        rows = connection.execute("SELECT seq FROM games_event WHERE match_id = %s ORDER BY id", [match_id])
        return [row[0] for row in rows]
