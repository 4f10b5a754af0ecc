"""Who sits with whom: the pairing of a queue's pool, pure (no framework), as Lichess's pools pair.

Each waiting player searches a rating range around their own rating that widens with their wait; a
table forms from players next to each other by rating whose spread fits every member's range. Once a
player has waited the maximum, built-in bots fill the seats that players of about their strength do
not take. A table never seats a registered HTTP bot with a player who asked for humans only, and
always has one player who is not a bot.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The range searched at once (rating points either side), and how much it widens each second.
RANGE_BASE = 100.0
RANGE_PER_SECOND = 25.0


def search_range(waited: float) -> float:
    """The rating points either side a player searches after waiting ``waited`` seconds."""
    return RANGE_BASE + RANGE_PER_SECOND * max(waited, 0.0)


@dataclass(frozen=True)
class Waiter:
    key: str
    rating: float
    waited: float
    is_bot: bool = False
    humans_only: bool = False


@dataclass(frozen=True)
class Table:
    """Players who sit together, and how many seats built-in bots take."""

    players: tuple[Waiter, ...]
    bots: int


def _fits(group: list[Waiter]) -> bool:
    if all(w.is_bot for w in group):
        return False
    if any(w.humans_only for w in group) and any(w.is_bot for w in group):
        return False
    spread = max(w.rating for w in group) - min(w.rating for w in group)
    return spread <= min(search_range(w.waited) for w in group)


def tables(waiting: list[Waiter], seats: int, max_wait: float) -> list[Table]:
    """The tables to seat now from ``waiting``; the players left out wait on."""
    by_rating = sorted(waiting, key=lambda w: (w.rating, -w.waited))
    found: list[Table] = []
    left: list[Waiter] = []
    i = 0
    while i < len(by_rating):
        window = by_rating[i : i + seats]
        if len(window) == seats and _fits(window):
            found.append(Table(tuple(window), 0))
            i += seats
        else:
            left.append(by_rating[i])
            i += 1
    # Those who waited the maximum: the nearest by rating within their range join them, bots fill the rest.
    for first in sorted(left, key=lambda w: -w.waited):
        if first not in left or first.waited < max_wait or first.is_bot:
            continue
        group = [first]
        for other in sorted(left, key=lambda w: abs(w.rating - first.rating)):
            if len(group) == seats:
                break
            if other is not first and _fits([*group, other]):
                group.append(other)
        for w in group:
            left.remove(w)
        found.append(Table(tuple(group), seats - len(group)))
    return found


def bot_level(ratings: list[float], anchors: dict[str, float]) -> str:
    """The built-in level whose fixed rating is nearest the players' mean."""
    mean = sum(ratings) / len(ratings)
    return min(anchors, key=lambda level: abs(anchors[level] - mean))
