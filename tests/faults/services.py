"""Services of a test's own, to stop and start at will without disturbing the machine's shared ones.

:class:`Postgres` is a PostgreSQL cluster made with ``initdb`` in a temporary folder, on a free port,
with trust authentication; :class:`Redis` is a ``redis-server`` without persistence on a free port.
Both have the same small API::

    with Postgres() as pg:          # or pg = Postgres(); pg.start() ... pg.cleanup()
        pg.url                      # postgres://postgres@127.0.0.1:<port>/postgres
        pg.port
        pg.stop()                   # the server is away (its port refuses connections)
        pg.start()                  # back, same port, same data
        pg.restart()                # stop() then start()
        pg.database_url("tute")     # a URL naming another database (create it with pg.create_database)

    with Redis() as redis:
        redis.url                   # redis://127.0.0.1:<port>; redis.url_for(1) → …/1
        redis.stop(); redis.start(); redis.restart()

``stop()`` is a fast shutdown (``pg_ctl -m fast``; Redis: SIGTERM, no save): clients see their
connections closed and new ones refused, as during a failover or a restart. The fixtures in
``tests/faults/conftest.py`` (``own_postgres``, ``own_redis``) give one per test and remove it after.
The PostgreSQL binaries are looked up in ``POSTGRES_BIN`` (default ``/usr/lib/postgresql/15/bin``),
then on ``PATH``; a machine without them skips the test (fails it under ``REQUIRE_WORKER_TESTS``).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Self

from tests.services import free_port, missing

POSTGRES_BIN = os.environ.get("POSTGRES_BIN", "/usr/lib/postgresql/15/bin")
START_TIMEOUT = 30.0


def _binary(name: str, folder: str | None = None) -> str:
    candidate = Path(folder or "") / name
    if folder and candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if not found:
        missing(f"NO {name.upper()}: install it (or set POSTGRES_BIN) to run the fault tests")
    return found


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something accepts TCP connections on the port now."""
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((host, port)) == 0


def _wait_until(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} within {timeout:.0f} s")


class _Service:
    port: int

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def cleanup(self) -> None:
        raise NotImplementedError

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def running(self) -> bool:
        return port_open(self.port)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.cleanup()


class Postgres(_Service):
    """A PostgreSQL cluster of its own: user ``postgres``, trust authentication, 127.0.0.1 only."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="tute-pg-"))
        self.data = self.folder / "data"
        self.log_path = self.folder / "postgres.log"
        self._pg_ctl = _binary("pg_ctl", POSTGRES_BIN)
        self._initialised = False

    @property
    def url(self) -> str:
        """The URL of the ``postgres`` database, for ``DATABASE_URL``."""
        return self.database_url("postgres")

    def database_url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def _initdb(self) -> None:
        owner = _owner()
        if owner:
            shutil.chown(self.folder, user=owner)
        subprocess.run(
            [_binary("initdb", POSTGRES_BIN), "-D", str(self.data), "-U", "postgres", "-A", "trust",
             "-E", "UTF8", "--no-sync", "--no-instructions"],
            check=True, capture_output=True, user=_owner(),
        )  # fmt: skip
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.folder}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 100\n"
            )
        self._initialised = True

    def start(self) -> None:
        if not self._initialised:
            self._initdb()
        if self.running:
            return
        subprocess.run(
            [self._pg_ctl, "-D", str(self.data), "-l", str(self.log_path), "-w", "-t", str(int(START_TIMEOUT)),
             "start"],
            check=True, capture_output=True, user=_owner(),
        )  # fmt: skip
        _wait_until(lambda: self.running, START_TIMEOUT, f"PostgreSQL did not listen on {self.port}")

    def stop(self) -> None:
        if not (self.data / "postmaster.pid").exists():
            return
        subprocess.run(
            [self._pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"], check=True, capture_output=True,
            user=_owner(),
        )  # fmt: skip

    def create_database(self, name: str) -> None:
        psql = _binary("psql", POSTGRES_BIN)
        subprocess.run(
            [psql, "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-c", f'CREATE DATABASE "{name}"'],
            check=True, capture_output=True,
        )  # fmt: skip

    def cleanup(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def _owner() -> str | None:
    """PostgreSQL refuses to run as root: as root, the cluster belongs to ``postgres``."""
    return None if os.geteuid() != 0 else "postgres"


class Redis(_Service):
    """A ``redis-server`` of its own, without persistence (``--save ""``, no AOF)."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="tute-redis-"))
        self.log_path = self.folder / "redis.log"
        self._binary = _binary("redis-server")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def url_for(self, db: int) -> str:
        return f"{self.url}/{db}"

    def start(self) -> None:
        if self.process is not None and self.process.poll() is None:
            return
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [self._binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", str(self.folder)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        _wait_until(lambda: self.running, START_TIMEOUT, f"redis-server did not listen on {self.port}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        _wait_until(lambda: not self.running, 5, f"redis-server still listened on {self.port}")

    def cleanup(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
