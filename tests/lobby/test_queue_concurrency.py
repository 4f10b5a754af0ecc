"""Hundreds of players queue at once: each is seated in exactly one match, none twice, none left waiting.

On PostgreSQL, threads enter the queue concurrently (each entry queues a pairing on commit, which runs in
process); the row locks (``skip_locked``) and the entries' compare-and-set keep every seat single. On
SQLite, which has no row locks, the same players enter one after another."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections

from games.lobby import services
from games.lobby.models import QueueEntry
from games.matches.models import Match, Seat
from players.services import player_create

pytestmark = pytest.mark.django_db(transaction=True)

POSTGRES = connection.vendor == "postgresql"
PLAYERS = 320 if POSTGRES else 40  # half each variant: whole tables, no bots needed
THREADS = 16


def _check_everyone_seated_once(players: list[object], seats_per_match: dict[str, int]) -> None:
    seated = Counter(Seat.objects.filter(player__isnull=False).values_list("player_id", flat=True))
    assert set(seated) == {p.pk for p in players}, "every player seated"
    assert set(seated.values()) == {1}, "none seated twice"
    assert not QueueEntry.objects.filter(match__isnull=True).exists(), "none left waiting"
    for match in Match.objects.all():
        assert match.status == "active"
        assert len(match.seating) == seats_per_match[match.variant]
    entries = Counter(QueueEntry.objects.values_list("match_id", flat=True))
    assert all(entries[m.pk] == seats_per_match[m.variant] for m in Match.objects.all())


def test_hundreds_of_players_queueing_at_once_are_each_seated_once():
    players = [player_create(username=f"q{n}")[0] for n in range(PLAYERS)]
    barrier = threading.Barrier(THREADS) if POSTGRES else None

    def enter(n: int) -> None:
        try:
            if barrier is not None and n < THREADS:
                barrier.wait(30)
            variant = "dos" if n % 2 else "clasico"
            services.queue_enter(player=players[n], variant=variant, options={"games_to_win": 1})
        finally:
            if POSTGRES:
                connections.close_all()

    if POSTGRES:
        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(enter, range(PLAYERS)))
    else:
        for n in range(PLAYERS):
            enter(n)
    services.queue_sweep()  # a pairing skipped rows another held: the beat's sweep seats them
    _check_everyone_seated_once(players, {"dos": 2, "clasico": 4})
