"""The production stack on services of a test's own: a real gunicorn (gunicorn.conf.py, ``DEBUG=false``)
and, when asked, a real Celery worker, on a PostgreSQL of their own, and an HTTP client that times
every answer.

    stack = Stack(postgres, broker=redis.url_for(0), live_updates=redis.url_for(3))
    stack.start(worker=True)
    client = stack.client()
    client.call("POST", "/api/v1/players/", {"username": "ana"})
    stack.stop()
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from tests.faults.services import Postgres, free_port

HOST = "127.0.0.1"
READY_TIMEOUT = 90.0


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str]
    seconds: float


class Client:
    """One player over HTTP; a new connection per request, so that a server closing one costs nothing."""

    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self.port, self.timeout, self.token = port, timeout, ""

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Answer:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        connection = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
        start = time.monotonic()
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body), headers=sent)
            response = connection.getresponse()
            payload = response.read()
        finally:
            connection.close()
        seconds = time.monotonic() - start
        try:
            parsed = json.loads(payload) if payload else None
        except ValueError:
            parsed = payload.decode(errors="replace")
        return Answer(response.status, parsed, {k.lower(): v for k, v in response.getheaders()}, seconds)


class Stack:
    def __init__(self, postgres: Postgres, *, broker: str = "", live_updates: str = "", cache: str = "",
                 extra_env: dict[str, str] | None = None) -> None:  # fmt: skip
        self.postgres = postgres
        self.database = f"tute_{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        self.folder = postgres.folder
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: dict[str, Path] = {}
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tute_api.settings",
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": HOST,
            "SECURE_SSL_REDIRECT": "false",
            "DATABASE_URL": postgres.database_url(self.database),
            "CELERY_BROKER_URL": broker,
            "CELERY_RESULT_BACKEND": "",
            "CELERY_QUEUE": f"faults-{uuid.uuid4().hex[:8]}",
            "LIVE_UPDATES_URL": live_updates,
            "CACHE_URL": cache or "locmemcache://",
            "WEB_CONCURRENCY": "2",
            "WEB_THREADS": "4",
            "PYTHONUNBUFFERED": "1",
            "THROTTLE_RATE_PLAYER": "1000/s",
            "THROTTLE_RATE_ANON": "1000/s",
            **(extra_env or {}),
        }
        for name in ("TEST_DATABASE_NAME", "REQUIRE_WORKER_TESTS"):
            self.env.pop(name, None)

    def _spawn(self, name: str, command: list[str]) -> None:
        self.logs[name] = self.folder / f"{name}.log"
        with self.logs[name].open("ab") as log:
            self.processes[name] = subprocess.Popen(
                command, cwd=settings.BASE_DIR, env=self.env, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT,
            )  # fmt: skip

    def start(self, *, worker: bool = False) -> None:
        self.postgres.create_database(self.database)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=settings.BASE_DIR, env=self.env,
            check=True, capture_output=True,
        )  # fmt: skip
        if worker:
            self.start_worker()
        self._spawn("gunicorn", [sys.executable, "-m", "gunicorn", "tute_api.asgi:application",
                                 "--bind", f"{HOST}:{self.port}"])  # fmt: skip
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            try:
                if self.client(timeout=5).call("GET", "/healthz").status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, self.log("gunicorn")
            assert self.processes["gunicorn"].poll() is None, self.log("gunicorn")
            time.sleep(0.2)

    def start_worker(self, name: str = "worker") -> str:
        node = f"{name}-{uuid.uuid4().hex[:6]}@faults"
        self._spawn(name, [sys.executable, "-m", "celery", "-A", "tute_api", "worker", "--pool=solo",
                           "--loglevel=INFO", "--hostname", node, "--without-gossip", "--without-mingle",
                           "--without-heartbeat"])  # fmt: skip
        return node

    def worker_health(self, node: str | None = None) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "tute_api.worker_health", "--timeout", "3"]
        if node:
            command += ["--destination", node]
        return subprocess.run(command, cwd=settings.BASE_DIR, env=self.env, capture_output=True, text=True,
                              timeout=60)  # fmt: skip

    def send_tasks(self, *names: str) -> None:
        """Queue tasks by name for the stack's workers (as beat does for the sweeps), from a process with
        the stack's environment: Celery reads CELERY_BROKER_URL from the environment before any app's own
        setting, so an app made here would send to the test run's broker, not the stack's."""
        send = "import sys; from tute_api.celery import app\nfor n in sys.argv[2:]: app.send_task(n, queue=sys.argv[1])"
        subprocess.run([sys.executable, "-c", send, self.env["CELERY_QUEUE"], *names], cwd=settings.BASE_DIR,
                       env=self.env, check=True, capture_output=True, timeout=60)  # fmt: skip

    def client(self, timeout: float = 30.0) -> Client:
        return Client(self.port, timeout)

    def log(self, name: str, *, whole: bool = False) -> str:
        """A process's output: its last 6,000 characters (for an assertion's message), or all of it."""
        path = self.logs.get(name)
        text = path.read_text(errors="replace") if path and path.exists() else ""
        return text if whole else text[-6000:]

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
