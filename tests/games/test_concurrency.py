"""Twenty clients post the same turn at once: the match row lock lets exactly one through."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection, connections

from games.matches.models import Event, Match

from .helpers import Api, human_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL: SQLite has no row locks"),
]

THREADS = 20


def post_at_once(api: Api, url: str, body: dict[str, object]) -> list[int]:
    barrier = threading.Barrier(THREADS)
    statuses: list[int] = []
    codes: list[str] = []

    def post() -> None:
        try:
            barrier.wait()
            response = api.client.post(url, body, format="json")
            statuses.append(response.status_code)
            codes.append(response.json().get("code", ""))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=post) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return statuses + codes


@pytest.mark.parametrize("with_expected_seq", [True, False], ids=["expected_seq", "no_expected_seq"])
def test_twenty_posts_of_one_turn_make_one_play(with_expected_seq):
    table = human_table("clasico", {"games_to_win": 1}, seed=9)
    turn = table.view(0)["hand"]["turn"]
    view = table.view(turn)
    action = dict(view["legal_actions"][0])
    if with_expected_seq:
        action["expected_seq"] = view["seq"]
    results = post_at_once(table.seats[turn], table.url("/actions"), action)
    statuses, codes = Counter(results[:THREADS]), Counter(results[THREADS:])
    assert statuses == {200: 1, 409: THREADS - 1}, (statuses, codes)
    assert codes[""] == 1 and codes["stale_seq" if with_expected_seq else "not_your_turn"] == THREADS - 1
    match = Match.objects.get(pk=table.match_id)
    seqs = list(Event.objects.filter(match=match).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, match.seq + 1)), "no gaps in seq"
    played = Event.objects.filter(match=match, type="card_played")
    assert played.count() == 1 and played.get().data == {"card": action["card"]}
