"""Spectators of public matches (RULES.md M5): how many watch each match now, and the cap.

A spectator *watches* while one of their waiting reads is open: an event stream, or a long poll
(``?after=&wait=``). Each holds a lease in a counter of the cache (where the rate limits count,
shared by the service's processes), one counter per match per epoch of :data:`EPOCH_SECONDS`:

- a watcher that starts adds one to the current epoch's counter and is refused (429
  ``too_many_spectators``) if that, with the epoch before's, passes ``SPECTATORS_PER_MATCH``;
- a watcher still open in a later epoch moves its one into the current counter (a stream wakes
  well within an epoch; a long poll lasts less than one), and a watcher that ends takes it away;
- so every open watcher is counted exactly once, in the current epoch's counter or the one before,
  and one lost without ending (a process killed) stops counting within two epochs: the count heals
  itself, with no sweep.

Each step is one or two atomic increments of the cache; ``GET /matches/live`` reads two counters per
match in one round trip. A cache that fails never fails a read: the watcher is let in uncounted.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

from django.conf import settings
from django.core.cache import cache

from tute_api.errors import ApiError

logger = logging.getLogger(__name__)

#: The length of an epoch: longer than the longest wait of a long poll, and than a stream's sleep.
EPOCH_SECONDS = 60
TOO_MANY_SPECTATORS = "too_many_spectators"
#: Seconds a spectator refused is asked to wait (``Retry-After``, and ``retry_after`` in the problem).
RETRY_SECONDS = 10


class TooManySpectators(ApiError):
    status_code = 429
    default_code = TOO_MANY_SPECTATORS
    default_detail = "This match has as many spectators as it may have; try again later."

    def __init__(self) -> None:
        super().__init__(retry_after=RETRY_SECONDS)
        self.wait = RETRY_SECONDS  # DRF sends it as the Retry-After header


def _epoch() -> int:
    return int(time.time() // EPOCH_SECONDS)


def _key(match_id: str, epoch: int) -> str:
    return f"{Watch.prefix}:{match_id}:{epoch}"


def _add(key: str, delta: int) -> int:
    """The counter at ``key`` plus ``delta``; it lives three epochs from its first use."""
    for _ in range(2):  # a counter that expires between the two calls is made again
        cache.add(key, 0, timeout=3 * EPOCH_SECONDS)
        try:
            return int(cache.incr(key, delta))
        except ValueError:
            continue
    return 0


class _Lease:
    """One open waiting read counted in a counter of the cache (see the module's docstring)."""

    prefix = ""

    def __init__(self, owner: UUID | str) -> None:
        self.owner = str(owner)
        self.epoch: int | None = None

    def cap(self) -> int:
        raise NotImplementedError

    def refusal(self) -> ApiError:
        raise NotImplementedError

    def _key(self, epoch: int) -> str:
        return f"{self.prefix}:{self.owner}:{epoch}"

    def enter(self) -> None:
        """Count the lease in; a 429 (:meth:`refusal`) if the owner has its cap already."""
        epoch = _epoch()
        try:
            count = _add(self._key(epoch), 1)
            before = cache.get(self._key(epoch - 1)) or 0
        except Exception:  # the cap protects the service; a cache down must not fail a read
            logger.exception("Could not count the %s of %s", self.prefix, self.owner)
            return
        self.epoch = epoch
        if count + max(int(before), 0) > self.cap():
            self.leave()
            raise self.refusal()

    def renew(self) -> None:
        """Move the lease into the current epoch (a lease open longer than one: a stream, a socket)."""
        epoch = _epoch()
        if self.epoch is None or epoch == self.epoch:
            return
        try:
            _add(self._key(epoch), 1)
            _add(self._key(self.epoch), -1)
        except Exception:
            logger.exception("Could not renew one of the %s of %s", self.prefix, self.owner)
        self.epoch = epoch

    def leave(self) -> None:
        """The lease ends: its one goes (once, however often this is called)."""
        if self.epoch is None:
            return
        epoch, self.epoch = self.epoch, None
        try:
            _add(self._key(epoch), -1)
        except Exception:
            logger.exception("Could not count out one of the %s of %s", self.prefix, self.owner)


class Watch(_Lease):
    """One spectator's open stream, long poll or socket on a match: its lease in the counters."""

    prefix = "spectators"

    def __init__(self, match_id: UUID | str) -> None:
        super().__init__(match_id)
        self.match_id = self.owner

    def cap(self) -> int:
        return int(settings.SPECTATORS_PER_MATCH)

    def refusal(self) -> ApiError:
        return TooManySpectators()


@contextmanager
def watching(match_id: UUID | str) -> Iterator[Watch]:
    """A spectator's long poll: counted in while it waits (429 beyond the cap), out after."""
    watch = Watch(match_id)
    watch.enter()
    try:
        yield watch
    finally:
        watch.leave()


def counts(match_ids: list[UUID]) -> dict[str, int]:
    """How many spectators watch each match now, by id (one read of the cache)."""
    epoch = _epoch()
    keys = {str(m): (_key(str(m), epoch), _key(str(m), epoch - 1)) for m in match_ids}
    try:
        found = cache.get_many([key for pair in keys.values() for key in pair])
    except Exception:
        logger.exception("Could not read the spectators' counts")
        found = {}
    return {m: max(int(found.get(now, 0)) + int(found.get(before, 0)), 0) for m, (now, before) in keys.items()}
