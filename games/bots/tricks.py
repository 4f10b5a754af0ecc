"""What a bot reads from its view of a trick: who is winning it, with what, and which cards would win."""

from __future__ import annotations

from typing import Any

from games.engine.cards import KING, KNIGHT, POINTS, SUITS, parse


def trump_of(view: dict[str, Any]) -> int:
    trump = view["hand"]["trump"]
    return SUITS.index(trump) if trump else -1


def beats(card: int, best: int, trump: int) -> bool:
    """C6: whether ``card`` takes a trick that ``best`` is winning."""
    if card // 10 == best // 10:
        return card > best
    return card // 10 == trump


def trick_state(view: dict[str, Any]) -> tuple[int, int, int]:
    """The card winning the trick in progress, its seat, and the trick's points (-1, -1, 0 when empty)."""
    trump = trump_of(view)
    best, best_seat, points = -1, -1, 0
    for play in view["hand"]["trick"]:
        card = parse(play["card"])
        points += POINTS[card]
        if best < 0 or beats(card, best, trump):
            best, best_seat = card, play["seat"]
    return best, best_seat, points


def can_still_sing(card: int, hand: list[int], sung_suits: set[int]) -> bool:
    """A king or knight whose partner card is in hand and whose suit has not been sung (C7)."""
    rank, suit = card % 10, card // 10
    if rank not in (KING, KNIGHT) or suit in sung_suits:
        return False
    other = suit * 10 + (KNIGHT if rank == KING else KING)
    return other in hand


def cheapest(cards: list[int], trump: int, keep: set[int]) -> int:
    """The card that costs least to give away: no points, not trump, not a canto in waiting, weakest."""
    return min(cards, key=lambda c: (c in keep, c // 10 == trump, POINTS[c], c % 10))


def lowest_winner(cards: list[int], best: int, trump: int) -> int | None:
    """The weakest card that would take the trick (non-trumps before trumps), or None."""
    winners = [c for c in cards if best < 0 or beats(c, best, trump)]
    if not winners:
        return None
    return min(winners, key=lambda c: (c // 10 == trump, c % 10))
