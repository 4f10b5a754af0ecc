"""tute_api.web_worker: gunicorn's threaded worker, each new connection to the process that holds the fewest."""

import http.client
import os
import socket
import subprocess
import sys
import time

from tute_api.settings import BASE_DIR
from tute_api.web_worker import ConnectionBoard


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_processes_claim_slots_of_their_own_and_a_slot_left_by_a_process_that_exited_is_claimed_again():
    clock = Clock()
    board = ConnectionBoard(slots=2, stale_after=5, clock=clock)
    assert board.claim(101) == 0
    assert board.claim(102) == 1
    assert board.claim(101) == 0  # a process claiming again gets its own
    assert board.claim(103) is None  # both slots are held by live processes
    board.release(0)  # 101 exited
    assert board.claim(103) == 0
    clock.now += 4
    board.publish(0, 103, 2)
    clock.now += 2  # 102 has not written for 6 s: killed, it could not release its slot
    assert board.claim(104) == 1


def test_only_the_processes_holding_the_fewest_connections_accept_more():
    board = ConnectionBoard(slots=4, clock=Clock())
    mine, other = board.claim(101), board.claim(102)
    board.publish(mine, 101, 3)
    board.publish(other, 102, 2)
    assert not board.holds_fewest(mine)
    assert board.holds_fewest(other)
    board.publish(other, 102, 3)
    assert board.holds_fewest(mine) and board.holds_fewest(other)  # a tie: both accept
    board.release(other)
    board.publish(mine, 101, 9)
    assert board.holds_fewest(mine)  # a released slot counts for nothing


def test_a_process_killed_without_releasing_its_slot_holds_the_others_back_only_until_its_slot_goes_stale():
    clock = Clock()
    board = ConnectionBoard(slots=4, stale_after=5, clock=clock)
    mine, killed = board.claim(101), board.claim(102)
    board.publish(killed, 102, 0)
    clock.now += 3
    board.publish(mine, 101, 5)
    assert not board.holds_fewest(mine)
    clock.now += 3
    board.publish(mine, 101, 5)
    assert board.holds_fewest(mine)


def test_a_process_without_a_slot_accepts_as_gunicorn_does():
    board = ConnectionBoard(slots=1)
    assert board.holds_fewest(None)
    board.publish(None, 101, 7)  # nothing to publish to, nothing breaks
    board.release(None)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_gunicorn_with_the_worker_spreads_kept_alive_connections_evenly(tmp_path):
    """A real gunicorn, two processes: eight connections opened one after another and kept alive go
    four to each process (each answer names the process that served it)."""
    (tmp_path / "pid_app.py").write_text(
        "import os\n"
        "def app(environ, start_response):\n"
        "    body = str(os.getpid()).encode()\n"
        "    start_response('200 OK', [('Content-Length', str(len(body)))])\n"
        "    return [body]\n"
    )
    (tmp_path / "empty.conf.py").write_text("")
    port = free_port()
    log = tmp_path / "gunicorn.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", str(tmp_path / "empty.conf.py"), "--chdir", str(tmp_path),
         "--worker-class", "tute_api.web_worker.BalancedThreadWorker", "--workers", "2", "--threads", "2",
         "--keep-alive", "30", "--bind", f"127.0.0.1:{port}", "--log-level", "info", "pid_app:app"],
        cwd=BASE_DIR, env={**os.environ, "PYTHONPATH": str(BASE_DIR)},
        stdout=subprocess.DEVNULL, stderr=log.open("wb"),
    )  # fmt: skip
    connections = []
    try:
        deadline = time.monotonic() + 30
        while log.read_text().count("Booting worker") < 2:  # a process not yet started holds no slot
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        served_by = []
        for _ in range(8):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", "/")
            served_by.append(connection.getresponse().read().decode())
            connections.append(connection)  # kept open: the process keeps holding it
        assert sorted(served_by.count(pid) for pid in set(served_by)) == [4, 4]
    finally:
        for connection in connections:
            connection.close()
        server.terminate()
        server.wait(timeout=30)
