"""tute_api/cache.py: the requests of a server process share one Redis client and its connections."""

from __future__ import annotations

import contextvars
import threading
import uuid
from typing import Any

from django.core.cache import caches

from tests import services


def _redis_cache(settings: Any) -> None:
    settings.CACHES = {"default": {"BACKEND": "tute_api.cache.RedisCache",
                                   "LOCATION": services.redis_url().rsplit("/", 1)[0] + "/9",
                                   "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}  # fmt: skip


def test_requests_in_contexts_of_their_own_share_one_client_and_one_connection(settings: Any) -> None:
    """Each request runs in a context of its own, where Django's ``caches`` makes a new instance: with
    Django's Redis cache each had a client and a pool of its own, and every request opened a connection."""
    _redis_cache(settings)
    seen: list[Any] = []

    def request(n: int) -> None:
        cache = caches["default"]
        cache.set(f"k{n}", n)
        assert cache.get(f"k{n}") == n
        seen.append(cache)

    for n in range(20):
        contextvars.Context().run(request, n)  # as a request's thread runs in a context of its own
    workers = [threading.Thread(target=contextvars.Context().run, args=(request, n)) for n in range(20, 28)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len({id(cache) for cache in seen}) > 1  # Django's instances, one per context
    clients = {id(cache._cache) for cache in seen}
    assert len(clients) == 1, "each context made a client of its own"
    pools = seen[0]._cache._pools
    assert len(pools) == 1 and next(iter(pools.values()))._created_connections <= 8  # at most one per thread


def test_another_server_or_other_options_get_a_client_of_their_own(settings: Any) -> None:
    _redis_cache(settings)
    first = caches["default"]._cache
    settings.CACHES = {"default": {**settings.CACHES["default"], "OPTIONS": {"socket_timeout": 2}}}
    assert caches["default"]._cache is not first
