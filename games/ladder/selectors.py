"""Reads of the ladder: a player's runs that are over, and the leaderboard of best scores."""

from __future__ import annotations

from django.db import connection
from django.db.models import Prefetch, QuerySet

from players.models import Player
from tute_api.rows import fetch_one

from .models import LadderBest, LadderMatch, LadderRun, RunState


def runs_past(*, player: Player) -> QuerySet[LadderRun]:
    """The player's runs that are over, the latest first."""
    runs = LadderRun.objects.filter(player=player, state=RunState.OVER).select_related("match")
    matches = Prefetch("matches", queryset=LadderMatch.objects.select_related("match"))
    return runs.prefetch_related(matches).order_by("-started_at", "-id")


def leaderboard() -> QuerySet[LadderBest]:
    """Each player's best score, the highest first (the earliest first among equals), from the index
    ``ladder_best_rank``."""
    return LadderBest.objects.select_related("player").order_by("-score", "achieved_at", "player")


def best_of(*, player_id: object) -> LadderBest | None:
    """A player's best ladder score (for their profile), or None if they never won a ladder match."""
    return LadderBest.objects.filter(player_id=player_id).first()


def ladder_match_of(*, match_id: object) -> LadderMatch | None:
    """The ladder's entry for a match, or None for a match that is no ladder match. Every match that ends
    asks (``games.ladder.news``), most of them no ladder match: one indexed read in plain SQL (the ORM's
    ``filter().first()`` spent more CPU building the query than the database answering it, 1.6% of the
    server's samples under ``make loadtest``: docs/performance.md)."""
    field = LadderMatch._meta.get_field("match")
    rest = f'FROM "{LadderMatch._meta.db_table}" l WHERE l."{field.column}" = %s'
    return fetch_one(LadderMatch, "l", rest, [field.get_db_prep_value(match_id, connection)])
