"""Fixtures of the games API tests; after every test, each match it made must replay to its snapshot."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games import engine
from games.matches import records as adapter
from games.matches import selectors
from games.matches.models import Event, Match
from tute_api.celery import app as celery_app


def assert_replays_to_snapshot(match: Match) -> None:
    """Rebuilding the state from the stored log gives the stored snapshot (the seed and the deal key
    aside: replays deal the recorded decks, so they need neither)."""
    log = [row.as_engine_event() for row in Event.objects.filter(match=match).order_by("seq")]
    rebuilt = engine.to_json(engine.replay(match.variant, match.options, log).state)
    stored = dict(match.state or {})
    assert stored.pop("seed") == match.seed
    rebuilt.pop("seed")
    fair = stored.pop("fair_deals", None)
    expected = {"key": match.deal_key, "seeds": fair["seeds"], "first_dealer": fair["first_dealer"]} if fair else None
    assert fair == (expected if match.deal_key else None)
    assert fair is None or fair["first_dealer"] in ("drawn", "fixed")
    assert rebuilt.pop("fair_deals") is None
    assert rebuilt == stored, f"match {match.id} does not replay to its snapshot"
    assert [row[0] for row in Event.objects.filter(match=match).order_by("seq").values_list("seq")] == list(
        range(1, match.seq + 1)
    ), "the log has gaps"


@pytest.fixture(autouse=True)
def bot_turns_in_process(request: pytest.FixtureRequest) -> Iterator[None]:
    """Bot turns run in process (as under ``make run``), even when a broker is configured, except
    in the tests that start a real worker: nothing else would consume the queue."""
    if "celery_worker" in request.fixturenames:
        yield
        return
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = eager


@pytest.fixture(autouse=True)
def every_match_replays_to_its_snapshot(db: None) -> Iterator[None]:
    yield
    for match in Match.objects.all():
        assert match.seating == adapter.seating_of(selectors.seats_of(match)), "seating differs from the seats"
        if match.state is not None:
            assert_replays_to_snapshot(match)
