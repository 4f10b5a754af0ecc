"""Rate limits: per player once authenticated, per client address before (429 with ``Retry-After``).

The rates are DRF's ``DEFAULT_THROTTLE_RATES`` (``THROTTLE_RATE_ANON`` and ``THROTTLE_RATE_PLAYER``
in the environment), read on every request so that a settings override takes effect at once.
Each limit is a fixed window counted with one ``cache.incr`` per request (DRF's own throttles keep a
list of timestamps per client, which grows with the rate). Counts live in Django's cache: per process
with the default local-memory cache, shared by every server process with ``CACHE_URL=redis://…``, where
a request's count is one round trip (``SET NX EX`` and ``INCR`` sent together: Django's ``incr`` is two,
``EXISTS`` then ``INCR``).

A cache that is away does not stop play (docs/reliability.md): while it fails, the limits let every
request through and say so in the log (a warning at most every :data:`OUTAGE_LOG_SECONDS` per process).
"""

from __future__ import annotations

import logging
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
        key = f"throttle:{self.scope}:{ident}:{start}"
        self._wait = start + window - now
        try:
            count = _count(key, window + 1)
        except Exception as exc:  # the cache is away: let the request through rather than fail it
            _log_outage(exc)
            return True
        return bool(count <= allowed)

    def wait(self) -> float | None:
        return max(self._wait, 1.0)


def _count(key: str, timeout: int) -> int:
    """The window's count with this request: in Redis, the key made if missing and counted in one round
    trip; in another cache, one ``incr`` once the window has begun, an ``add`` too for the window's first
    request."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        key = backend.make_and_validate_key(key)
        # Django's own client for the key (its connection pool); a count is an integer, which Django's
        # Redis cache stores unpickled, so that its get() reads what INCR counted.
        pipeline = backend._cache.get_client(key, write=True).pipeline(transaction=False)
        pipeline.set(key, 0, ex=timeout, nx=True)
        pipeline.incr(key)
        return int(pipeline.execute()[1])
    try:
        return int(backend.incr(key))
    except ValueError:  # the window's first request, or its key evicted
        if backend.add(key, 1, timeout):
            return 1
        return int(backend.incr(key))  # another request began the window in between


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
