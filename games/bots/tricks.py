"""What a bot reads from its view of a trick: who is winning it, with what, and which cards would win."""

from __future__ import annotations

from typing import Any

from games.engine.cards import ACE, KING, KNIGHT, POINTS, SUITS, parse


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


#: With this many trumps or more (cantos in waiting aside), a leader with no plain ace draws trumps.
DRAW_TRUMPS = 3


def lead_by_rules(cards: list[int], trump: int, keep: set[int], draw_trumps: bool, master_trump: int) -> int:
    """level-2's lead, which level-3 shares: a plain ace, which wins at once; else, once the duties apply
    (``draw_trumps``) and holding :data:`DRAW_TRUMPS` trumps, a trump to draw the rivals': the top one when
    it is ``master_trump`` (the highest trump still in play), else the lowest; else the cheapest card.
    """
    aces = [c for c in cards if c % 10 == ACE and c // 10 != trump]
    if aces:
        return aces[0]
    trumps = [c for c in cards if c // 10 == trump and c not in keep]
    if draw_trumps and len(trumps) >= DRAW_TRUMPS:
        return max(trumps) if max(trumps) == master_trump else min(trumps)
    return cheapest(cards, trump, keep)


def follow_by_rules(
    cards: list[int], best: int, partner_winning: bool, last_to_play: bool, points: int, trump: int, keep: set[int]
) -> int:
    """level-2's card to a trick led by another, which level-3 shares.

    A partner's trick is fed points when it is sure (I play last) or held by an ace; else it gets the cheapest
    card. A rival's trick is taken with the weakest card that takes it, sparing cantos in waiting, unless
    that spends a trump on a trick worth nothing before everyone has played; else the cheapest card.
    """
    if partner_winning:
        if last_to_play or best % 10 == ACE:
            spare = [c for c in cards if c not in keep and c // 10 != trump]
            return max(spare or cards, key=lambda c: (POINTS[c], -(c % 10)))
        return cheapest(cards, trump, keep)
    winner = lowest_winner([c for c in cards if c not in keep], best, trump)
    if winner is None:
        winner = lowest_winner(cards, best, trump)
    if winner is not None:
        wasted_trump = winner // 10 == trump and points == 0 and not last_to_play
        if not wasted_trump or all(c // 10 == trump for c in cards):
            return winner
    return cheapest(cards, trump, keep)
