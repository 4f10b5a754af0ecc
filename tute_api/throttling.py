"""Rate limits: per player once authenticated, per client address before (429 with ``Retry-After``).

The rates are DRF's ``DEFAULT_THROTTLE_RATES`` (``THROTTLE_RATE_ANON`` and ``THROTTLE_RATE_PLAYER``
in the environment), read on every request so that a settings override takes effect at once.
Each limit is a fixed window counted in Django's cache (DRF's own throttles keep a list of timestamps
per client, which grows with the rate): per process with the default local-memory cache, shared by every
server process with ``CACHE_URL=redis://…``, where a count is one round trip (``SET NX EX`` and ``INCRBY``
sent together: Django's ``incr`` is two, ``EXISTS`` then ``INCR``).

A process counts a client's requests in leases of a tenth of the window's allowance (:data:`LEASE_SHARE`;
one request for allowances under 20): it adds the lease to the shared count, and lets through as many
requests as it was granted before it asks again; once the count says the allowance is spent, it refuses
the client's requests until the window ends without asking. A player at the default 50 a second costs one
round trip for five requests instead of one each (the round trip was 8% of the server's samples under
``make loadtest``, docs/performance.md). No window lets through more than its allowance; what a process
holds unused when the window ends was counted, so a client whose requests several processes serve may be
refused up to (processes − 1) leases early.

A cache that is away does not stop play (docs/reliability.md): while it fails, the limits let every
request through and say so in the log (a warning at most every :data:`OUTAGE_LOG_SECONDS` per process).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: While the cache is away, the throttles log that they let requests through at most this often.
OUTAGE_LOG_SECONDS = 10.0
#: A process takes at most this share of a window's allowance at a time (:class:`_Leases`).
LEASE_SHARE = 10
#: What a process holds for a client whose window's allowance is spent.
_SPENT = -1

logger = logging.getLogger(__name__)
_last_outage_log = -OUTAGE_LOG_SECONDS


def parse_rate(rate: str) -> tuple[int, int]:
    """``"120/min"`` → ``(120, 60)``: requests allowed per window, and the window in seconds."""
    count, period = rate.split("/")
    return int(count), _PERIODS[period[0]]


class _WindowThrottle(BaseThrottle):
    scope = ""

    def ident(self, request: Request) -> str | None:
        raise NotImplementedError

    def allow_request(self, request: Request, view: Any) -> bool:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        ident = self.ident(request)
        if not rate or ident is None:
            return True
        allowed, window = parse_rate(rate)
        now = time.time()
        start = int(now // window) * window
        self._wait = start + window - now
        leases = _leases.get(self.scope) or _leases.setdefault(self.scope, _Leases())
        held = leases.take(ident, (rate, start))
        if held is not None:
            return held
        lease = max(1, allowed // LEASE_SHARE)
        try:
            count = _count(f"throttle:{self.scope}:{ident}:{start}", window + 1, lease)
        except Exception as exc:  # the cache is away: let the request through rather than fail it
            _log_outage(exc)
            return True
        granted = min(lease, allowed - (count - lease))  # of this lease, what the allowance still had
        leases.hold(ident, (rate, start), granted - 1 if granted > 0 else _SPENT)
        return granted > 0

    def wait(self) -> float | None:
        return max(self._wait, 1.0)


class _Leases:
    """What this process holds of its clients' allowances in the current window of one scope: requests
    it may let through without asking the cache, or :data:`_SPENT`. Forgotten when the window (or the
    rate) changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._window: tuple[str, int] | None = None
        self._held: dict[str, int] = {}

    def take(self, ident: str, window: tuple[str, int]) -> bool | None:
        """True: a request let through from what is held; False: the allowance is spent; None: nothing
        held, ask the cache."""
        with self._lock:
            if window != self._window:
                self._window, self._held = window, {}
                return None
            held = self._held.get(ident, 0)
            if held == _SPENT:
                return False
            if held == 0:
                return None
            self._held[ident] = held - 1
            return True

    def hold(self, ident: str, window: tuple[str, int], held: int) -> None:
        with self._lock:
            if window != self._window:
                return  # the window ended while the cache answered
            before = self._held.get(ident, 0)
            if held == _SPENT:
                self._held[ident] = _SPENT
            elif before != _SPENT:  # another thread's lease may have come meanwhile
                self._held[ident] = before + held


#: Per scope, what this process holds (:class:`_Leases`).
_leases: dict[str, _Leases] = {}


def forget_leases() -> None:
    """Forget what this process holds (for a cache cleared under it, as tests do)."""
    _leases.clear()


def _count(key: str, timeout: int, lease: int = 1) -> int:
    """The window's count with ``lease`` more: in Redis, the key made if missing and counted in one round
    trip; in another cache, one ``incr`` once the window has begun, an ``add`` too for the window's first
    lease."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        key = backend.make_and_validate_key(key)
        # Django's own client for the key (its connection pool); a count is an integer, which Django's
        # Redis cache stores unpickled, so that its get() reads what INCRBY counted.
        pipeline = backend._cache.get_client(key, write=True).pipeline(transaction=False)
        pipeline.set(key, 0, ex=timeout, nx=True)
        pipeline.incrby(key, lease)
        return int(pipeline.execute()[1])
    try:
        return int(backend.incr(key, lease))
    except ValueError:  # the window's first lease, or its key evicted
        if backend.add(key, lease, timeout):
            return lease
        return int(backend.incr(key, lease))  # another request began the window in between


def _log_outage(exc: Exception) -> None:
    global _last_outage_log
    now = time.monotonic()
    if now - _last_outage_log >= OUTAGE_LOG_SECONDS:
        _last_outage_log = now
        logger.warning(
            "Rate limits off: the cache is unreachable (%s: %s); requests go through", type(exc).__name__, exc
        )


class AnonRateThrottle(_WindowThrottle):
    """Requests without a player (creating one, listing variants): limited per client address."""

    scope = "anon"

    def ident(self, request: Request) -> str | None:
        return None if request.user and request.user.is_authenticated else str(self.get_ident(request))


class PlayerRateThrottle(_WindowThrottle):
    """Requests of an authenticated player: limited per player."""

    scope = "player"

    def ident(self, request: Request) -> str | None:
        return str(request.user.pk) if request.user and request.user.is_authenticated else None
