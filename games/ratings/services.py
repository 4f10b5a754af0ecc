"""Writes of the ratings: a finished match's, in the transaction that finishes it (docs/ratings.md).

The matches call :func:`ratings_record` with plain data (the variant, who sat where, the final
scoreboard, the winning sides), so this layer knows nothing of theirs. It reads and locks the rows of
the match's players in one query (in the order of their ids, so that two matches finishing at once
never wait for each other in a circle), rates every seat from the ratings as they were before the
match, and writes the rows back in one round trip: two whatever the table (the rows missing are
inserted in the message that locks them, on PostgreSQL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from games import engine
from games.bots import LEVELS
from tute_api import rows

from . import anchors, glicko
from .models import Rating
from .pairings import Pairing, pairings

TAU = 0.5  # the system constant (Glickman suggests 0.3 to 1.2)
MIN_DEVIATION = 45.0  # a rating never looks surer than this, so that it keeps moving (as Lichess)


@dataclass(frozen=True)
class Sitter:
    """Who sat at a seat: a player's id (a human or a registered bot), or a built-in bot's level."""

    player: str | None = None
    bot: str | None = None


def is_rated(*, seeded: bool, cancelled: bool, sitters: list[Sitter]) -> bool:
    """A match is rated when it has no seed (whoever knows it knows every deal, C12), was not cancelled,
    and every seat is a player, a registered bot or a built-in bot."""
    return not seeded and not cancelled and all(s.player or s.bot in LEVELS for s in sitters)


def _locked(variant: str, players: list[str]) -> dict[str, Rating]:
    """The players' rows of the variant, created where missing, locked until the transaction ends: plain
    SQL (:mod:`tute_api.rows`), the insert sent with the lock on PostgreSQL (one round trip). The ORM's
    ``bulk_create`` and ``select_for_update`` cost more CPU to build than the database spent on them
    (2.7% of a server's samples under load, a match ending in about ten actions: docs/performance.md)."""
    if not players:
        return {}
    rows.insert(Rating, [Rating(player_id=p, variant=variant) for p in players], ignore_conflicts=True, held=True)
    player = Rating._meta.get_field("player")
    ids = [player.get_db_prep_value(p, connection) for p in players]
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""  # SQLite locks the database
    found = rows.fetch_all(
        Rating,
        "r",
        f'FROM "{Rating._meta.db_table}" AS r WHERE r."variant" = %s AND r."player_id" IN '
        f"({', '.join(['%s'] * len(ids))}) ORDER BY r.\"player_id\"{lock}",
        [variant, *ids],
    )
    return {str(row.player_id): row for row in found}


@transaction.atomic(savepoint=False)  # in the transaction that finishes the match, without a savepoint
def ratings_record(
    *,
    variant: str,
    options: dict[str, Any],
    sitters: list[Sitter],
    scoreboard: list[int],
    winners: list[int],
    rated: bool,
) -> list[dict[str, Any]] | None:
    """Count a finished match for its players and, when ``rated``, rate it: each seat's change (the data
    of the ``ratings_updated`` event), or None for a match that is not rated."""
    players = sorted({s.player for s in sitters if s.player})
    locked = _locked(variant, players)
    rules = engine.rules_for(variant, options)
    now = timezone.now()
    for seat, sitter in enumerate(sitters):
        if sitter.player:
            row = locked[sitter.player]
            row.played += 1
            row.won += rules.side_of(seat) in winners
            row.updated_at = now
    changes = None
    if rated:
        changes = _rate(variant, sitters, locked, pairings(variant, options, scoreboard))
    rows.update(
        list(locked.values()), ["rating", "deviation", "volatility", "games", "played", "won", "updated_at"]
    )
    return changes


def _rate(variant: str, sitters: list[Sitter], locked: dict[str, Rating], games: list[Pairing]) -> list[dict[str, Any]]:
    before = [
        glicko.Glicko(locked[s.player].rating, locked[s.player].deviation, locked[s.player].volatility)
        if s.player
        else anchors.anchor(variant, s.bot or "")
        for s in sitters
    ]
    period: dict[int, list[glicko.Game]] = {seat: [] for seat in range(len(sitters))}
    for game in games:
        opponent = glicko.composite([before[s] for s in game.opponents])
        period[game.seat].append(glicko.Game(opponent, game.score))
    changes = []
    for seat, sitter in enumerate(sitters):
        old = before[seat]
        if sitter.player is None:  # a built-in level: an anchor, never updated
            changes.append(_change(seat, sitter, old, old))
            continue
        new = glicko.update(old, period[seat], tau=TAU, min_deviation=MIN_DEVIATION)
        row = locked[sitter.player]
        row.rating, row.deviation, row.volatility, row.games = new.rating, new.deviation, new.volatility, row.games + 1
        changes.append(_change(seat, sitter, old, new))
    return changes


def _change(seat: int, sitter: Sitter, old: glicko.Glicko, new: glicko.Glicko) -> dict[str, Any]:
    return {
        "seat": seat,
        "player": sitter.player,
        "bot": sitter.bot,
        "rating_before": round(old.rating, 1),
        "rating": round(new.rating, 1),
        "change": round(new.rating - old.rating, 1),
        "deviation": round(new.deviation, 1),
    }
