"""``make loadtest`` (scripts/loadtest.py) works end to end: a short run against PostgreSQL and Redis.

The figures themselves are measured by hand on a quiet machine (docs/performance.md); this only
proves that the tool starts the service, plays, reports and cleans up.
"""

from __future__ import annotations

import http.client
import http.server
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from django.conf import settings

from tests import services
from tute_api.settings import BASE_DIR

# Of this test run alone: another run on the machine (another checkout's CI) may be load testing too.
DATABASE = f"tute_loadtest_ci_{os.getpid()}"


def _services_or_skip() -> None:
    postgres = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    redis = (settings.CELERY_BROKER_URL or "").startswith("redis://")
    if postgres and redis:
        return
    services.missing("make loadtest needs PostgreSQL and Redis (DATABASE_URL, CELERY_BROKER_URL); .ci/run sets them")


def run_bounded(args: list[str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """``args`` run in a process group of its own, killed whole if it outlives ``timeout``: the load test's
    server, worker and forked clients too (``subprocess.run``'s timeout kills the parent alone, and its
    clients then spun on for minutes, on CI's own machine)."""
    process = subprocess.Popen(args, cwd=BASE_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)  # fmt: skip
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(args, process.returncode, out, err)


def test_a_bounded_run_that_outlives_its_time_leaves_no_process_behind(tmp_path: Any) -> None:
    pid_file = tmp_path / "child"
    forks = (f"import os, time\nif os.fork() == 0:\n    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
             "    time.sleep(60)\nelse:\n    time.sleep(60)")  # fmt: skip
    with pytest.raises(subprocess.TimeoutExpired):
        run_bounded([sys.executable, "-c", forks], timeout=2)
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child), "the forked child outlived the run"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead, awaiting its reaper
    except FileNotFoundError:
        return False


@pytest.mark.worker
def test_a_short_load_test_plays_without_errors_and_reports_its_figures() -> None:
    _services_or_skip()
    run = run_bounded(
        [sys.executable, "scripts/loadtest.py", "--clients", "2", "--seconds", "6", "--warmup", "1",
         "--port", str(services.free_port()), "--database", DATABASE, "--pgbench-seconds", "2", "--greedy", "15",
         "--web-workers", "1", "--json"],
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout)
    greedy = figures["greedy"]  # one process: 15 waits of one player, a cap of 10 (slots are counted per process)
    assert greedy["cap"] == 10 and greedy["refused"].get("429 too_many_connections", 0) >= 5, greedy
    assert set(greedy["refused"]) == {"429 too_many_connections"} and greedy["errors"] == 0, greedy
    assert figures["errors"] == 0 and figures["actions"] > 0
    latency = figures["latency_ms"]
    assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"] <= latency["max"]
    assert figures["server"]["gunicorn_workers"] == 1  # counted: the server's worker processes
    assert figures["server"]["client_processes"] == 2 and figures["cpu_ms_per_action"]["web"] > 0
    assert figures["cpu_ms_per_action"]["clients"] > 0 and 0 <= figures["machine"]["clients_share"] < 1
    assert 0 <= figures["machine"]["idle_clients_share"] < 1  # the greedy player's process, mostly asleep
    # Where the rest of the box went: the same PostgreSQL and Redis served every action of the run.
    assert figures["cpu_ms_per_action"]["database"] > 0 and 0 < figures["machine"]["database_share"] < 1
    assert figures["cpu_ms_per_action"]["redis"] >= 0 and 0 <= figures["machine"]["disk_wait_share"] < 1
    collector = figures["server_gc"]  # each server process's collections in the window (tute_api/gc_pauses.py)
    # (Requests leave no garbage to collect, tests/test_cycles.py: a short run may see no collection at all.)
    assert collector["processes"] == 1 and 0 <= collector["stopped_share"] < 1, collector  # the one web worker
    figures_of_each = {"collections", "wall_seconds", "cpu_seconds", "freed", "longest_ms"}
    assert all(set(collector[name]) == figures_of_each for name in ("young", "middle", "full")), collector
    ceiling = figures["ceiling"]  # pgbench on the same server, the statements of an action
    assert ceiling["transactions_per_second"] > 0 and ceiling["actions_per_second"] > 0, ceiling
    assert 0 < ceiling["service_share"] < 1, ceiling


def test_clients_offered_a_rate_keep_to_it_and_say_how_late_they_sent() -> None:
    """``--rate``: the clients' actions are due at a steady pace (two clients unpaced play about 100 a second
    here); how late each was sent is reported."""
    _services_or_skip()
    run = run_bounded(
        [sys.executable, "scripts/loadtest.py", "--clients", "2", "--seconds", "6", "--warmup", "1", "--rate", "10",
         "--port", str(services.free_port()), "--database", DATABASE, "--pgbench-seconds", "0", "--web-workers", "1",
         "--json"],
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout)
    assert figures["errors"] == 0 and figures["rate"] == 10
    # Five seconds measured at 10 a second; a client behind (a new match, the bots' turns) catches up.
    assert 25 <= figures["actions"] <= 65, figures["actions"]
    late = figures["sent_late_ms"]
    assert 0 <= late["p50"] <= late["p99"] and 0 <= late["late_share"] <= 1, late


def _played_over(channel: str) -> dict[str, Any]:
    """The figures of a short run of two clients playing over ``channel``, which must have made no error."""
    _services_or_skip()
    run = run_bounded(
        [sys.executable, "scripts/loadtest.py", "--clients", "2", "--seconds", "6", "--warmup", "1", "--channel",
         channel, "--port", str(services.free_port()), "--database", DATABASE, "--pgbench-seconds", "0",
         "--web-workers", "1", "--json"],
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    figures: dict[str, Any] = json.loads(run.stdout)
    assert figures["errors"] == 0, figures["error_samples"]
    assert figures["channel"] == channel and figures["actions"] > 20 and figures["matches_finished"] >= 2, figures
    return figures


def test_clients_that_post_with_show_latest_need_no_long_poll_against_quick_bots() -> None:
    """``--channel latest``: each action's answer has the quick bots' turns (``?show=latest``), so the client's
    turn comes with it: the wait for the bots is 0 for most actions (a new match's first turn is long-polled)."""
    figures = _played_over("latest")
    assert figures["bot_turns_wait_ms"]["p50"] == 0, figures["bot_turns_wait_ms"]


def test_clients_play_over_each_match_s_socket_with_no_http_read() -> None:
    """``--channel socket``: each match played over its WebSocket, the client's turns taken from the socket's
    ``turn`` frames (a client waiting for one that never came would time out: an error of the run)."""
    figures = _played_over("socket")
    latency, wait = figures["latency_ms"], figures["bot_turns_wait_ms"]
    assert 0 < latency["p50"] <= latency["p99"] and 0 <= wait["p50"] <= wait["p95"], figures


@pytest.mark.worker
def test_clients_that_think_before_each_action_play_no_faster_than_they_think_beside_idle_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _services_or_skip()
    # Streams and sockets end at their lifetime within the run: the idle clients open them again, as a
    # client does (a socket closed with 4000 is no error).
    monkeypatch.setenv("STREAM_MAX_SECONDS", "3")
    run = run_bounded(
        [sys.executable, "scripts/loadtest.py", "--clients", "2", "--seconds", "5", "--warmup", "1",
         "--think-ms", "200", "--port", str(services.free_port()), "--database", DATABASE, "--pgbench-seconds", "0",
         "--idle", "24", "--idle-ramp", "2", "--web-workers", "1", "--fanout-actors", "3", "--fanout-pause", "0.2",
         "--json"],
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout)
    assert figures["errors"] == 0 and figures["actions"] > 0 and figures["think_ms"] == 200
    assert figures["actions_per_second"] <= 2 / 0.2  # two clients, each pausing 0.2 s before every action
    idle = figures["idle"]  # three idle players, eight connections each: streams, long polls, sockets
    assert (idle["connected"], idle["streams"], idle["polls"], idle["sockets"]) == (24, 9, 9, 6), idle
    assert idle["errors"] == 0 and idle["fanouts"] >= 3, idle  # three of the idle players act, each now and then
    assert idle["renewed"] >= 6, idle  # every socket at least once
    assert idle["processes"] == 3, idle  # one per player here (at most --idle-processes, 4)
    assert 0 <= idle["client_loop_lag_ms"]["p50"] <= idle["client_loop_lag_ms"]["p100"], idle
    # From the action's answer (its events committed) and from its request (its own latency too):
    assert 0 <= idle["fanout_ms"]["p50"] <= idle["fanout_from_request_ms"]["p50"], idle
    assert 0 < figures["machine"]["idle_clients_share"] < 1
    assert "never retrieved" not in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_the_idle_clients_processes_report_as_one() -> None:
    """Counts add up and percentiles are taken over every process's values, not averaged."""
    module = _loadtest_module()
    assert module.split(10, 4) == [3, 3, 2, 2] and module.split(2, 3) == [1, 1, 0]

    def report(fanouts: list[float], errors: int) -> dict[str, Any]:
        return {"connected": 8, "streams": 3, "polls": 3, "sockets": 2, "errors": errors, "ended": 0, "renewed": 1,
                "error_samples": [f"e{n}" for n in range(errors)], "fanouts": fanouts,
                "fanouts_from_request": [x + 0.1 for x in fanouts], "lags": [0.001] * 9 + [2.0]}  # fmt: skip

    merged = module.idle_figures([report([0.1] * 98, 4), report([5.0] * 2, 3)])
    assert (merged["connected"], merged["streams"], merged["errors"], merged["processes"]) == (16, 6, 7, 2)
    assert merged["renewed"] == 2
    assert merged["error_samples"] == ["e0", "e1", "e2", "e3", "e0"] and merged["fanouts"] == 100
    assert merged["fanout_ms"] == {"p50": 100.0, "p99": 5000.0}  # the slow process's two are the p99
    assert merged["client_loop_lag_ms"] == {"p50": 1.0, "p99": 2000.0, "p100": 2000.0}


def test_a_subscriber_that_missed_a_fan_out_says_what_it_had_heard() -> None:
    """A fan-out not heard in time names each late connection's kind, how long it had been open, when it
    last heard anything and the last seq it had, so that a stream alive with keep-alives but deaf to an
    event (a lost wake) tells apart from one that was reconnecting."""
    import asyncio

    async def late() -> tuple[str, str]:
        heard = _loadtest_module().Heard("stream")
        heard.opened = time.perf_counter() - 30
        heard.note(3)
        heard.expect(5)
        connected = heard.missed(time.perf_counter())
        heard.opened = 0.0
        return connected, heard.missed(time.perf_counter())

    connected, between = asyncio.run(late())
    assert connected.startswith("stream (opened 30.") and connected.endswith("at seq 3 of 5)"), connected
    assert "last heard 0.0 s ago" in connected and "between two connections" in between, between


def _loadtest_module() -> Any:
    spec = importlib.util.spec_from_file_location("loadtest_script", BASE_DIR / "scripts" / "loadtest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_machines_database_and_redis_cpu_is_read_with_the_backends_that_ended(tmp_path: Any) -> None:
    """A PostgreSQL backend's CPU counts while it lives and, once it has ended, in its postmaster's
    children's times: a run's figure does not lose the connections that closed during it."""
    loadtest = _loadtest_module()
    fake = tmp_path / "proc"
    # pid (comm) state ppid … utime stime cutime cstime (fields 14-17 of proc(5))
    rows = {1: ("postgres", 0, 100, 50, 400, 100), 2: ("postgres", 1, 30, 20, 0, 0), 3: ("redis-server", 0, 7, 3, 0, 0),
            4: ("python", 0, 999, 999, 0, 0)}  # fmt: skip
    for pid, (name, parent, user, system, children_user, children_system) in rows.items():
        (fake / str(pid)).mkdir(parents=True)
        fields = ["S", parent, *[0] * 9, user, system, children_user, children_system, *[0] * 5]
        (fake / str(pid) / "stat").write_text(f"{pid} ({name}) " + " ".join(map(str, fields)))
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = loadtest._services_cpu_seconds(str(fake))
    assert seconds == {"database": (150 + 500 + 50) / ticks, "redis": 10 / ticks}


def _put_more_than_a_pipe_holds(queue: Any) -> None:
    queue.put(b"x" * 2**20)  # then exits: its queue's thread waits for a reader to take it all


def test_an_interrupted_run_stops_the_clients_whose_results_nobody_reads() -> None:
    import multiprocessing

    module = _loadtest_module()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_put_more_than_a_pipe_holds, args=(queue,))
    process.start()
    process.join(1)
    assert process.is_alive(), "the client exited without its results read"
    module.stop_forked([process])
    assert not process.is_alive() and process.exitcode is not None


def test_the_service_under_test_counts_its_rate_limits_in_redis_as_the_compose_file_s_does() -> None:
    """The production settings: a shared cache in Redis (docker-compose.yml's CACHE_URL), apart from the
    queue's and the live updates' database; in each process's memory the rate limits cost no round trip."""
    loadtest = _loadtest_module()
    env = loadtest.service_env("any")
    assert env["CACHE_URL"].startswith("redis://") and env["CACHE_URL"] != env["CELERY_BROKER_URL"]
    compose = (BASE_DIR / "docker-compose.yml").read_text()
    assert "CACHE_URL: redis://" in compose


def test_the_percentiles_are_nearest_rank() -> None:
    percentile = _loadtest_module().percentile
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 50), percentile(values, 99), percentile(values, 100)) == (50.0, 99.0, 100.0)
    assert percentile([float(v) for v in range(1, 1001)], 99) == 990.0
    assert percentile([7.0], 99) == 7.0


def test_a_post_on_a_dropped_connection_is_an_error_and_a_get_is_sent_again() -> None:
    """A server that drops each connection after one answer: the GET is sent again, the POST is not."""
    answers: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            answers.append(self.command)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
            self.close_connection = True  # closed after the answer, without a word: as an idle timeout

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = _loadtest_module().Client(server.server_address[1])
        assert client.call("GET", "/a") == (200, {})
        assert client.call("GET", "/b") == (200, {}), "sent again on a new connection"
        with pytest.raises((http.client.HTTPException, ConnectionError)):
            client.call("POST", "/c", {})
        assert answers == ["GET", "GET"], "the POST was not sent twice"
    finally:
        server.shutdown()


def test_the_client_reads_answers_by_length_chunked_and_to_the_connection_s_end() -> None:
    """The clients' own HTTP/1.1 reading (a plain socket, not http.client): each way a server may frame an
    answer, a connection it says it closes, and the request as written (its body, its token)."""
    import socket

    answers = [
        b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n" + b'{"a": 1}',
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"b\"\r\n3;x=1\r\n: 2\r\n1\r\n}\r\n0\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\nVary: Authorization\r\n\r\n",  # no body, and the connection kept
        b"HTTP/1.1 409 Conflict\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]",
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + b'{"c": [1, 2, 3]}',
    ]
    requests: list[bytes] = []
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        for connection_answers in (answers[:4], answers[4:]):
            connection, _ = listener.accept()
            with connection:
                for answer in connection_answers:
                    request = b""
                    while b"\r\n\r\n" not in request or not request.endswith((b"\r\n\r\n", b"}")):
                        request += connection.recv(65536)
                    requests.append(request)
                    for at in range(0, len(answer), 7):  # in pieces, as a network may deliver it
                        connection.sendall(answer[at : at + 7])
                        time.sleep(0.001)

    threading.Thread(target=serve, daemon=True).start()
    try:
        client = _loadtest_module().Client(listener.getsockname()[1])
        assert client.call("POST", "/p", {"x": 1}) == (201, {"a": 1})
        client.token = "secret"
        assert client.call("GET", "/g") == (200, {"b": 2})
        assert client.call("DELETE", "/d") == (204, None)
        assert client.call("GET", "/h") == (409, [])  # and the connection closed, as the server said
        assert client.call("GET", "/i") == (200, {"c": [1, 2, 3]}), "read on a new connection to its end"
    finally:
        listener.close()
    assert requests[0].startswith(b"POST /p HTTP/1.1\r\n") and requests[0].endswith(b'\r\n\r\n{"x":1}')
    assert b"Content-Length: 7\r\n" in requests[0] and b"Authorization" not in requests[0]
    assert requests[1].startswith(b"GET /g HTTP/1.1\r\n") and b"Authorization: Bearer secret\r\n" in requests[1]


@pytest.mark.worker
def test_sigterm_stops_what_the_load_test_started_and_drops_its_database() -> None:
    _services_or_skip()
    import psycopg

    database, port = f"{DATABASE}_term", services.free_port()
    run = subprocess.Popen(
        [sys.executable, "scripts/loadtest.py", "--clients", "1", "--seconds", "120", "--port", str(port),
         "--database", database],
        cwd=BASE_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not _answers(port):
            time.sleep(0.5)
        assert _answers(port), "the service started"
        run.send_signal(signal.SIGTERM)
        assert run.wait(60) is not None
    finally:
        if run.poll() is None:
            run.kill()
    assert not _answers(port), "the server it started is gone"
    with psycopg.connect(dbname="postgres", host="127.0.0.1", user="postgres", autocommit=True) as conn:
        assert conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone() is None


def _answers(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/healthz")
        return connection.getresponse().status == 200
    except OSError:
        return False


def test_an_idle_connection_lets_go_once_its_match_is_over_rather_than_spin() -> None:
    """A long poll of a match that is over is answered at once, a stream gets 204, a socket closes with
    1000: holding them again would hammer the server, and counting them as errors would be wrong."""
    over = _loadtest_module().match_over
    assert over("stream", status=204) and not over("stream", status=200) and not over("stream", status=503)
    assert over("socket", close_code=1000) and not over("socket", close_code=1006)
    assert over("poll", body={"status": "finished"}) and over("poll", body={"status": "cancelled"})
    assert not over("poll", body={"status": "active"})


def test_the_collectors_stops_are_counted_within_the_window() -> None:
    """Counts are the difference between the readings at the window's start and end, per process (one that
    started meanwhile from zero); the longest stop is one that ended within the window."""
    module = _loadtest_module()

    def report(pid: int, young: int, full: int, wall: float, kept: list[tuple[float, int, float]]) -> dict[str, Any]:
        return {"pid": pid, "collections": [young, 0, full], "wall_seconds": [wall, 0.0, 0.0],
                "cpu_seconds": [wall / 2, 0.0, 0.0], "freed": [100 * young, 0, 0], "kept": kept}  # fmt: skip

    before = {1: report(1, 10, 1, 0.5, [(90.0, 2, 2.0)])}
    after = {1: report(1, 30, 1, 1.5, [(90.0, 2, 2.0), (105.0, 0, 0.05)]), 2: report(2, 5, 0, 0.5, [(120.0, 0, 0.3)])}
    figures = module.gc_figures(before, after, 100.0, 110.0)
    assert figures["young"] == {"collections": 25, "wall_seconds": 1.5, "cpu_seconds": 0.75, "freed": 2500,
                                "longest_ms": 50.0}  # fmt: skip
    assert figures["full"]["collections"] == 0 and figures["full"]["longest_ms"] is None  # the 2 s stop was before
    assert figures["stopped_share"] == 0.075  # 1.5 s over two processes' 10 s
    assert "garbage" not in figures  # no census


def test_a_census_of_garbage_counts_what_was_found_within_the_window() -> None:
    """``--gc-census``: each process's counts by kind are cumulative; the window's are after less before."""
    module = _loadtest_module()

    def report(pid: int, garbage: dict[str, int]) -> dict[str, Any]:
        return {"pid": pid, "collections": [0, 0, 1], "wall_seconds": [0.0, 0.0, 0.1], "cpu_seconds": [0.0, 0.0, 0.1],
                "freed": [0, 0, 0], "kept": [], "garbage": garbage}  # fmt: skip

    before = {1: report(1, {"builtins.cell": 50, "a.Knot": 3})}
    after = {1: report(1, {"builtins.cell": 80, "a.Knot": 3}), 2: report(2, {"builtins.cell": 5, "b.Loop": 40})}
    assert module.gc_figures(before, after, 100.0, 110.0)["garbage"] == {"b.Loop": 40, "builtins.cell": 35}
