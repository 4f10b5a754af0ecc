"""Rate limits: per player once authenticated, per client address before (429 with ``Retry-After``).

The rates are DRF's ``DEFAULT_THROTTLE_RATES`` (``THROTTLE_RATE_ANON`` and ``THROTTLE_RATE_PLAYER``
in the environment), read on every request so that a settings override takes effect at once.
Each limit is a fixed window counted with one ``cache.incr`` (DRF's own throttles keep a list of
timestamps per client, which grows with the rate). Counts live in Django's cache: per process
with the default local-memory cache, shared by every server process with ``CACHE_URL=redis://…``.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


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
        cache.add(key, 0, window + 1)
        try:
            count = cache.incr(key)
        except ValueError:  # evicted between add and incr
            cache.add(key, 1, window + 1)
            count = 1
        self._wait = start + window - now
        return bool(count <= allowed)

    def wait(self) -> float | None:
        return max(self._wait, 1.0)


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
