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

from gunicorn.workers.gthread import ThreadWorker


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user holds the pid
        return True
    return True


class ConnectionBoard:
    """How many connections each worker process holds: one slot a process, each a pid and a count."""

    def __init__(self, slots: int = 64) -> None:
        self.slots = slots
        self._layout = struct.Struct(f"{2 * slots}i")
        self._memory = mmap.mmap(-1, self._layout.size)  # anonymous and shared: forked processes see one board
        self._lock = multiprocessing.Lock()

    def _read(self) -> tuple[int, ...]:
        return self._layout.unpack_from(self._memory)

    def _write(self, slot: int, pid: int, connections: int) -> None:
        struct.pack_into("2i", self._memory, 8 * slot, pid, connections)

    def claim(self, pid: int) -> int | None:
        """A free slot for process ``pid``: an unused one, or one left by a process that has exited.
        None when every slot is held by a live process (that process then accepts as gunicorn does)."""
        with self._lock:
            board = self._read()
            for slot in range(self.slots):
                holder = board[2 * slot]
                if holder in (0, pid) or not _alive(holder):
                    self._write(slot, pid, 0)
                    return slot
        return None

    def release(self, slot: int | None) -> None:
        if slot is not None:
            self._write(slot, 0, 0)

    def publish(self, slot: int | None, connections: int) -> None:
        if slot is not None:
            struct.pack_into("i", self._memory, 8 * slot + 4, connections)

    def holds_fewest(self, slot: int | None) -> bool:
        """Whether no live process holds fewer connections than the one in ``slot``. Ties all accept,
        so the process (or processes) with the fewest always does."""
        if slot is None:
            return True
        board = self._read()
        mine = board[2 * slot + 1]
        return not any(
            board[2 * other + 1] < mine and board[2 * other] != 0 and _alive(board[2 * other])
            for other in range(self.slots)
            if other != slot
        )


class BalancedThreadWorker(ThreadWorker):
    """gunicorn's ``gthread`` worker that listens for new connections only while no other worker
    process holds fewer (``worker_class`` in gunicorn.conf.py)."""

    board = ConnectionBoard()  # made when gunicorn's master loads the class, shared by its workers
    slot: int | None = None

    def init_process(self) -> None:
        self.slot = self.board.claim(os.getpid())
        super().init_process()

    def run(self) -> None:
        try:
            super().run()
        finally:
            self.board.release(self.slot)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        # Before each wait: tell the others how many connections this process holds, and look again at
        # theirs (gunicorn's loop only looks at its own limit, and only when that changes).
        self.board.publish(self.slot, self.nr_conns)
        if self.alive:
            self.set_accept_enabled(self.nr_conns < self.worker_connections)
        super().wait_for_and_dispatch_events(timeout)

    def set_accept_enabled(self, enabled: bool) -> None:
        super().set_accept_enabled(enabled and self.board.holds_fewest(self.slot))
