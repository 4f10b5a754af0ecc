"""Which games a finished match counts as, for the ratings (docs/ratings.md): pure, no Django.

A match of sides in pairs (``clasico``, ``subastado_parejas``) is one game for each player against the
opposing side, that side standing as one opponent (:func:`games.ratings.glicko.composite`). A match of
each for themselves (``dos``, ``individual``, ``cabron``, ``subastado``) is one game for every pair of
seats, decided by their order in the match's result: the final scoreboard, where more is better but in
``cabron``, whose letters are lost games (CB5); equal scores are a draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games import engine

#: The variants whose scoreboard counts against a side (CABRÓN's letters): fewer is better.
FEWER_IS_BETTER = frozenset({"cabron"})


@dataclass(frozen=True)
class Pairing:
    """One game of a seat's rating period: the seats it played against as one opponent, and its score."""

    seat: int
    opponents: tuple[int, ...]
    score: float


def _score(mine: int, theirs: int, fewer_is_better: bool) -> float:
    if mine == theirs:
        return 0.5
    return 1.0 if (mine < theirs) == fewer_is_better else 0.0


def pairings(variant: str, options: dict[str, Any], scoreboard: list[int]) -> list[Pairing]:
    """Every game the finished match counts as, seat by seat, from the final ``scoreboard`` (per side)."""
    rules = engine.rules_for(variant, options)
    fewer = variant in FEWER_IS_BETTER
    seats = range(rules.players)
    games = []
    for seat in seats:
        side = rules.side_of(seat)
        if rules.pairs:
            opposing = tuple(s for s in seats if rules.side_of(s) != side)
            games.append(Pairing(seat, opposing, _score(scoreboard[side], scoreboard[1 - side], fewer)))
        else:
            for other in seats:
                if other != seat:
                    games.append(Pairing(seat, (other,), _score(scoreboard[side], scoreboard[other], fewer)))
    return games
