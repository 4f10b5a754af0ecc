"""The garbage collector's stops of a server process, written to a file for ``make loadtest``.

Every collection stops the whole process, its event loop too: beside thousands of open connections
they are the tail of the fan-out (docs/performance.md). With ``GC_PAUSES_DIR`` set, each gunicorn
worker (``gunicorn.conf.py``) counts its collections by generation, their wall and CPU time and the
objects they freed, and keeps each stop of at least :data:`KEPT_SECONDS` with the time it ended; a
daemon thread writes it all to ``<GC_PAUSES_DIR>/<pid>.json`` every second, which the load test reads at
its window's start and end.

With ``GC_CENSUS`` set too (``make loadtest LOADTEST_ARGS=--gc-census``), a diagnostic: each process
keeps what its collections find (``gc.DEBUG_SAVEALL``: never freed, its memory grows), collects in full
every :data:`CENSUS_EVERY` seconds, and its report counts that garbage by kind (a function by its name):
where the reference cycles that bring collections about come from. Its stops are not the service's then.
"""

from __future__ import annotations

import collections
import gc
import json
import os
import threading
import time
from typing import Any

#: Stops at least this long are kept one by one; the others are only counted.
KEPT_SECONDS = 0.010

#: The stops kept, at most (the latest).
KEPT_AT_MOST = 20_000

#: With a census, a full collection this often (seconds): without one, the garbage might wait for hours.
CENSUS_EVERY = 10.0

#: The kinds of garbage a report names, at most (the most frequent).
CENSUS_KINDS = 40


class Pauses:
    """A ``gc.callbacks`` callback that counts the collections of each generation and times them."""

    def __init__(self, census: bool = False) -> None:
        self._started = (0.0, 0.0)
        self.collections = [0, 0, 0]
        self.wall = [0.0, 0.0, 0.0]
        self.cpu = [0.0, 0.0, 0.0]
        #: The objects the collections freed: garbage that reference counting could not free.
        self.freed = [0, 0, 0]
        #: The longer stops: (the time it ended, as ``time.time()``, generation, wall seconds).
        self.kept: collections.deque[tuple[float, int, float]] = collections.deque(maxlen=KEPT_AT_MOST)
        #: With a census: the objects the collections found, by kind (``gc.garbage`` read up to ``_counted``).
        self.census: collections.Counter[str] | None = collections.Counter() if census else None
        self._counted = 0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = (time.perf_counter(), time.thread_time())  # a collection runs in one thread
            return
        wall = time.perf_counter() - self._started[0]
        generation = info["generation"]
        self.collections[generation] += 1
        self.wall[generation] += wall
        self.cpu[generation] += time.thread_time() - self._started[1]
        self.freed[generation] += info["collected"]
        if wall >= KEPT_SECONDS:
            self.kept.append((time.time(), generation, wall))

    def report(self) -> dict[str, Any]:
        found = {}
        if self.census is not None:
            garbage = gc.garbage
            self.census.update(_kind(thing) for thing in garbage[self._counted :])
            self._counted = len(garbage)
            found = {"garbage": dict(self.census.most_common(CENSUS_KINDS))}
        return {
            "pid": os.getpid(),
            "collections": list(self.collections),
            "wall_seconds": list(self.wall),
            "cpu_seconds": list(self.cpu),
            "freed": list(self.freed),
            "kept": list(self.kept),
            **found,
        }


def _kind(thing: object) -> str:
    """A kind of garbage: its type's qualified name; a function's own too (whose closure is in the cycle?)."""
    kind = type(thing)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if kind.__name__ in ("function", "method", "frame"):
        code = getattr(thing, "__code__", None) or getattr(thing, "f_code", None)
        name += f" {getattr(code, 'co_qualname', '?')} ({getattr(code, 'co_filename', '?')})"
    return name


def write(pauses: Pauses, directory: str) -> None:
    """``pauses``' report to ``<directory>/<pid>.json``, whole or not at all (a reader never sees half)."""
    path = os.path.join(directory, f"{os.getpid()}.json")
    with open(f"{path}.part", "w") as out:
        out.write(json.dumps(pauses.report()))  # (json.dump's encoder in Python leaves a cycle of closures)
    os.replace(f"{path}.part", path)


def install(directory: str, every: float = 1.0, census: bool = False) -> Pauses:
    """Count this process's collections from now on and write them to ``directory`` every ``every`` s;
    with ``census``, keep and count the garbage they find too (a diagnostic: module docstring)."""
    pauses = Pauses(census=census)
    gc.callbacks.append(pauses)
    if census:
        gc.set_debug(gc.DEBUG_SAVEALL)

    def writing() -> None:
        collected = time.monotonic()
        while pauses in gc.callbacks:
            if census and time.monotonic() - collected >= CENSUS_EVERY:
                gc.collect()
                collected = time.monotonic()
            write(pauses, directory)
            time.sleep(every)

    threading.Thread(target=writing, name="gc-pauses", daemon=True).start()
    return pauses
