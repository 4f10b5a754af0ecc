"""Django's Redis cache, whose client, and the client's pool of connections, every instance of a process
shares.

Django makes a cache instance per thread, through asgiref's ``Local``; under this server each request
runs in a copy of the event loop's context (``tute_api.threads``), in which no instance is set, so each
request made its own, and with it a client with a pool of its own: every request opened a new
connection to Redis (31 connections for 30 requests to one server process, ``INFO stats``) and left the
old one to the collector. A pull request to Django (django/django#18459, open) shares the pools too.
The instances are still one per request (their cost is a few microseconds); their client is the
process's, one per set of servers and options. redis-py's pool is thread-safe and checks its process
(a pool inherited through ``fork`` starts anew).
"""

from __future__ import annotations

import threading
from functools import cached_property
from typing import Any

from django.core.cache.backends import redis

_clients: dict[tuple[Any, ...], Any] = {}
_lock = threading.Lock()


class RedisCache(redis.RedisCache):
    @cached_property
    def _cache(self) -> Any:  # type: ignore[override]
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        client = _clients.get(key)
        if client is None:
            with _lock:
                client = _clients.get(key)
                if client is None:
                    client = _clients[key] = self._class(self._servers, **self._options)
        return client
