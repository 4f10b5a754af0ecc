#!/usr/bin/env python3
"""Load test: the service under gunicorn on PostgreSQL, a real Celery worker on Redis, and N
concurrent clients each playing whole matches against level-1 bots over real HTTP.

    make loadtest                                  # 20 clients for 60 s
    make loadtest LOADTEST_ARGS="--clients 40 --seconds 30 --json"

It creates (and afterwards drops) its own database, ``tute_loadtest``, on the PostgreSQL server
at 127.0.0.1:5432, uses Redis at 127.0.0.1:6379 (database 2, the Celery queue
``loadtest-<database>``, so that runs with different ``--database`` and ``--port`` can share the
machine), starts gunicorn and the worker on
127.0.0.1 only, runs the clients, prints the figures and stops everything it started.

Each client creates a player, then loops: create a match against bots, and play it to the end,
posting a random legal action (with ``expected_seq``) whenever its view has any, and otherwise
long-polling ``GET /matches/{id}?after=<seq>&wait=10`` until the bots have played. The figures:
actions per second (the clients' POSTs), the latency percentiles of the action POST as the clients
see it (connection kept alive), the wait for the bots' turns, the count of errors (any failed
request, any unexpected status), and the CPU time the web server and the worker spent per action,
with the share of the machine they got (the machine may be busy with other work). Clients that do not
pause saturate the machine, whose queue then sets the latency; ``--rate`` offers a given load instead
(each client's actions due at a steady pace), for the latency at that load. ``--channel latest`` posts
each action with ``?show=latest``, whose answer has the quick bots' turns (one request a turn);
``--channel socket`` plays each match over its WebSocket instead: an ``action`` frame, its ``result``,
and the ``turn`` frame that the socket sends once the bots have played (docs/clients.md). Then, with the
service stopped, the database's ceiling on the same server: pgbench running the statements an action
makes (``PGBENCH_ACTION``, ``--pgbench-seconds``, as many clients), and the service's share of it.
"""

from __future__ import annotations

import argparse
import collections
import functools
import http.client
import json
import math
import multiprocessing
import os
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
PG = {"host": HOST, "port": 5432, "user": "postgres"}
REDIS_URL = f"redis://{HOST}:6379/2"
#: The cache (the rate limits' counts, the spectators' leases) in Redis, as docker-compose.yml's CACHE_URL.
CACHE_URL = f"redis://{HOST}:6379/3"


# -- the clients ----------------------------------------------------------------------------------


class Client:
    """One player over one kept-alive HTTP/1.1 connection, written and read on a plain socket. The clients
    run on the service's cores: ``http.client`` (its request assembled header by header, the answer's
    headers parsed by the ``email`` package) and ``json`` cost them about three times this client's CPU
    per request, taken from the service (docs/performance.md)."""

    def __init__(self, port: int, timeout: float = 30):
        self.port, self.timeout = port, timeout
        self.token = ""
        self.answered = 0.0  # perf_counter() when the last answer had been read, before it is parsed
        self._socket: socket.socket | None = None
        self._buffer = b""  # read past the last answer (nothing, unless the server sent more)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = orjson.dumps(body) if body is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\n")  # fmt: skip
        if self.token:
            head += f"Authorization: Bearer {self.token}\r\n"
        request = head.encode("latin-1") + b"\r\n" + data
        # Only a GET (a read, which changes nothing) is sent again on a kept-alive connection that the
        # server closed; a POST that fails is an error of the run, since sent twice it could act twice.
        for attempt in (1, 2) if method == "GET" else (2,):
            try:
                if self._socket is None:
                    self._socket = socket.create_connection((HOST, self.port), timeout=self.timeout)
                    self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._socket.sendall(request)
                status, payload, kept = self._answer()
                self.answered = time.perf_counter()
                if not kept:
                    self.close()
                return status, orjson.loads(payload) if payload else None
            except ConnectionError:  # the server closed a kept-alive connection
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
        self._socket, self._buffer = None, b""

    def _answer(self) -> tuple[int, bytes, bool]:
        """The answer's status, its body (none for a 204 or a 304; by ``Content-Length``, chunked, or up to
        the connection's end) and whether the connection stays open."""
        buffer = self._buffer
        while (end := buffer.find(b"\r\n\r\n")) < 0:
            buffer += self._received()
        lines, buffer = buffer[:end].split(b"\r\n"), buffer[end + 4 :]
        status = int(lines[0].split(b" ", 2)[1])
        length, chunked, kept = None, False, True
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value
            elif name == b"connection":
                kept = value != b"close"
        if status in (204, 304):
            body = b""
        elif chunked:
            body = b""
            while True:
                while (end := buffer.find(b"\r\n")) < 0:
                    buffer += self._received()
                size = int(buffer[:end].split(b";")[0], 16)
                while len(buffer) < end + 2 + size + 2:
                    buffer += self._received()
                body, buffer = body + buffer[end + 2 : end + 2 + size], buffer[end + 2 + size + 2 :]
                if size == 0:
                    break
        elif length is not None:
            while len(buffer) < length:
                buffer += self._received()
            body, buffer = buffer[:length], buffer[length:]
        else:  # up to the connection's end
            while chunk := self._received(end_ok=True):
                buffer += chunk
            body, buffer, kept = buffer, b"", False
        self._buffer = buffer
        return status, body, kept

    def _received(self, end_ok: bool = False) -> bytes:
        assert self._socket is not None
        data = self._socket.recv(65536)
        if not data and not end_ok:
            raise ConnectionError("the server closed the connection")
        return data


def play(port: int, deadline: float, warmup_until: float, variant: str, options: dict[str, Any], bots: str,
         think: float, interval: float, seed: int, out: dict[str, Any], show: str = "move") -> None:  # fmt: skip
    """One client: play matches until the deadline, pausing ``think`` seconds before each action, as
    a player choosing a card; record POST latencies and errors in ``out``. ``show``: the POSTs' ``?show=``
    (``latest``: the answer has the quick bots' turns, the client's turn again, a wait of 0).

    ``interval`` (``--rate``): the client's actions are due every ``interval`` seconds from a random moment
    of its first interval (the clients out of step, as independent players are), each sent at its moment
    or, when the client is behind (a slow answer, the bots' turns), at once; ``lateness`` records how late
    each was sent, so that a service too slow for the rate shows in the figures rather than only slowing
    the clients down."""
    rng = random.Random(seed)
    client = Client(port)
    latencies: list[float] = out["latencies"]
    waits: list[float] = out["waits"]
    lateness: list[float] = out["lateness"]
    due = time.perf_counter() + rng.uniform(0, interval)  # the clients' paces out of step with each other
    seats = _signed_up(client, seed, variant, options, bots, out)
    while seats and time.monotonic() < deadline:
        status, view = client.call("POST", "/api/v1/matches/", {"variant": variant, "options": options, "seats": seats})
        if status != 201:
            out["errors"].append(f"create match: {status} {view}")
            return
        url = f"/api/v1/matches/{view['id']}"
        waiting_since: float | None = None
        while view["status"] == "active" and time.monotonic() < deadline:
            if not view["legal_actions"]:
                waiting_since = waiting_since or time.perf_counter()
                status, view = client.call("GET", f"{url}?after={view['seq']}&wait=10")
                if status != 200:
                    out["errors"].append(f"GET view: {status} {view}")
                    return
                continue
            if waiting_since is not None and warmup_until <= time.monotonic() < deadline:
                waits.append(time.perf_counter() - waiting_since)
            waiting_since = None
            due = _paced(think, interval, due)
            action = {**rng.choice(view["legal_actions"]), "expected_seq": view["seq"]}
            start = time.perf_counter()
            if interval and warmup_until <= time.monotonic() < deadline:
                lateness.append(max(0.0, start - due))
            status, answer = client.call("POST", f"{url}/actions?show={show}", action)
            elapsed = client.answered - start  # the service's time, not the client's parsing of the answer
            if status != 200:
                out["errors"].append(f"POST action: {status} {answer}")
                status, view = client.call("GET", url)
                continue
            if warmup_until <= time.monotonic() < deadline:  # the window of the figures
                latencies.append(elapsed)
                if show == "latest" and answer["legal_actions"]:
                    waits.append(0.0)  # the bots' turns came with the answer
            view = answer
        if view["status"] == "finished" and warmup_until <= time.monotonic() < deadline:  # in the window
            out["matches"] += 1


def _signed_up(client: Client, seed: int, variant: str, options: dict[str, Any], bots: str,
               out: dict[str, Any]) -> list[dict[str, Any]]:  # fmt: skip
    """A new player for the client (its token kept by it), and the seats of its matches: the player and
    bots; none (an error recorded) if the player could not be created."""
    status, player = client.call("POST", "/api/v1/players/", {"username": f"load{seed}-{secrets.token_hex(3)}"})
    if status != 201:
        out["errors"].append(f"create player: {status} {player}")
        return []
    client.token = player["token"]
    players = {"clasico": 4, "subastado": 3, "dos": 2, "subastado_parejas": 4}.get(variant, options.get("players", 4))
    return [{"player": "me"}] + [{"bot": bots}] * (players - 1)


def _paced(think: float, interval: float, due: float) -> float:
    """Pause before an action: ``think`` seconds, then until its moment with a rate (``interval``); the
    moment the next is due after."""
    if think:
        time.sleep(think)
    if interval:
        due += interval
        time.sleep(max(0.0, due - time.perf_counter()))
    return due


#: Seconds a client playing over a socket waits for its turn (the bots' turns, a new match's deal) at most.
TURN_SECONDS = 10.0


def play_socket(port: int, deadline: float, warmup_until: float, variant: str, options: dict[str, Any], bots: str,
                think: float, interval: float, seed: int, out: dict[str, Any]) -> None:  # fmt: skip
    """One client as :func:`play`, but playing each match over its WebSocket (``--channel socket``): the
    player and each match created over HTTP, then every action an ``action`` frame, and the view at the
    client's turn the socket's ``turn`` frame (docs/clients.md), with no HTTP read. ``latencies``: from an
    action frame sent to its ``result`` read; ``waits``: from that result (not the client's turn) to the
    ``turn`` frame that follows the bots' turns (the socket answers an action before it sends what the
    action caused; a turn read before the answer would count as no wait)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    rng = random.Random(seed)
    client = Client(port)
    latencies: list[float] = out["latencies"]
    waits: list[float] = out["waits"]
    lateness: list[float] = out["lateness"]
    due = time.perf_counter() + rng.uniform(0, interval)
    seats = _signed_up(client, seed, variant, options, bots, out)
    auth = {"Authorization": f"Bearer {client.token}"}
    while seats and time.monotonic() < deadline:
        status, created = client.call("POST", "/api/v1/matches/", {"variant": variant, "options": options,
                                                                   "seats": seats})  # fmt: skip
        if status != 201:
            out["errors"].append(f"create match: {status} {created}")
            return
        url = f"ws://{HOST}:{port}/api/v1/matches/{created['id']}/ws?after={created['seq']}"
        with connect(url, additional_headers=auth, open_timeout=30, close_timeout=5, max_size=2**22) as socket:
            view: dict[str, Any] | None = None  # the latest view shown at the client's turn, not yet acted on
            waiting_since: float | None = None  # the first turn of a match is no wait for the bots
            ref, turn_due = 0, time.monotonic() + TURN_SECONDS
            try:
                while time.monotonic() < deadline:
                    if view is None:
                        try:
                            frame = json.loads(socket.recv(timeout=max(0.0, turn_due - time.monotonic())))
                        except TimeoutError:
                            out["errors"].append(f"socket: no turn within {TURN_SECONDS:g} s (match {created['id']})")
                            break
                        if frame["type"] == "turn":
                            view = frame["match"]
                        elif frame["type"] == "error":
                            out["errors"].append(f"socket: {frame['status']} {frame['problem']}")
                            break
                        continue
                    if waiting_since is not None and warmup_until <= time.monotonic() < deadline:
                        waits.append(max(0.0, time.perf_counter() - waiting_since))
                    due = _paced(think, interval, due)
                    action = {**rng.choice(view["legal_actions"]), "expected_seq": view["seq"]}
                    ref += 1
                    start = time.perf_counter()
                    if interval and warmup_until <= time.monotonic() < deadline:
                        lateness.append(max(0.0, start - due))
                    socket.send(json.dumps({"type": "action", "action": action, "ref": ref}))
                    view, answer = None, None
                    while answer is None:  # the events and the turn that the news may bring first are kept
                        frame = json.loads(socket.recv(timeout=30))
                        if frame["type"] in ("result", "error") and frame.get("ref") == ref:
                            answer, answered = frame, time.perf_counter()
                        elif frame["type"] == "turn":
                            view = frame["match"]
                    if answer["type"] == "error":
                        out["errors"].append(f"socket action: {answer['status']} {answer['problem']}")
                        break
                    if warmup_until <= time.monotonic() < deadline:
                        latencies.append(answered - start)
                    if answer["match"]["legal_actions"]:  # still the client's turn (it won the trick)
                        view, waiting_since = answer["match"], None
                    elif view is not None and view["seq"] > answer["match"]["seq"]:
                        waiting_since = answered  # the turn came before the answer: no wait
                    else:
                        view, waiting_since = None, answered
                        turn_due = time.monotonic() + TURN_SECONDS
            except ConnectionClosed as closed:
                if closed.rcvd is None or closed.rcvd.code != 1000:  # 1000: the match is over, all sent
                    out["errors"].append(f"socket closed: {closed}")
                    return
                if warmup_until <= time.monotonic() < deadline:
                    out["matches"] += 1


def client_process(port: int, threads: int, first_seed: int, deadline: float, warmup_until: float,
                   variant: str, options: dict[str, Any], bots: str, think: float, interval: float,
                   queue: Any, channel: str = "http") -> None:  # fmt: skip
    results = [{"latencies": [], "waits": [], "lateness": [], "errors": [], "matches": 0} for _ in range(threads)]
    player = {"socket": play_socket, "latest": functools.partial(play, show="latest")}.get(channel, play)
    workers = [
        threading.Thread(
            target=_guarded,
            args=(player, port, deadline, warmup_until, variant, options, bots, think, interval, first_seed + i, r),
        )
        for i, r in enumerate(results)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    queue.put(results)


def _guarded(player: Any, *args: Any) -> None:
    out = args[-1]
    try:
        player(*args)
    except Exception as exc:  # noqa: BLE001 - every failure is an error of the run
        out["errors"].append(f"{type(exc).__name__}: {exc}")


# -- one greedy player: more waits than its cap, beside the others --------------------------------------


def greedy_process(port: int, waits: int, queue: Any, ready: Any) -> None:
    """One player holding ``waits`` long polls on its match at once, each sent again when answered (a
    refused one after its ``Retry-After``), until SIGUSR1: how many were held and how many refused."""
    import asyncio

    out: dict[str, Any] = {"waits": waits, "answered": 0, "refused": {}, "errors": 0, "error_samples": []}
    done = asyncio.Event()

    async def main() -> None:
        import httpx

        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, done.set)
        limits = httpx.Limits(max_connections=waits + 10, max_keepalive_connections=waits + 10)
        async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}", limits=limits, timeout=60) as client:
            answer = await client.post("/api/v1/players/", json={"username": f"greedy-{secrets.token_hex(3)}"})
            auth = {"Authorization": f"Bearer {answer.json()['token']}"}
            body = {"variant": "clasico", "options": {"games_to_win": 1},
                    "seats": [{"player": "me"}] + [{"bot": "level-1"}] * 3}  # fmt: skip
            view = (await client.post("/api/v1/matches/", json=body, headers=auth)).json()
            while not view["legal_actions"]:  # its turn: the bots wait, so nothing answers its waits early
                view = (await client.get(f"/api/v1/matches/{view['id']}?after={view['seq']}&wait=10",
                                         headers=auth)).json()  # fmt: skip

            async def wait_again() -> None:
                while not done.is_set():
                    try:
                        got = await client.get(f"/api/v1/matches/{view['id']}?after={view['seq']}&wait=25",
                                               headers=auth)  # fmt: skip
                    except Exception as exc:  # noqa: BLE001
                        got = None
                        out["errors"] += 1
                        if len(out["error_samples"]) < 5:
                            out["error_samples"].append(f"{type(exc).__name__}: {exc}")
                    if got is not None and got.status_code == 200:
                        out["answered"] += 1  # held for its whole wait: nothing happens on the match
                    elif got is not None:
                        code = f"{got.status_code} {got.json().get('code')}"
                        out["refused"][code] = out["refused"].get(code, 0) + 1
                        await asyncio.sleep(float(got.headers.get("Retry-After", 1)))  # as the answer asks

            tasks = [asyncio.create_task(wait_again()) for _ in range(waits)]
            ready.set()
            await done.wait()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    queue.put(out)


# -- the idle clients: one asyncio process, no thread per connection ------------------------------


#: The close code of a socket that lived ``STREAM_MAX_SECONDS`` (games/live/sockets.py): reconnect with
#: ``?after=`` the last seq, as docs/clients.md tells a client.
SOCKET_LIFETIME = 4000


def match_over(
    kind: str, *, status: int = 200, body: dict[str, Any] | None = None, close_code: int | None = None
) -> bool:
    """Whether an idle connection's match is over and every event was sent, so that holding it again would
    only spin (a long poll of a match that is over is answered at once, a stream gets 204, a socket closes
    with 1000): the holder lets go, which is no error."""
    if kind == "stream":
        return status == 204
    if kind == "socket":
        return close_code == 1000
    return body is not None and body.get("status") in ("finished", "cancelled")


class Heard:
    """What one idle connection has heard of its match: the time it first reached the seq an action of
    its player is expected to have (:meth:`expect`, set before the action is sent)."""

    def __init__(self, kind: str) -> None:
        import asyncio

        self.kind = kind  # stream, poll or socket
        self.reached = asyncio.Event()
        self.target = 1 << 62
        self.at = 0.0
        self.gone = False  # let go (its match over, or an error): nothing to wait for
        self.opened = 0.0  # when its current connection (or request) opened: 0 between two of them
        self.last = 0.0  # when it last heard anything: an event, a keep-alive, an answer
        self.seq = 0  # the last seq it heard

    def heard(self) -> None:
        self.last = time.perf_counter()

    def missed(self, since: float) -> str:
        """Why it may not have heard what came at ``since``: its connection then, and what it heard last."""
        now = time.perf_counter()
        opened = f"opened {since - self.opened:.1f} s before" if self.opened else "between two connections"
        return f"{self.kind} ({opened}, last heard {now - self.last:.1f} s ago, at seq {self.seq} of {self.target})"

    def expect(self, seq: int) -> None:
        self.target = seq
        self.reached.clear()

    def note(self, seq: int) -> None:
        self.seq = seq
        self.heard()
        if seq >= self.target and not self.reached.is_set():
            self.at = time.perf_counter()
            self.reached.set()


def idle_clients_process(port: int, total: int, per_player: int, lifetime: float, queue: Any, ready: Any,
                         ramp: float = 0.0, actors: int = 8, pause: float = 1.0) -> None:  # fmt: skip
    import asyncio

    out: dict[str, Any] = {"connected": 0, "streams": 0, "polls": 0, "sockets": 0, "errors": 0, "error_samples": [],
                           "fanouts": 0, "ended": 0, "renewed": 0}  # fmt: skip
    fanouts: list[float] = []  # from the action's answer (its events committed) until every subscriber has it
    fanouts_from_request: list[float] = []  # from the action's request, its own latency included
    lags: list[float] = []  # how late this process's event loop ran a callback due now: its own share of a fan-out
    done = asyncio.Event()

    async def watch_the_loop() -> None:
        """Every 100 ms, how late the loop woke: a fan-out is heard no sooner than this process reads it."""
        while not done.is_set():
            due = time.perf_counter() + 0.1
            await asyncio.sleep(0.1)
            lags.append(max(0.0, time.perf_counter() - due))

    async def main() -> None:
        import httpx

        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGUSR1, done.set)
        # A client of its own per idle player: httpx's pool looks at each of its connections whenever a
        # request starts or ends, so one pool of 5,000 connections spent 97% of this process's CPU
        # (a py-spy profile) and the streams connected late for want of the client's CPU, not the server's.
        limits = httpx.Limits(max_connections=per_player + 2, max_keepalive_connections=per_player + 2)
        players = math.ceil(total / per_player)
        clients = [httpx.AsyncClient(base_url=f"http://{HOST}:{port}", limits=limits,
                                     timeout=httpx.Timeout(60, pool=None)) for _ in range(players)]  # fmt: skip
        try:
            setup = asyncio.Semaphore(8)
            tables = await asyncio.gather(*(idle_table(clients[i], i, setup) for i in range(players)))
            tables = [(clients[i], t) for i, t in enumerate(tables) if t is not None]
            tasks = []
            heard_at: dict[int, list[Heard]] = {}
            left = total
            for client, (auth, view) in tables:
                count = min(per_player, left)
                left -= count
                heard_at[id(view)] = [Heard(("stream", "poll", "socket")[k % 3]) for k in range(count)]
                for heard in heard_at[id(view)]:
                    start = random.uniform(0, ramp)  # players connect over the ramp, not in one instant
                    tasks.append(asyncio.create_task(hold(client, auth, view, heard, start)))
            await asyncio.sleep(ramp + 5)
            ready.set()
            watching = asyncio.create_task(watch_the_loop())
            # Fan-out: now and then an idle player acts (``actors`` of them at once, each every ``pause``
            # seconds); every connection on its match must hear it.
            actors_ = [asyncio.create_task(act_now_and_then(tables[k::actors], heard_at, k, actors))
                       for k in range(min(actors, len(tables)))]  # fmt: skip
            await done.wait()
            watching.cancel()
            for task in actors_:
                task.cancel()
            await asyncio.gather(*actors_, return_exceptions=True)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            await asyncio.gather(*(client.aclose() for client in clients), return_exceptions=True)

    def note(error: str) -> None:
        out["errors"] += 1
        if len(out["error_samples"]) < 5:
            out["error_samples"].append(error)

    async def idle_table(client: Any, i: int, setup: asyncio.Semaphore) -> Any:
        async with setup:
            try:
                answer = await client.post("/api/v1/players/", json={"username": f"idle{i}-{secrets.token_hex(3)}"})
                auth = {"Authorization": f"Bearer {answer.json()['token']}"}
                body = {"variant": "clasico", "options": {"games_to_win": 1},
                        "seats": [{"player": "me"}] + [{"bot": "level-1"}] * 3}  # fmt: skip
                view = (await client.post("/api/v1/matches/", json=body, headers=auth)).json()
                while not view["legal_actions"]:
                    view = (await client.get(f"/api/v1/matches/{view['id']}?after={view['seq']}&wait=10",
                                             headers=auth)).json()  # fmt: skip
                return auth, view
            except Exception as exc:  # noqa: BLE001
                note(f"idle setup: {type(exc).__name__}: {exc}")
                return None

    async def act_now_and_then(mine: list[Any], heard_at: dict[int, list[Heard]], k: int, actors: int) -> None:
        """One of the idle players that act: in turn at each of its tables, one action every ``pause`` s."""
        await asyncio.sleep(pause * k / actors)  # the actors' actions spread over the pause
        number = 0
        while not done.is_set():
            playing = [table for table in mine if table[1][1].get("status") not in ("finished", "cancelled")]
            if not playing:
                return
            client, (auth, view) = playing[number % len(playing)]
            number += 1
            if not view["legal_actions"]:  # it acted before: its turn again once its bots have played?
                again = await client.get(f"/api/v1/matches/{view['id']}", headers=auth)
                if again.status_code == 200:
                    view.update(again.json())
                if not view["legal_actions"]:
                    await asyncio.sleep(0.5)
                    continue
            heard = [h for h in heard_at[id(view)] if not h.gone]
            for h in heard:
                h.expect(view["seq"] + 1)
            started = time.perf_counter()
            act = await client.post(f"/api/v1/matches/{view['id']}/actions", headers=auth,
                                    json={**view["legal_actions"][0], "expected_seq": view["seq"]})  # fmt: skip
            answered = time.perf_counter()
            if act.status_code != 200:
                note(f"idle action: {act.status_code} {act.text[:200]}")
                view["legal_actions"] = []
                continue
            view.update(act.json())
            # Tasks, each cancelled if it has not heard (a gather cancelled at the timeout or at the run's
            # end left its CancelledError unretrieved: a traceback on stderr).
            waiting = [asyncio.ensure_future(h.reached.wait()) for h in heard if not h.gone]
            try:
                await asyncio.wait(waiting, timeout=10) if waiting else None
            finally:
                for task in waiting:
                    task.cancel()
            late = sorted(h.missed(started) for h in heard if not h.reached.is_set())
            if late:
                note(f"fan-out: not every subscriber heard the event within 10 s (not: {'; '.join(late)})")
            else:
                last = max((h.at for h in heard if not h.gone), default=answered)
                fanouts.append(max(0.0, last - answered))
                fanouts_from_request.append(last - started)
            await asyncio.sleep(pause)

    async def hold(client: Any, auth: dict[str, str], view: dict[str, Any], heard: Heard, start: float) -> None:
        """One idle connection of ``heard.kind``, held (and opened again) until the run is done."""
        try:
            await holding(client, heard.kind, auth, view, heard, start)
        finally:
            heard.gone = True
            heard.reached.set()

    async def holding(client: Any, kind: str, auth: dict[str, str], view: dict[str, Any], heard: Heard,
                      start: float) -> None:  # fmt: skip
        await asyncio.sleep(start)
        url = f"/api/v1/matches/{view['id']}"
        seq = view["seq"]
        counted = False
        while not done.is_set():
            try:
                if kind == "socket":
                    from websockets.asyncio.client import connect
                    from websockets.exceptions import ConnectionClosed

                    async with connect(f"ws://{HOST}:{port}{url}/ws?after={seq}", additional_headers=auth,
                                       open_timeout=60, ping_interval=None) as socket:  # fmt: skip
                        try:
                            async for frame in socket:
                                heard.heard()
                                message = json.loads(frame)
                                if message["type"] == "ready":
                                    heard.opened = time.perf_counter()
                                if message["type"] == "ready" and not counted:
                                    out["connected"] += 1
                                    out["sockets"] += 1
                                    counted = True
                                elif message["type"] == "event":
                                    seq = message["event"]["seq"]
                                    heard.note(seq)
                                elif message["type"] == "error":
                                    note(f"idle socket: {message.get('problem', {}).get('code')}")
                                    return
                        except ConnectionClosed as closed:
                            if closed.rcvd is None or closed.rcvd.code != SOCKET_LIFETIME:
                                raise
                            out["renewed"] += 1  # as a client does: again from its last seq
                    heard.opened = 0.0
                    if match_over("socket", close_code=socket.close_code):
                        out["ended"] += 1
                        return
                elif kind == "stream":
                    async with client.stream("GET", f"{url}/stream?after={seq}", headers=auth) as answer:
                        if match_over("stream", status=answer.status_code):
                            out["ended"] += 1
                            return
                        if answer.status_code != 200:
                            note(f"idle stream: {answer.status_code}")
                            return
                        if not counted:
                            out["connected"] += 1
                            out["streams"] += 1
                            counted = True
                        heard.opened = time.perf_counter()
                        async for line in answer.aiter_lines():
                            heard.heard()
                            if line.startswith("id: "):
                                seq = int(line[4:])
                                heard.note(seq)
                    heard.opened = 0.0
                else:
                    if not counted:
                        out["connected"] += 1
                        out["polls"] += 1
                        counted = True
                    heard.opened = time.perf_counter()
                    answer = await client.get(f"{url}?after={seq}&wait=25", headers=auth)
                    heard.opened = 0.0
                    heard.heard()
                    if answer.status_code != 200:
                        note(f"idle long poll: {answer.status_code}")
                        return
                    body = answer.json()
                    if body["seq"] > seq:
                        seq = body["seq"]
                        heard.note(seq)
                    if match_over("poll", body=body):
                        out["ended"] += 1
                        return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001
                heard.opened = 0.0
                note(f"idle {kind}: {type(exc).__name__}: {exc}")
                await asyncio.sleep(1)

    asyncio.run(main())
    queue.put({**out, "fanouts": fanouts, "fanouts_from_request": fanouts_from_request, "lags": lags})


def idle_figures(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The idle clients' processes' reports as one: counts added up, percentiles over all their values."""
    counted = ("connected", "streams", "polls", "sockets", "errors", "ended", "renewed")
    merged: dict[str, Any] = {key: sum(r[key] for r in results) for key in counted}
    merged["error_samples"] = [e for r in results for e in r["error_samples"]][:5]
    fanouts = [x for r in results for x in r["fanouts"]]
    from_request = [x for r in results for x in r["fanouts_from_request"]]
    lags = [x for r in results for x in r["lags"]]
    merged["fanouts"] = len(fanouts)
    merged["fanout_ms"] = percentiles_ms(fanouts, "p50", "p99")
    merged["fanout_from_request_ms"] = percentiles_ms(from_request, "p50", "p99")
    merged["client_loop_lag_ms"] = percentiles_ms(lags, "p50", "p99", "p100")
    merged["processes"] = len(results)
    return merged


def split(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` shares that differ by one at most, the larger first."""
    return [total // parts + (i < total % parts) for i in range(parts)]


def _proc_stats(proc: str = "/proc") -> dict[int, tuple[str, list[str]]]:
    """Every process's command name and ``/proc/<pid>/stat`` fields after it, by pid (Linux)."""
    stats: dict[int, tuple[str, list[str]]] = {}
    for entry in os.listdir(proc):
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc}/{entry}/stat") as stat:
                name, _, rest = stat.read().rpartition(")")
        except OSError:
            continue
        stats[int(entry)] = (name.partition("(")[2], rest.split())
    return stats


def _tree_stats(*roots: int) -> list[list[str]]:
    """The ``/proc/<pid>/stat`` fields (after the command's name) of some processes and their live
    descendants (Linux)."""
    stats = {pid: fields for pid, (_, fields) in _proc_stats().items()}
    tree, grown = set(roots), True
    while grown:
        grown = False
        for pid, fields in stats.items():
            if int(fields[1]) in tree and pid not in tree:
                tree.add(pid)
                grown = True
    return [stats[pid] for pid in tree if pid in stats]


def tree_rss_bytes(root: int) -> int:
    """Resident memory of a process and its descendants (Linux)."""
    return sum(int(fields[21]) for fields in _tree_stats(root)) * os.sysconf("SC_PAGE_SIZE")


# -- the service --------------------------------------------------------------------------------


def _services_cpu_seconds(proc: str = "/proc") -> dict[str, float]:
    """CPU seconds (user + system) used so far by this machine's PostgreSQL (its postmaster, its live
    backends, and those that ended, counted in their parent's children's times) and Redis servers: where
    the rest of the box goes. A backend that ends between two readings is counted in both."""
    by_pid = _proc_stats(proc)
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = {"database": 0.0, "redis": 0.0}
    for name, fields in by_pid.values():
        own = int(fields[11]) + int(fields[12])
        if name == "postgres":
            parent = by_pid.get(int(fields[1]), ("", []))[0]
            reaped = int(fields[13]) + int(fields[14]) if parent != "postgres" else 0  # the postmaster's
            seconds["database"] += (own + reaped) / ticks
        elif name == "redis-server":
            seconds["redis"] += own / ticks
    return seconds


def service_env(database: str, *, web_threads: int = 2, live_connections: int = 10,
                gc_pauses_dir: str = "") -> dict[str, str]:  # fmt: skip
    """The environment of the service under test: the production settings, on ``database`` of the PostgreSQL
    at :data:`PG` and the Redis at :data:`REDIS_URL` (a Celery queue of the database's own); with
    ``gc_pauses_dir``, each server process writes its collector's stops there (``tute_api/gc_pauses.py``)."""
    return {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": HOST,
        "SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": f"postgres://{PG['user']}@{HOST}:{PG['port']}/{database}",
        "ASGI_THREADS": str(web_threads),
        "DATABASE_POOL_SIZE": str(web_threads + 4),
        "LIVE_CONNECTIONS_PER_PLAYER": str(live_connections),
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": "",
        "CELERY_QUEUE": f"loadtest-{database}",
        "LIVE_UPDATES_URL": REDIS_URL,
        "CACHE_URL": CACHE_URL,
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        # One client may post faster than the default 50 requests per second of a player; the limit
        # is still counted on every request.
        "THROTTLE_RATE_PLAYER": "1000/s",
        "THROTTLE_RATE_ANON": "100000/min",  # --idle creates its players from one address
        "GC_PAUSES_DIR": gc_pauses_dir,
    }


def start_service(env: dict[str, str], port: int, log: Any, *, server: str = "asgi", web_workers: int = 0,
                  web_threads: int = 2, worker_nice: int = 10,
                  celery_concurrency: int = 1) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:  # fmt: skip
    """Migrate the database, empty the queue, start a Celery worker and the web server (gunicorn, with
    ``gunicorn.conf.py``, and its number of workers unless ``web_workers`` says) on ``port``, and wait until it
    answers: (web, worker), for :func:`stop`."""
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "-m", "celery", "-A", "tute_api", "purge", "-f"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    worker = subprocess.Popen(
        ["nice", "-n", str(worker_nice), python, "-m", "celery", "-A", "tute_api", "worker",
         "--loglevel=WARNING", f"--concurrency={celery_concurrency}", "--without-gossip", "--without-mingle",
         "--without-heartbeat", "--hostname", f"loadtest-{os.getpid()}@%h"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    web = None
    try:
        web = subprocess.Popen(
            # gunicorn.conf.py, in the working directory, holds the rest of the production settings.
            [python, "-m", "gunicorn", f"tute_api.{server}:application", "--bind", f"{HOST}:{port}",
             *(["--workers", str(web_workers)] if web_workers else []),
             *(["--worker-class", "gthread", "--threads", str(web_threads)] if server == "wsgi" else [])],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_ready(port)
    except BaseException:
        stop(web)
        stop(worker)
        raise
    return web, worker


# -- the database's ceiling: pgbench with the statements an action makes -----------------------------

#: One mover's share of an action, as the service runs it (the SQL of POST /matches/{id}/actions, read
#: with Django's query log): the player by token; the match locked; its events appended and the match
#: (its snapshot too) updated in one statement. Each pgbench client works on a match of its own.
PGBENCH_ACTION = r"""
SELECT id AS mid, seq AS s FROM games_match WHERE state IS NOT NULL ORDER BY id OFFSET :client_id LIMIT 1 \gset
SELECT p.id, p.username, p.created_at FROM players_player p JOIN players_token t ON t.player_id = p.id
  WHERE t.digest = ':digest';
BEGIN;
SELECT seq AS s FROM games_match WHERE id = ':mid' FOR UPDATE \gset
WITH appended AS (INSERT INTO games_event (match_id, seq, type, seat, data, created_at)
  VALUES (':mid', :s + 1, 'card_played', 0, '{"card": "E1"}', now()))
UPDATE games_match SET seq = :s + 1, state = jsonb_set(state, '{pgbench}', to_jsonb(:s + 1)), updated_at = now()
  WHERE id = ':mid';
COMMIT;
"""


def pgbench_ceiling(database: str, clients: int, seconds: float) -> dict[str, Any]:
    """Transactions a second of :data:`PGBENCH_ACTION` on the same server, ``clients`` at once: a mover's
    work; an action against bots is two of them (the human's, the bots'), so the ceiling in actions a
    second is half. Run after the load, on the load test's own database (its matches and a token)."""
    import psycopg

    with psycopg.connect(dbname=database, autocommit=True, connect_timeout=5, **PG) as conn:
        digest = conn.execute("SELECT digest FROM players_token LIMIT 1").fetchone()
        matches = conn.execute("SELECT count(*) FROM games_match WHERE state IS NOT NULL").fetchone()
    if digest is None or matches is None or matches[0] < clients:
        return {"error": f"not enough matches in {database} for {clients} pgbench clients"}
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as script:
        script.write(PGBENCH_ACTION)
    try:
        done = subprocess.run(
            ["pgbench", "-n", "-h", PG["host"], "-p", str(PG["port"]), "-U", PG["user"], "-c", str(clients),
             "-j", str(min(clients, os.cpu_count() or 1)), "-T", str(max(1, round(seconds))), "-D",
             f"digest={digest[0]}", "-f", script.name, database],
            capture_output=True, text=True, timeout=seconds + 60,
        )  # fmt: skip
    finally:
        os.unlink(script.name)
    found = re.search(r"tps = ([0-9.]+)", done.stdout)
    if done.returncode != 0 or found is None:
        return {"error": (done.stderr or done.stdout).strip()[-300:]}
    tps = float(found.group(1))
    return {"clients": clients, "seconds": round(seconds), "transactions_per_second": round(tps),
            "actions_per_second": round(tps / 2)}  # fmt: skip


def pg_admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(dbname="postgres", autocommit=True, connect_timeout=5, **PG) as conn:
        conn.execute(sql)


def wait_ready(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=2)
            connection.request("GET", "/readyz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"loadtest: the service on port {port} was not ready within {timeout:.0f}s")


def stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def stop_forked(processes: list[Any], timeout: float = 5) -> None:
    """Stop the forked clients still running: a run interrupted no longer reads their results, and a
    process that has put more into its queue than the pipe holds waits for a reader before it exits, as
    the interpreter's exit waits for it (Ctrl-C left the load test hanging)."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout)


def tree_cpu_seconds(*roots: int) -> float:
    """CPU seconds (user + system) used so far by some processes and their live descendants (Linux)."""
    return sum(int(fields[11]) + int(fields[12]) for fields in _tree_stats(*roots)) / os.sysconf("SC_CLK_TCK")


def machine_cpu_seconds() -> tuple[float, float, float]:
    """(busy, total, waiting for the disk) CPU seconds of the whole machine so far, from /proc/stat. The
    disk's share counts as idle: a run with much of it was held up by the disk (the commits' flushes),
    not by the CPU."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle, ticks = values[3] + values[4], os.sysconf("SC_CLK_TCK")
    return (sum(values) - idle) / ticks, sum(values) / ticks, values[4] / ticks


#: The collector's generations, as the figures name them.
GENERATIONS = ("young", "middle", "full")


def gc_reports(directory: str) -> dict[int, dict[str, Any]]:
    """What each server process last wrote of its collector's stops (``tute_api/gc_pauses.py``), by pid."""
    reports = {}
    for name in os.listdir(directory):
        if name.endswith(".json"):
            with open(os.path.join(directory, name)) as report:
                found = json.load(report)
            reports[found["pid"]] = found
    return reports


def gc_figures(before: dict[int, dict[str, Any]], after: dict[int, dict[str, Any]], start: float,
               end: float) -> dict[str, Any]:  # fmt: skip
    """The server processes' collections between two readings of :func:`gc_reports`, by generation: how
    many, the wall and CPU seconds they stopped their process, the objects they freed, the longest stop
    that ended between ``start`` and ``end`` (``time.time()``; stops under 10 ms are not kept: None if none
    was longer); the processes that reported; and the share of the window they were stopped, on average."""
    counted = ("collections", "wall_seconds", "cpu_seconds", "freed")
    zero = {key: [0, 0, 0] for key in counted}  # a process that started in the window
    figures: dict[str, Any] = {}
    for g, name in enumerate(GENERATIONS):
        longest = [wall for report in after.values() for at, gen, wall in report["kept"]
                   if gen == g and start <= at <= end]  # fmt: skip
        figures[name] = {
            key: round(sum(report[key][g] - before.get(pid, zero)[key][g] for pid, report in after.items()), 3)
            for key in counted
        }
        figures[name]["longest_ms"] = round(1000 * max(longest), 1) if longest else None
    stopped = sum(figures[name]["wall_seconds"] for name in GENERATIONS)
    if any("garbage" in report for report in after.values()):  # a census: what the collections found, by kind
        found: collections.Counter[str] = collections.Counter()
        for pid, report in after.items():
            found.update(report.get("garbage", {}))
            found.subtract(before.get(pid, {}).get("garbage", {}))
        figures["garbage"] = {kind: n for kind, n in found.most_common() if n > 0}
    figures["processes"] = len(after)
    figures["stopped_share"] = round(stopped / ((end - start) * len(after)), 4) if after and end > start else None
    return figures


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile: the smallest value with at least p% of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1] if ordered else float("nan")


def percentiles_ms(values: list[float], *names: str) -> dict[str, float]:
    """Percentiles of values in seconds, in milliseconds, by name (``"p50"``, ``"p99"``)."""
    return {name: round(1000 * percentile(values, int(name[1:])), 1) for name in names}


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients (default 20)")
    parser.add_argument("--seconds", type=float, default=60, help="how long the clients play (default 60)")
    parser.add_argument("--warmup", type=float, default=5, help="first seconds left out of the figures (default 5)")
    parser.add_argument("--variant", default="clasico")
    parser.add_argument("--options", default='{"games_to_win": 1}', help="match options as JSON")
    parser.add_argument("--bots", default="level-1")
    parser.add_argument("--think-ms", type=float, default=0,
                        help="each client's pause before each action, as a player choosing a card (default 0)")
    parser.add_argument("--rate", type=float, default=0,
                        help="actions a second that the clients offer together, each client's due at a steady pace "
                             "(sent late, at once, when the client is behind): the latency at a given load, below "
                             "the saturation that clients without a pause reach (default 0: as fast as answered)")
    parser.add_argument("--channel", choices=["http", "latest", "socket"], default="http",
                        help="how the clients play: POST each action and long-poll the bots' answer (http); POST "
                        "each with ?show=latest, whose answer has the quick bots' turns (latest); or over each "
                        "match's WebSocket, an action frame and the turn frame that follows (socket)")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--web-workers", type=int, default=0,
                        help="gunicorn's uvicorn worker processes (default: gunicorn.conf.py's: one per core)")
    parser.add_argument("--server", choices=["asgi", "wsgi"], default="asgi",
                        help="asgi: the production serving (gunicorn.conf.py); wsgi: gunicorn's gthread workers on "
                             "tute_api.wsgi, --web-threads each, to tell ASGI's cost from the views' (waits then hold "
                             "a thread: not with --idle)")
    parser.add_argument("--web-threads", type=int, default=2,
                        help="ASGI_THREADS: threads per worker for the requests that do not wait and the waits' "
                             "reads (default 2, as gunicorn.conf.py)")
    parser.add_argument("--idle", type=int, default=0,
                        help="idle connected clients beside the active ones: a third each SSE streams, long polls and "
                             "WebSockets (default 0)")
    parser.add_argument("--greedy", type=int, default=0,
                        help="one more player holding this many long polls at once on its match, beyond its cap "
                             "of live connections (default 0: none)")
    parser.add_argument("--idle-ramp", type=float, default=25,
                        help="seconds over which the idle connections open, each at a random moment, before the "
                        "window (default 25: the long polls' wait, so that they do not all come back at once)")
    parser.add_argument("--idle-per-player", type=int, default=8,
                        help="idle connections per idle player, all on its match (default 8)")
    parser.add_argument("--fanout-actors", type=int, default=8,
                        help="idle players acting at once, for the fan-out's figures (default 8)")
    parser.add_argument("--fanout-pause", type=float, default=1.0,
                        help="seconds each of them waits after an action's fan-out (default 1)")
    parser.add_argument("--idle-processes", type=int, default=4,
                        help="processes that hold the idle connections, split by player (default 4)")
    parser.add_argument(
        "--celery-concurrency", type=int, default=1,
        help="Celery worker processes (default 1: on a machine it shares with the web server, the bots' turns "
             "take one core at most and the players' requests always find the other)",
    )
    parser.add_argument(
        "--worker-nice", type=int, default=10,
        help="niceness of the Celery worker (default 10: the web server's requests come first)",
    )  # fmt: skip
    parser.add_argument("--client-processes", type=int, default=0,
                        help="processes the clients run in (default: one per client, as separate devices)")
    parser.add_argument("--database", default="tute_loadtest")
    parser.add_argument("--pgbench-seconds", type=float, default=15,
                        help="after the load, pgbench the statements of an action this long (0: no ceiling)")
    parser.add_argument("--gc-census", action="store_true",
                        help="a diagnostic: the server's processes keep the garbage their collections find and "
                             "count it by kind (tute_api/gc_pauses.py); its figures are not the service's then")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _interrupted)  # as Ctrl-C: stop what was started, drop the database
    options = json.loads(args.options)

    gc_pauses_dir = tempfile.mkdtemp(prefix="loadtest-gc-")
    env = service_env(args.database, web_threads=args.web_threads,
                      live_connections=max(10, args.idle_per_player), gc_pauses_dir=gc_pauses_dir)  # fmt: skip
    if args.gc_census:
        env["GC_CENSUS"] = "1"
    (ROOT / "var").mkdir(exist_ok=True)
    log = open(ROOT / "var" / "loadtest.log", "wb")  # noqa: SIM115 - kept open for the subprocesses
    pg_admin(f'DROP DATABASE IF EXISTS "{args.database}"')
    pg_admin(f'CREATE DATABASE "{args.database}"')
    web = worker = None
    forked: list[Any] = []  # the clients' processes
    try:
        web, worker = start_service(env, args.port, log, server=args.server, web_workers=args.web_workers,
                                    web_threads=args.web_threads, worker_nice=args.worker_nice,
                                    celery_concurrency=args.celery_concurrency)  # fmt: skip
        idle_result: Any = None
        idle_queue: Any = multiprocessing.get_context("fork").Queue()
        idle_processes = []
        rss_base = tree_rss_bytes(web.pid)
        if args.idle:
            # Split by players (each player's connections in one process), the actors with them: one
            # process's event loop for 5,000 connections ran up to seconds late on the saturated box, and
            # the fan-out it measured was then its own lateness.
            players = math.ceil(args.idle / args.idle_per_player)
            shares = [n for n in split(players, max(1, min(args.idle_processes, players))) if n]
            actors = split(args.fanout_actors, len(shares))
            readies, left = [], args.idle
            for share, acting in zip(shares, actors, strict=True):
                connections = min(left, share * args.idle_per_player)
                left -= connections
                ready = multiprocessing.get_context("fork").Event()
                process = multiprocessing.get_context("fork").Process(
                    target=idle_clients_process,
                    args=(args.port, connections, args.idle_per_player, args.seconds + 600, idle_queue, ready,
                          args.idle_ramp, acting, args.fanout_pause),
                )
                process.start()
                forked.append(process)
                idle_processes.append(process)
                readies.append(ready)
            for ready in readies:
                if not ready.wait(600):
                    raise SystemExit("loadtest: the idle clients did not connect within 600 s")
        rss_idle = tree_rss_bytes(web.pid)
        greedy_process_ = None
        if args.greedy:
            greedy_ready = multiprocessing.get_context("fork").Event()
            greedy_process_ = multiprocessing.get_context("fork").Process(
                target=greedy_process, args=(args.port, args.greedy, idle_queue, greedy_ready)
            )
            greedy_process_.start()
            forked.append(greedy_process_)
            if not greedy_ready.wait(120):
                raise SystemExit("loadtest: the greedy player did not start within 120 s")

        load_before = os.getloadavg()[0]
        start = time.monotonic()
        deadline = start + args.seconds
        queue: Any = multiprocessing.get_context("fork").Queue()
        processes_wanted = args.client_processes or args.clients
        per_process = split(args.clients, processes_wanted)
        processes = []
        seed = 0
        for threads in per_process:
            if not threads:
                continue
            process = multiprocessing.get_context("fork").Process(
                target=client_process,
                args=(args.port, threads, seed, deadline, start + args.warmup, args.variant, options, args.bots,
                      args.think_ms / 1000, args.clients / args.rate if args.rate else 0.0, queue, args.channel),
            )
            process.start()
            forked.append(process)
            processes.append(process)
            seed += threads
        time.sleep(max(0.0, args.warmup - (time.monotonic() - start)))
        clients = [p.pid for p in processes if p.pid is not None]
        others = [p.pid for p in (*idle_processes, greedy_process_) if p is not None and p.pid is not None]
        workers = sum(1 for fields in _tree_stats(web.pid) if int(fields[1]) == web.pid)  # gunicorn's, booted
        cpu_before = (tree_cpu_seconds(web.pid), tree_cpu_seconds(worker.pid), machine_cpu_seconds(),
                      tree_cpu_seconds(*clients), tree_cpu_seconds(*others) if others else 0.0,
                      _services_cpu_seconds())  # fmt: skip
        gc_before, gc_start = gc_reports(gc_pauses_dir), time.time()
        time.sleep(max(0.0, deadline - time.monotonic()))
        cpu_after = (tree_cpu_seconds(web.pid), tree_cpu_seconds(worker.pid), machine_cpu_seconds(),
                     tree_cpu_seconds(*clients), tree_cpu_seconds(*others) if others else 0.0,
                     _services_cpu_seconds())  # fmt: skip
        gc_after, gc_end = gc_reports(gc_pauses_dir), time.time()
        results = [r for _ in processes for r in queue.get(timeout=args.seconds + 120)]
        for process in processes:
            process.join(30)
        for process in idle_processes:
            os.kill(process.pid, signal.SIGUSR1)  # done: report
        if idle_processes:
            idle_result = idle_figures([idle_queue.get(timeout=120) for _ in idle_processes])
        for process in idle_processes:
            process.join(30)
        greedy_result = None
        if greedy_process_ is not None:
            os.kill(greedy_process_.pid, signal.SIGUSR1)
            greedy_result = idle_queue.get(timeout=120)
            greedy_process_.join(30)
        measured = args.seconds - args.warmup
        load_after = os.getloadavg()[0]
        stop(web)
        stop(worker)
        ceiling = pgbench_ceiling(args.database, args.clients, args.pgbench_seconds) if args.pgbench_seconds else {}
    finally:
        stop_forked(forked)
        stop(web)
        stop(worker)
        log.close()
        shutil.rmtree(gc_pauses_dir, ignore_errors=True)
        try:
            pg_admin(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
        except Exception as exc:  # noqa: BLE001
            print(f"loadtest: could not drop {args.database}: {exc}", file=sys.stderr)

    window = cpu_after[2][1] - cpu_before[2][1]  # CPU seconds the machine had in the window
    web_cpu, worker_cpu = cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1]
    busy = cpu_after[2][0] - cpu_before[2][0]
    clients_cpu = cpu_after[3] - cpu_before[3]
    idle_clients_cpu = cpu_after[4] - cpu_before[4]  # the idle and greedy clients, on the same cores
    services_cpu = {name: cpu_after[5][name] - cpu_before[5][name] for name in cpu_after[5]}
    latencies = [x for r in results for x in r["latencies"]]
    waits = [x for r in results for x in r["waits"]]
    lateness = [x for r in results for x in r["lateness"]]
    errors = [e for r in results for e in r["errors"]]
    figures = {
        "clients": args.clients,
        "seconds": round(measured, 1),
        "variant": args.variant,
        "options": options,
        "bots": args.bots,
        "think_ms": args.think_ms,
        "rate": args.rate or None,
        "channel": args.channel,
        "actions": len(latencies),
        "actions_per_second": round(len(latencies) / measured, 1) if measured > 0 else 0,
        "matches_finished": sum(r["matches"] for r in results),
        "latency_ms": {
            "p50": round(1000 * percentile(latencies, 50), 1),
            "p95": round(1000 * percentile(latencies, 95), 1),
            "p99": round(1000 * percentile(latencies, 99), 1),
            "max": round(1000 * max(latencies, default=float("nan")), 1),
            "mean": round(1000 * statistics.fmean(latencies), 1) if latencies else None,
        },
        "bot_turns_wait_ms": {
            "p50": round(1000 * percentile(waits, 50), 1),
            "p95": round(1000 * percentile(waits, 95), 1),
        },
        # --rate: how late the actions were sent against their due moments (0 while the service keeps up)
        "sent_late_ms": {
            **percentiles_ms(lateness, "p50", "p99"),
            "late_share": round(sum(x > 0.001 for x in lateness) / len(lateness), 3),
        } if lateness else None,
        "errors": len(errors),
        "error_samples": errors[:5],
        "server": {
            "server": args.server,
            "gunicorn_workers": workers,
            "asgi_threads": args.web_threads,
            "celery_concurrency": args.celery_concurrency,
            "worker_nice": args.worker_nice,
            "client_processes": args.client_processes or args.clients,
        },
        "cpu_ms_per_action": {
            "web": round(1000 * web_cpu / len(latencies), 1) if latencies else None,
            "worker": round(1000 * worker_cpu / len(latencies), 1) if latencies else None,
            "clients": round(1000 * clients_cpu / len(latencies), 1) if latencies else None,
            **{name: round(1000 * seconds / len(latencies), 1) if latencies else None
               for name, seconds in services_cpu.items()},  # fmt: skip
        },
        "machine": {
            "cpus": os.cpu_count(),
            "busy_share": round(busy / window, 2) if window else None,
            "web_and_worker_share": round((web_cpu + worker_cpu) / window, 2) if window else None,
            "clients_share": round(clients_cpu / window, 2) if window else None,
            "idle_clients_share": round(idle_clients_cpu / window, 3) if window else None,
            **{f"{name}_share": round(seconds / window, 2) if window else None
               for name, seconds in services_cpu.items()},  # fmt: skip
            "disk_wait_share": round((cpu_after[2][2] - cpu_before[2][2]) / window, 3) if window else None,
            "load_1min_before": round(load_before, 2),
            "load_1min_after": round(load_after, 2),
        },
    }
    figures["server_gc"] = gc_figures(gc_before, gc_after, gc_start, gc_end)
    if ceiling:
        figures["ceiling"] = {
            **ceiling,
            "service_share": round(figures["actions_per_second"] / ceiling["actions_per_second"], 3)
            if ceiling.get("actions_per_second") else None,
        }  # fmt: skip
    if args.idle:
        figures["idle"] = {
            **(idle_result or {}),
            "server_rss_mb_before": round(rss_base / 2**20, 1),
            "server_rss_mb_with_idle": round(rss_idle / 2**20, 1),
            "server_mb_per_1000_connections": round((rss_idle - rss_base) / 2**20 / args.idle * 1000, 1),
        }
        errors += [f"idle: {e}" for e in (idle_result or {}).get("error_samples", [])]
    if args.greedy:
        figures["greedy"] = {**(greedy_result or {}), "cap": int(env["LIVE_CONNECTIONS_PER_PLAYER"])}
        errors += [f"greedy: {e}" for e in (greedy_result or {}).get("error_samples", [])]
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        lat = figures["latency_ms"]
        thinking = f", {args.think_ms:g} ms to think before each action" if args.think_ms else ""
        thinking += f", offering {args.rate:g} actions a second" if args.rate else ""
        print(f"{args.clients} clients, {figures['seconds']} s measured ({args.variant} {json.dumps(options)} "
              f"against {args.bots} bots{thinking})")  # fmt: skip
        print(f"  actions: {figures['actions']} ({figures['actions_per_second']}/s), "
              f"matches finished: {figures['matches_finished']}")  # fmt: skip
        socket = args.channel == "socket"
        print(f"  action {'frame to its result' if socket else 'POST'} latency: p50 {lat['p50']} ms, p95 {lat['p95']} "
              f"ms, p99 {lat['p99']} ms, max {lat['max']} ms")  # fmt: skip
        wait = figures["bot_turns_wait_ms"]
        print(f"  waiting for the bots (answer of the action to the {'turn frame' if socket else 'long poll'}'s): "
              f"p50 {wait['p50']} ms, p95 {wait['p95']} ms")  # fmt: skip
        if figures["sent_late_ms"]:
            late = figures["sent_late_ms"]
            print(f"  sent late against the rate: p50 {late['p50']} ms, p99 {late['p99']} ms "
                  f"({100 * late['late_share']:.1f}% of the actions more than 1 ms late)")  # fmt: skip
        print(f"  errors: {len(errors)}")
        if args.idle:
            idle = figures["idle"]
            lag = idle.get("client_loop_lag_ms", {})
            print(f"  idle: {idle.get('connected')} connected by {idle.get('processes')} processes "
                  f"({idle.get('streams')} streams, "
                  f"{idle.get('polls')} long polls, {idle.get('sockets')} sockets; {idle.get('ended')} let go as their "
                  f"match ended, {idle.get('renewed')} sockets opened again at their lifetime), "
                  f"{idle.get('errors')} errors; "
                  f"fan-out to {args.idle_per_player} "
                  f"subscribers of a match: p50 {idle.get('fanout_ms', {}).get('p50')} ms, p99 "
                  f"{idle.get('fanout_ms', {}).get('p99')} ms from the action's answer, p50 "
                  f"{idle.get('fanout_from_request_ms', {}).get('p50')} ms, p99 "
                  f"{idle.get('fanout_from_request_ms', {}).get('p99')} ms from its request ({idle.get('fanouts')} "
                  f"events, {args.fanout_actors} players acting; the idle clients' own event loop late by p50 "
                  f"{lag.get('p50')} ms, p99 {lag.get('p99')} ms, at most {lag.get('p100')} ms); server memory "
                  f"{idle['server_rss_mb_before']} MB before, {idle['server_rss_mb_with_idle']} MB with them: "
                  f"{idle['server_mb_per_1000_connections']} MB per 1,000 connections")  # fmt: skip
        if args.greedy:
            greedy = figures["greedy"]
            refused = ", ".join(f"{n} × {code}" for code, n in greedy.get("refused", {}).items()) or "none"
            print(f"  greedy player: {greedy.get('waits')} long polls at once (each again when answered, a refusal "
                  f"after its Retry-After), cap {greedy['cap']}: {greedy.get('answered')} held to their end; refused: "
                  f"{refused}; {greedy.get('errors')} errors")  # fmt: skip
        if "ceiling" in figures:
            found = figures["ceiling"]
            if "error" in found:
                print(f"  ceiling: pgbench failed: {found['error']}")
            else:
                print(f"  ceiling: pgbench, the statements of an action, {found['clients']} clients: "
                      f"{found['transactions_per_second']} transactions/s = {found['actions_per_second']} actions/s "
                      f"(two per action); the service ran at {100 * found['service_share']:.1f}% of it")  # fmt: skip
        collector = figures["server_gc"]
        print("  the server's collector in the window: " + ", ".join(
            f"{name} {collector[name]['collections']} (longest "
            f"{collector[name]['longest_ms'] if collector[name]['longest_ms'] is not None else '< 10'} ms, "
            f"{collector[name]['freed']:,} objects freed)"
            for name in GENERATIONS) + f"; each process stopped {100 * (collector['stopped_share'] or 0):.1f}% of it")
        if "garbage" in collector:
            kinds = ", ".join(f"{kind} {n:,}" for kind, n in list(collector["garbage"].items())[:10])
            print(f"  the garbage they found: {sum(collector['garbage'].values()):,} objects"
                  + (f", the commonest kinds {kinds}" if kinds else ""))
        machine, cpu = figures["machine"], figures["cpu_ms_per_action"]
        print(f"  CPU per action: web {cpu['web']} ms, worker {cpu['worker']} ms, clients {cpu['clients']} ms, "
              f"PostgreSQL {cpu['database']} ms, Redis {cpu['redis']} ms")
        print(f"  machine: {machine['cpus']} CPUs, {100 * (machine['busy_share'] or 0):.0f}% busy, of which "
              f"{100 * (machine['web_and_worker_share'] or 0):.0f}% for the web and the worker and "
              f"{100 * (machine['clients_share'] or 0):.0f}% for the clients"
              + (f" and {100 * (machine['idle_clients_share'] or 0):.0f}% for the idle and greedy clients"
                 if args.idle or args.greedy else "")
              + f", {100 * (machine['database_share'] or 0):.0f}% for PostgreSQL and "
              f"{100 * (machine['redis_share'] or 0):.0f}% for Redis; waiting for the disk "
              f"{100 * (machine['disk_wait_share'] or 0):.1f}%; load average "
              f"{machine['load_1min_before']} before, {machine['load_1min_after']} after")  # fmt: skip
    for error in errors[:10]:
        print(f"  error: {error}", file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
