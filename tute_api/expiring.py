"""Values kept in the process for a few seconds, at most so many: what a process keeps on the strength of
hearing every other (``players/token_cache.py``, ``games/matches/kept.py``)."""

from __future__ import annotations

import threading
import time
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Expiring(Generic[K, V]):
    """A map whose values expire ``seconds`` after they were put; past ``limit`` values the oldest go.

    Reads take no lock. ``lock`` (reentrant) orders the writes: hold it to make a check and a write one
    step (a put only if nothing was revoked meanwhile, a drop only if the value is still the one seen)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.lock = threading.RLock()
        self._items: dict[K, tuple[float, V]] = {}  # in the order they were put, so the oldest first

    def get(self, key: K) -> V | None:
        """The value of ``key``, unless it has expired."""
        item = self._items.get(key)
        return item[1] if item is not None and item[0] > time.monotonic() else None

    def put(self, key: K, value: V, seconds: float) -> None:
        now = time.monotonic()
        with self.lock:
            self._items.pop(key, None)  # to the end
            self._items[key] = (now + seconds, value)
            while len(self._items) > self.limit or next(iter(self._items.values()))[0] <= now:
                del self._items[next(iter(self._items))]

    def pop(self, key: K) -> None:
        with self.lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        with self.lock:
            self._items.clear()

    def __contains__(self, key: object) -> bool:
        return key in self._items
