"""gunicorn's threaded worker, with each new connection taken by the process that holds the fewest.

gunicorn's processes share one listening socket, and whichever wakes first accepts a new connection:
a process that is already busy, and so awake, takes more than its share. A kept-alive connection stays
with the process that accepted it, and Python runs one thread of a process at a time, so when 20
clients held 10, 4, 3 and 3 connections in 4 processes, the requests of the first queued for its
interpreter while the others had some to spare (docs/performance.md).

Here each process writes how many connections it holds to a board in memory that gunicorn's processes
share, and listens for new ones only while none holds fewer. The board is made when gunicorn loads this
class, in its master process, before it forks the workers.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import struct
import time
from collections.abc import Callable

from gunicorn.workers.gthread import ThreadWorker


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # no signal sent: whether the pid is a process (a zombie still is, until reaped)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user
        return True
    return True


class ConnectionBoard:
    """How many connections each worker process holds: one slot a process, each with its pid, its count
    and when it last wrote (a process writes at least once a second, at each turn of its loop). A slot
    not written for ``stale_after`` seconds, or whose pid is no process, is free: its process has exited,
    even if killed."""

    def __init__(
        self,
        slots: int = 64,
        stale_after: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        pid_exists: Callable[[int], bool] = _pid_exists,
    ):
        self.slots = slots
        self.stale_after = stale_after
        self.clock = clock  # CLOCK_MONOTONIC is one clock for every process of the machine
        self.pid_exists = pid_exists
        self._slot = struct.Struct("=iid")  # pid, connections, last written
        self._memory = mmap.mmap(-1, self._slot.size * slots)  # anonymous, shared: forked processes see one board
        self._lock = multiprocessing.Lock()

    def _read(self) -> list[tuple[int, int, float]]:
        return list(self._slot.iter_unpack(self._memory))

    def _write(self, slot: int, pid: int, connections: int, written: float) -> None:
        self._slot.pack_into(self._memory, self._slot.size * slot, pid, connections, written)

    def _live(self, record: tuple[int, int, float], now: float) -> bool:
        # Written lately and its pid still a process: a killed process's slot is free once gunicorn's
        # master has reaped it, not seconds later (a pid taken since by another process still goes stale).
        pid, _, written = record
        return pid != 0 and now - written < self.stale_after and self.pid_exists(pid)

    def claim(self, pid: int) -> int | None:
        """A free slot for process ``pid``. None when every slot is held by a live process (that
        process then accepts connections as gunicorn does)."""
        with self._lock:
            now = self.clock()
            for slot, record in enumerate(self._read()):
                if record[0] == pid or not self._live(record, now):
                    self._write(slot, pid, 0, now)
                    return slot
        return None

    def release(self, slot: int | None, pid: int | None = None) -> None:
        """Free ``slot``; with ``pid``, only while that process still holds it (a slot given up early may
        have been claimed since by another process)."""
        if slot is not None and (pid is None or self._read()[slot][0] == pid):
            self._write(slot, 0, 0, 0.0)

    def publish(self, slot: int | None, pid: int, connections: int) -> None:
        if slot is not None:
            self._write(slot, pid, connections, self.clock())

    def holds_fewest(self, slot: int | None) -> bool:
        """Whether no live process holds fewer connections than the one in ``slot``. Ties all accept,
        so the process (or processes) with the fewest always does."""
        if slot is None:
            return True
        board, now = self._read(), self.clock()
        mine = board[slot][1]
        return not any(
            other != slot and record[1] < mine and self._live(record, now) for other, record in enumerate(board)
        )  # _live last: it asks the kernel about the pid


class BalancedThreadWorker(ThreadWorker):
    """gunicorn's ``gthread`` worker that listens for new connections only while no other worker
    process holds fewer (``worker_class`` in gunicorn.conf.py)."""

    board = ConnectionBoard()  # made when gunicorn's master loads the class, shared by its workers
    slot: int | None = None
    held_back_poll = 0.02  # seconds: how long a new connection may wait for the process that holds the fewest

    def run(self) -> None:
        # The slot is claimed once the app is loaded (gunicorn's init_process loads it, then calls run):
        # a process still loading, its slot at 0 connections, would hold back every process that holds
        # some while it accepts none.
        self.slot = self.board.claim(os.getpid())
        try:
            super().run()
        finally:
            self.board.release(self.slot, os.getpid())

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        # Before each wait: tell the others how many connections this process holds, and look again at
        # theirs (gunicorn's loop only looks at its own limit, and only when that changes). A process
        # that is stopping accepts no more: it gives its slot up at once, for the connections it still
        # finishes (up to graceful_timeout) would otherwise hold back the processes that hold more.
        if self.alive:
            self.board.publish(self.slot, os.getpid(), self.nr_conns)
            can_accept = self.nr_conns < self.worker_connections
            self.set_accept_enabled(can_accept)
            if can_accept and not self._accepting:
                # Held back by the board: nothing wakes this process when it comes to hold the fewest
                # (another accepted, or one of its connections closed), so it looks again soon, not
                # at gunicorn's next turn (up to a second, while no process listens).
                timeout = min(timeout, self.held_back_poll)
        else:
            self.board.release(self.slot, os.getpid())
        super().wait_for_and_dispatch_events(timeout)

    def set_accept_enabled(self, enabled: bool) -> None:
        super().set_accept_enabled(enabled and self.board.holds_fewest(self.slot))
