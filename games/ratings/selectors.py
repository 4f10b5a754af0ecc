"""Reads of the ratings: a player's public profile, a variant's leaderboard (docs/ratings.md)."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from games import engine
from players.models import Bot, Player

from .errors import PageNotFound, PlayerNotFound, UnknownVariant
from .models import LEADERBOARD_MAX_DEVIATION, Rating


@dataclass(frozen=True)
class Profile:
    """A player's public profile: who they are and their ratings, by variant name."""

    player: Player
    is_bot: bool
    ratings: list[Rating]
    best_ladder_score: int | None = None

    @property
    def matches_played(self) -> int:
        return sum(r.played for r in self.ratings)

    @property
    def matches_won(self) -> int:
        return sum(r.won for r in self.ratings)


@dataclass(frozen=True)
class Ranked:
    """A line of a leaderboard: the rank and the rating (with its player)."""

    rank: int
    rating: Rating


@dataclass(frozen=True)
class Leaderboard:
    variant: str
    page: int
    page_size: int
    results: list[Ranked]
    has_next: bool
    max_deviation: float = LEADERBOARD_MAX_DEVIATION


def player_profile(*, player_id: UUID) -> Profile:
    """The public profile of a player or a registered bot; 404 ``player_not_found``."""
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise PlayerNotFound()
    ratings = list(Rating.objects.filter(player=player).order_by("variant"))
    return Profile(player, Bot.objects.filter(pk=player_id).exists(), ratings)


def leaderboard(*, variant: str, page: int = 1, page_size: int = 50) -> Leaderboard:
    """The ranked ratings of ``variant`` (deviation under :data:`LEADERBOARD_MAX_DEVIATION`), best first,
    a page at a time, read from the partial index ``rating_leaderboard`` (no count: a page reads its
    rows and one more, to know whether another follows)."""
    if variant not in engine.VARIANTS:
        raise UnknownVariant(f'No variant "{variant[:50]}": see GET /variants/ ({", ".join(engine.VARIANTS)}).')
    start = (page - 1) * page_size
    rows = list(
        Rating.objects.filter(variant=variant, deviation__lt=LEADERBOARD_MAX_DEVIATION)
        .order_by("-rating", "player_id")
        .select_related("player")[start : start + page_size + 1]
    )
    if not rows and page > 1:
        raise PageNotFound()
    ranked = [Ranked(start + i + 1, row) for i, row in enumerate(rows[:page_size])]
    return Leaderboard(variant, page, page_size, ranked, len(rows) > page_size)
