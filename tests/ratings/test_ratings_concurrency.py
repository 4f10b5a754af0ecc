"""Matches that share players finish at once: each rates its seats with no deadlock and no lost update."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction

from games import engine
from games.ratings.models import Rating
from games.ratings.services import Sitter, ratings_record
from players.models import Player

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL: SQLite has no row locks"),
]


def test_matches_sharing_players_finish_at_once() -> None:
    players = [str(Player.objects.create(username=f"c{n}").pk) for n in range(4)]
    # Tables of 4, the same players seated in other orders, some new to the variant and some not.
    tables = [[players[(start + i) % 4] for i in range(4)][:: 1 if start % 2 else -1] for start in range(12)]
    options = engine.validate_options("individual", {"players": 4})
    barrier = threading.Barrier(len(tables))
    errors: list[BaseException] = []

    def finish(seated: list[str]) -> None:
        try:
            barrier.wait()
            with transaction.atomic():
                ratings_record(
                    variant="individual", options=options, sitters=[Sitter(player=p) for p in seated],
                    scoreboard=[1, 0, 0, 0], winners=[0], rated=True,
                )  # fmt: skip
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=finish, args=(t,)) for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    rows = Rating.objects.filter(variant="individual")
    assert sorted((str(r.player_id), r.games, r.played) for r in rows) == sorted((p, 12, 12) for p in players)
    assert sum(r.won for r in rows) == 12
