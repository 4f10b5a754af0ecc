"""tute_api.web_worker: gunicorn's threaded worker, each new connection to the process that holds the fewest."""

import http.client
import os
import socket
import subprocess
import sys
import time

from tute_api.settings import BASE_DIR
from tute_api.web_worker import ConnectionBoard


def exited_pid():
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_processes_claim_slots_of_their_own_and_a_slot_left_by_an_exited_process_is_claimed_again():
    board = ConnectionBoard(slots=2)
    assert board.claim(os.getppid()) == 0
    assert board.claim(exited_pid()) == 1
    assert board.claim(os.getpid()) == 1  # the exited process's slot
    assert board.claim(os.getppid()) == 0  # a process claiming again gets its own
    assert board.claim(12345678) is None  # both slots are held by live processes


def test_only_the_processes_holding_the_fewest_connections_accept_more():
    board = ConnectionBoard(slots=4)
    me, other = board.claim(os.getpid()), board.claim(os.getppid())
    board.publish(me, 3)
    board.publish(other, 2)
    assert not board.holds_fewest(me)
    assert board.holds_fewest(other)
    board.publish(other, 3)
    assert board.holds_fewest(me) and board.holds_fewest(other)  # a tie: both accept
    board.release(other)
    board.publish(me, 9)
    assert board.holds_fewest(me)  # a released slot counts for nothing


def test_a_process_that_exited_without_releasing_its_slot_does_not_hold_the_others_back():
    board = ConnectionBoard(slots=4)
    me, gone = board.claim(os.getpid()), board.claim(exited_pid())
    board.publish(me, 5)
    board.publish(gone, 0)
    assert board.holds_fewest(me)


def test_a_process_without_a_slot_accepts_as_gunicorn_does():
    board = ConnectionBoard(slots=1)
    assert board.holds_fewest(None)
    board.publish(None, 7)  # nothing to publish to, nothing breaks
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
