"""tute_api.web_worker: gunicorn's threaded worker, each new connection to the process that holds the fewest."""

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from tute_api.settings import BASE_DIR
from tute_api.web_worker import ConnectionBoard


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def every_pid(pid):
    return True  # the tests' pids are made up


def test_processes_claim_slots_of_their_own_and_a_slot_left_by_a_process_that_exited_is_claimed_again():
    clock = Clock()
    board = ConnectionBoard(slots=2, stale_after=5, clock=clock, pid_exists=every_pid)
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
    board = ConnectionBoard(slots=4, clock=Clock(), pid_exists=every_pid)
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
    board = ConnectionBoard(slots=4, stale_after=5, clock=clock, pid_exists=every_pid)
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


PID_APP = (
    "import os, time\n"
    "from urllib.parse import parse_qs\n"
    "time.sleep(float(os.environ.get('APP_LOAD_SECONDS', '0')))  # as Django's setup, on each process's boot\n"
    "def app(environ, start_response):\n"
    "    time.sleep(float(parse_qs(environ.get('QUERY_STRING', '')).get('sleep', ['0'])[0]))\n"
    "    body = str(os.getpid()).encode()\n"
    "    start_response('200 OK', [('Content-Length', str(len(body)))])\n"
    "    return [body]\n"
)


class Gunicorn:
    """A real gunicorn with the balanced worker serving PID_APP, whose answers name the process."""

    def __init__(self, tmp_path, *options, workers=2, app_load_seconds=0.0):
        (tmp_path / "pid_app.py").write_text(PID_APP)
        (tmp_path / "empty.conf.py").write_text("")
        self.port, self.log, self.workers = free_port(), tmp_path / "gunicorn.log", workers
        self.connections = []
        self.server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", str(tmp_path / "empty.conf.py"), "--chdir", str(tmp_path),
             "--worker-class", "tute_api.web_worker.BalancedThreadWorker", "--workers", str(workers),
             "--threads", "4", "--keep-alive", "30", "--bind", f"127.0.0.1:{self.port}", "--log-level", "info",
             *options, "pid_app:app"],
            cwd=BASE_DIR, env={**os.environ, "PYTHONPATH": str(BASE_DIR), "APP_LOAD_SECONDS": str(app_load_seconds)},
            stdout=subprocess.DEVNULL, stderr=self.log.open("wb"),
        )  # fmt: skip

    def wait_for_boots(self, count, seconds=30):
        deadline = time.monotonic() + seconds
        while self.log.read_text().count("Booting worker") < count:
            assert self.server.poll() is None and time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.05)

    def get(self, path="/", connection=None):
        """The pid that answered, and the seconds it took; a new connection is kept open."""
        if connection is None:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
            self.connections.append(connection)
        start = time.monotonic()
        connection.request("GET", path)
        return connection.getresponse().read().decode(), time.monotonic() - start

    def held(self, counts):
        """Keep-alive connections, opened one after another until each process holds its count: {pid: count}."""
        served = {}
        for _ in range(100):
            pid, _ = self.get()
            served.setdefault(pid, []).append(self.connections[-1])
            if len(served) == self.workers and all(len(c) >= n for c, n in zip(served.values(), counts, strict=True)):
                break
        mine = {}
        for (pid, connections), count in zip(served.items(), counts, strict=True):
            for connection in connections[count:]:
                connection.close()
                self.connections.remove(connection)
            mine[pid] = connections[:count]
        time.sleep(1.5)  # every process has seen the counts (a turn of its loop takes a second at most)
        return mine

    def close(self):
        for connection in self.connections:
            connection.close()
        self.server.terminate()
        self.server.wait(timeout=30)


def test_gunicorn_with_the_worker_spreads_kept_alive_connections_evenly(tmp_path):
    """A real gunicorn, two processes: eight connections opened one after another and kept alive go
    four to each process (each answer names the process that served it)."""
    server = Gunicorn(tmp_path, workers=2)
    try:
        server.wait_for_boots(2)  # a process not yet started holds no slot
        served_by = [server.get()[0] for _ in range(8)]  # each connection kept open: its process holds it
        assert sorted(served_by.count(pid) for pid in set(served_by)) == [4, 4]
    finally:
        server.close()


def test_a_process_still_loading_the_app_holds_no_one_back(tmp_path):
    """A process that replaces a killed one holds no connections while it loads the app, but accepts none
    either: the others go on accepting meanwhile."""
    server = Gunicorn(tmp_path, workers=2, app_load_seconds=5)
    try:
        server.wait_for_boots(2)
        time.sleep(5.5)
        (busy, _), (other, _) = sorted(server.held([2, 1]).items(), key=lambda item: -len(item[1]))
        os.kill(int(busy), signal.SIGKILL)  # its slot, at 2, holds no one back: the other holds 1
        server.wait_for_boots(3)  # its replacement is loading the app, for 5 s
        time.sleep(1.5)  # the other has looked at the board since
        pid, seconds = server.get()
        assert pid == other and seconds < 2, (pid, seconds)
    finally:
        server.close()


def test_a_process_that_is_stopping_holds_no_one_back(tmp_path):
    """A process told to stop finishes its requests (here one of 4 s) but accepts no more: the others
    accept meanwhile."""
    server = Gunicorn(tmp_path, workers=2)
    try:
        server.wait_for_boots(2)
        held = server.held([2, 1])
        (busy, _), (stopping, (connection,)) = sorted(held.items(), key=lambda item: -len(item[1]))
        answer = []
        request = threading.Thread(target=lambda: answer.append(server.get("/?sleep=4", connection)))
        request.start()
        time.sleep(0.5)
        os.kill(int(stopping), signal.SIGTERM)  # gunicorn's graceful stop of one process, as --max-requests
        time.sleep(0.2)
        pid, seconds = server.get()
        request.join()
        assert answer[0][0] == stopping  # its request was finished
        assert pid == busy and seconds < 2.5, (pid, seconds)
    finally:
        server.close()


def test_a_slot_given_up_and_claimed_by_another_process_is_not_freed_by_the_first():
    board = ConnectionBoard(slots=1, clock=Clock(), pid_exists=every_pid)
    slot = board.claim(101)
    board.release(slot, 101)  # 101 stops: it gives its slot up at once
    assert board.claim(102) == slot
    board.release(slot, 101)  # 101 exits
    assert board.claim(103) is None  # 102 still holds it


def test_the_slot_of_a_process_that_no_longer_exists_holds_no_one_back_however_lately_written():
    clock = Clock()
    gone = set()
    board = ConnectionBoard(slots=2, stale_after=5, clock=clock, pid_exists=lambda pid: pid not in gone)
    mine, killed = board.claim(101), board.claim(102)
    board.publish(mine, 101, 5)
    board.publish(killed, 102, 1)
    assert not board.holds_fewest(mine)
    gone.add(102)  # killed, and reaped by gunicorn's master
    assert board.holds_fewest(mine)
    assert board.claim(103) == killed


def test_a_killed_process_holds_the_others_back_no_longer_than_it_takes_to_reap_it(tmp_path):
    """The killed process held the fewest connections: its slot, written the second before, must not
    keep the others (each holding more) from accepting until it goes stale."""
    server = Gunicorn(tmp_path, workers=2)
    try:
        server.wait_for_boots(2)
        (busy, _), (killed, _) = sorted(server.held([2, 1]).items(), key=lambda item: -len(item[1]))
        os.kill(int(killed), signal.SIGKILL)
        server.wait_for_boots(3)
        time.sleep(0.5)  # the replacement is serving
        slowest = max(server.get()[1] for _ in range(5))  # 2 to its replacement, then to both in turn
        assert slowest < 2.5, slowest
    finally:
        server.close()


def test_a_new_connection_waits_no_second_for_a_process_to_notice_it_holds_the_fewest(tmp_path):
    """Connections opened one after another: each time the processes that listen come to hold more
    than one that does not, that one must start listening at once (it used to notice at its loop's next
    turn, up to a second later, while no process listened)."""
    server = Gunicorn(tmp_path, workers=3)
    try:
        server.wait_for_boots(3)
        time.sleep(1)
        seconds = [server.get()[1] for _ in range(15)]
        assert max(seconds) < 0.5, seconds
    finally:
        server.close()
