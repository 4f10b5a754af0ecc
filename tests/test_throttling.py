"""Rate limits counted in leases (tute_api/throttling.py): a process takes a tenth of a window's allowance
at a time from the shared count, and never lets more than the allowance through."""

import uuid
from typing import Any

import pytest
from django.core.cache import caches

from tests import services
from tute_api import throttling


@pytest.fixture
def redis_cache(settings: Any) -> None:
    settings.CACHES = {"default": {"BACKEND": "tute_api.cache.RedisCache",
                                   "LOCATION": services.redis_url().rsplit("/", 1)[0] + "/9",
                                   "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}  # fmt: skip


def rates(settings: Any, anon: str) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": anon, "player": None}}


def answers(client: Any, n: int) -> list[int]:
    return [client.get("/api/v1/variants/").status_code for _ in range(n)]


def the_count(scope: str = "anon", ident: str = "127.0.0.1", window: int = 3600) -> Any:
    import time

    return caches["default"].get(f"throttle:{scope}:{ident}:{int(time.time() // window) * window}")


def test_in_redis_a_process_asks_once_for_a_lease_of_a_tenth_of_the_allowance(client, settings, redis_cache):
    from unittest import mock

    from redis.client import Pipeline

    rates(settings, "40/h")  # leases of 4
    with mock.patch.object(Pipeline, "execute", autospec=True, side_effect=Pipeline.execute) as round_trips:
        assert answers(client, 40) == [200] * 40
        assert round_trips.call_count == 10  # one a lease, none for the requests it covers
        assert answers(client, 1) == [429]
        assert round_trips.call_count == 11  # the lease that found the allowance spent
        assert answers(client, 5) == [429] * 5
        assert round_trips.call_count == 11  # spent until the window ends: nothing more to ask
    assert the_count() == 44  # what was leased, the refused lease with it


def test_the_last_lease_is_what_the_allowance_still_had(client, settings, redis_cache):
    rates(settings, "45/h")  # leases of 4: the twelfth has one request left in it
    assert answers(client, 47) == [200] * 45 + [429] * 2


def test_a_cache_in_memory_counts_in_leases_too(client, settings):
    from unittest import mock

    from django.core.cache import cache

    rates(settings, "45/h")
    with (
        mock.patch.object(cache, "add", wraps=cache.add) as add,
        mock.patch.object(cache, "incr", wraps=cache.incr) as incr,
    ):
        assert answers(client, 47) == [200] * 45 + [429] * 2
    # Thirteen leases: the first an incr that found no key then an add, the twelfth short, the thirteenth
    # finding the allowance spent (and the last request not asked again).
    assert (add.call_count, incr.call_count) == (1, 13)


def test_two_processes_sharing_a_count_never_let_more_than_the_allowance_through(
    client, settings, redis_cache, monkeypatch
):
    """Each process holds what it leased: a client that two processes serve in turn gets exactly its
    allowance; one whose requests then all go to the second is refused early by at most what the first
    holds unused (a lease, less the request it served)."""
    first, second = {}, {}

    def served_by(leases: dict[str, Any]) -> int:
        monkeypatch.setattr(throttling, "_leases", leases)
        return answers(client, 1)[0]

    rates(settings, "40/h")
    in_turn = [served_by(first if n % 2 else second) for n in range(44)]
    assert in_turn == [200] * 40 + [429] * 4

    rates(settings, "41/h")  # a new rate: a window of its own for each process, the count in Redis too
    caches["default"].clear()
    assert served_by(first) == 200  # a lease of 4: 3 held there
    then = [served_by(second) for _ in range(40)]
    assert then == [200] * 37 + [429] * 3  # 38 in all, of 41: the 3 that the first holds
    assert [served_by(first) for _ in range(4)] == [200] * 3 + [429]  # which it lets through: 41 in all


def test_a_new_window_forgets_what_was_held():
    leases = throttling._Leases()
    assert leases.take("p", ("5/s", 100)) is None
    leases.hold("p", ("5/s", 100), 2)
    assert [leases.take("p", ("5/s", 100)) for _ in range(3)] == [True, True, None]
    leases.hold("p", ("5/s", 100), throttling._SPENT)
    assert leases.take("p", ("5/s", 100)) is False
    assert leases.take("p", ("5/s", 101)) is None  # the next window: ask again
    leases.hold("p", ("5/s", 100), 3)  # a lease of the window before, answered late: dropped
    assert leases.take("p", ("5/s", 101)) is None


def test_a_lease_taken_by_two_threads_at_once_adds_up():
    leases = throttling._Leases()
    window = ("50/s", 7)
    assert leases.take("p", window) is None and leases.take("p", window) is None  # both ask the cache
    leases.hold("p", window, 4)
    leases.hold("p", window, 4)
    assert [leases.take("p", window) for _ in range(9)] == [True] * 8 + [None]
