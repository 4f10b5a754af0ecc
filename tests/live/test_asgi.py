"""The waits under ASGI, against a real server process (uvicorn, as the service is deployed): they hold
no thread (more waits than the server has threads, and the server still answers), news wakes them,
the per-player cap answers 429 ``too_many_connections``, a stream pings and ends within its lifetime,
and a server told to stop ends its streams with ``server_closing`` and answers its long polls."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
THREADS = 4  # the server's threads for sync code (ASGI_THREADS), far fewer than the waits below


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, tmp: Path, **env: str) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DEBUG": "true",
            "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
            "CELERY_BROKER_URL": "",
            "LIVE_UPDATES_URL": "",
            "THROTTLE_RATE_PLAYER": "100000/s",
            "THROTTLE_RATE_ANON": "100000/min",
            "ASGI_THREADS": str(THREADS),
            "LOG_LEVEL": "WARNING",
            **env,
        }
        self.env.pop("DJANGO_SETTINGS_MODULE", None)
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env, check=True)
        self.log = open(tmp / "server.log", "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "tute_api.asgi:application", "--port", str(self.port),
             "--workers", "1", "--timeout-graceful-shutdown", "20", "--log-level", "warning"],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise AssertionError("the ASGI server did not start: " + (tmp / "server.log").read_text())

    def threads(self) -> int:
        return len(os.listdir(f"/proc/{self.process.pid}/task"))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    marker = request.node.get_closest_marker("server_env")
    running = Server(tmp_path, **(marker.kwargs if marker else {}))
    yield running
    running.stop()


def _player(base: str, name: str) -> dict[str, str]:
    answer = httpx.post(f"{base}/api/v1/players/", json={"username": name}, timeout=10)
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def _match_waiting_for_me(base: str, auth: dict[str, str]) -> dict[str, Any]:
    """A match against bots where it is the caller's turn: the bots wait for the caller."""
    body = {"variant": "clasico", "options": {"games_to_win": 1},
            "seats": [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-1"}, {"bot": "level-1"}]}  # fmt: skip
    view = httpx.post(f"{base}/api/v1/matches/", json=body, headers=auth, timeout=10).json()
    for _ in range(20):
        if view["legal_actions"]:
            return view
        view = httpx.get(f"{base}/api/v1/matches/{view['id']}?after={view['seq']}&wait=5", headers=auth, timeout=10)
        view = view.json()
    raise AssertionError(f"the bots did not play: {view}")





@pytest.mark.server_env(LIVE_CONNECTIONS_PER_PLAYER="500")
def test_more_waits_than_threads_hold_no_thread_and_news_wakes_them_all(server: Server) -> None:
    auth = _player(server.base, "waiter")
    view = _match_waiting_for_me(server.base, auth)
    url = f"{server.base}/api/v1/matches/{view['id']}"
    waits = 60  # 15 times the server's threads

    async def run() -> tuple[list[httpx.Response], float, int, float]:
        limits = httpx.Limits(max_connections=waits + 10)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:
            polls = [asyncio.create_task(client.get(f"{url}?after={view['seq']}&wait=25", headers=auth))
                     for _ in range(waits)]  # fmt: skip
            await asyncio.sleep(3)  # every poll is in its wait
            assert not any(p.done() for p in polls)
            threads = server.threads()
            started = time.monotonic()
            health = await client.get(f"{server.base}/healthz")
            healthz = time.monotonic() - started
            assert health.status_code == 200
            started = time.monotonic()
            act = await client.post(f"{url}/actions", headers=auth,
                                    json={**view["legal_actions"][0], "expected_seq": view["seq"]})  # fmt: skip
            assert act.status_code == 200, act.text
            answers = await asyncio.gather(*polls)
            return answers, time.monotonic() - started, threads, healthz

    answers, woken_in, threads, healthz = asyncio.run(run())
    assert threads < waits  # the waits hold no thread of their own
    assert healthz < 2  # the server answers beside them
    assert [a.status_code for a in answers] == [200] * waits
    assert all(a.json()["seq"] > view["seq"] for a in answers)  # woken by the news, not by the time
    assert woken_in < 10  # a bound for a fault, not a speed figure


@pytest.mark.server_env(LIVE_CONNECTIONS_PER_PLAYER="500")
def test_the_players_own_channel_holds_no_thread_and_a_message_reaches_its_streams_as_it_comes(
    server: Server,
) -> None:
    """``/me/notices?wait=`` and ``/me/notices/stream`` wait as a match's waits do: more of them than the
    server has threads, the server still answers, and the queue's ``match_ready`` reaches each at once (a
    sync stream under ASGI would be read whole before its first byte is sent: after its lifetime)."""
    ana, bea = _player(server.base, "ana"), _player(server.base, "bea")
    me = f"{server.base}/api/v1/me/notices"
    waits = 30  # of each kind: 15 times the server's threads in all

    async def run() -> tuple[list[httpx.Response], list[str], int, float]:
        limits = httpx.Limits(max_connections=2 * waits + 10)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:
            polls = [asyncio.create_task(client.get(f"{me}?wait=25", headers=ana)) for _ in range(waits)]
            firsts: list[str] = []
            opened = asyncio.Event()

            async def stream() -> str:
                async with client.stream("GET", f"{me}/stream", headers={**ana, "Accept": "text/event-stream"}) as a:
                    assert a.status_code == 200
                    lines = a.aiter_lines()
                    firsts.append(await anext(lines))  # the intro comes at once
                    if len(firsts) == waits:
                        opened.set()
                    async for line in lines:
                        if line.startswith("event: "):
                            return line
                return ""

            streams = [asyncio.create_task(stream()) for _ in range(waits)]
            await asyncio.wait_for(opened.wait(), 20)
            await asyncio.sleep(1)  # every poll is in its wait
            assert not any(p.done() for p in polls + streams)
            threads = server.threads()
            body = {"variant": "dos", "options": {"games_to_win": 1}}
            started = time.monotonic()
            for auth in (ana, bea):
                assert (await client.post(f"{server.base}/api/v1/queue/", json=body, headers=auth)).status_code == 201
            answers = await asyncio.gather(*polls)
            kinds = await asyncio.wait_for(asyncio.gather(*streams), 10)
            return answers, kinds, threads, time.monotonic() - started

    answers, kinds, threads, told_in = asyncio.run(run())
    assert threads < 2 * waits  # the waits hold no thread of their own
    assert [a.status_code for a in answers] == [200] * waits
    assert all(a.json()["notices"][0]["kind"] == "match_ready" for a in answers)
    assert kinds == ["event: match_ready"] * waits
    assert told_in < 10  # a bound for a fault, not a speed figure


@pytest.mark.server_env(LIVE_CONNECTIONS_PER_PLAYER="3")
def test_waits_beyond_the_players_cap_get_429_and_another_player_is_served(server: Server) -> None:
    auth, other = _player(server.base, "greedy"), _player(server.base, "other")
    view = _match_waiting_for_me(server.base, auth)
    url = f"{server.base}/api/v1/matches/{view['id']}"
    mine = _match_waiting_for_me(server.base, other)

    async def run() -> tuple[list[int], dict[str, Any], int]:
        async with httpx.AsyncClient(timeout=30) as client:
            polls = [asyncio.create_task(client.get(f"{url}?after={view['seq']}&wait=4", headers=auth))
                     for _ in range(3)]  # fmt: skip
            await asyncio.sleep(1.5)
            refused = [await client.get(f"{url}?after={view['seq']}&wait=4", headers=auth) for _ in range(3)]
            refused.append(await client.get(f"{url}/stream", headers=auth))
            # A turns poll that needs no wait (the caller has a turn) takes no slot, and answers.
            turns = await client.get(f"{server.base}/api/v1/me/turns?wait=4", headers=auth)
            assert turns.status_code == 200 and turns.json()["turns"]
            problem = refused[0].json()
            other_wait = await client.get(
                f"{server.base}/api/v1/matches/{mine['id']}?after={mine['seq']}&wait=1", headers=other
            )
            await asyncio.gather(*polls)
            return [r.status_code for r in refused], problem | {"retry": refused[0].headers.get("Retry-After")}, \
                other_wait.status_code  # fmt: skip

    statuses, problem, other_status = asyncio.run(run())
    assert statuses == [429] * 4
    assert problem["code"] == "too_many_connections" and problem["retry"] == "5"
    assert other_status == 200
    # The slots came back: the same player waits again.
    again = httpx.get(f"{url}?after={view['seq']}&wait=1", headers=auth, timeout=10)
    assert again.status_code == 200


@pytest.mark.server_env(STREAM_MAX_SECONDS="3", STREAM_KEEPALIVE_SECONDS="1")
def test_a_stream_pings_while_idle_and_ends_within_its_lifetime(server: Server) -> None:
    auth = _player(server.base, "streamer")
    view = _match_waiting_for_me(server.base, auth)
    started = time.monotonic()
    with httpx.stream("GET", f"{server.base}/api/v1/matches/{view['id']}/stream?after={view['seq']}",
                      headers=auth, timeout=10) as answer:  # fmt: skip
        assert answer.status_code == 200
        text = "".join(answer.iter_text())
    assert time.monotonic() - started < 8
    assert text.count(": keep-alive") >= 2
    assert "event: server_closing" not in text


@pytest.mark.server_env(STREAM_MAX_SECONDS="120")
def test_a_server_told_to_stop_ends_its_streams_with_a_reason_and_answers_its_long_polls(server: Server) -> None:
    auth = _player(server.base, "deployed")
    view = _match_waiting_for_me(server.base, auth)
    url = f"{server.base}/api/v1/matches/{view['id']}"

    async def run() -> tuple[str, httpx.Response, float]:
        async with httpx.AsyncClient(timeout=30) as client:
            poll = asyncio.create_task(client.get(f"{url}?after={view['seq']}&wait=25", headers=auth))

            async def stream() -> str:
                async with client.stream("GET", f"{url}/stream?after={view['seq']}", headers=auth) as answer:
                    return "".join([chunk async for chunk in answer.aiter_text()])

            streaming = asyncio.create_task(stream())
            await asyncio.sleep(2)
            started = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            text, answer = await streaming, await poll
            return text, answer, time.monotonic() - started

    text, answer, took = asyncio.run(run())
    assert "event: server_closing" in text
    closing = text.split("event: server_closing\ndata: ", 1)[1].split("\n", 1)[0]
    assert json.loads(closing) == {"reason": "shutdown", "retry_ms": 1000}
    assert answer.status_code == 200 and answer.json()["seq"] == view["seq"]  # answered as it is
    assert took < 10  # well before the server's graceful timeout of 20 s
    # It stopped on its own, well within its graceful timeout (uvicorn raises the signal again once done).
    assert server.process.wait(20) in (0, -signal.SIGTERM)
