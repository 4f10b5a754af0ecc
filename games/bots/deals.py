"""Determinization: deals of the unseen cards consistent with a seat's knowledge, and engine states built on them.

A :class:`Deal` gives every other hand and the face-down stock; :func:`sample_deal` draws one consistent
with everything public (hand sizes, shown cards, inferred voids), :func:`count_deals` tells whether the
cards are determined, and :func:`build_state` makes a full engine :class:`State` of the hand in progress
on which the fast path (:func:`legal_cards`, :func:`play_card`) plays to the end of the hand.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any, NamedTuple

from games.engine import VARIANT_CLASSES, State, Variant, new_match
from games.engine.cards import SUITS, cards_of, parse

from .knowledge import Knowledge, trick_winner


class Deal(NamedTuple):
    """Every hand (mine included) and the face-down stock, the next card to draw last."""

    hands: list[int]
    stock: list[int]


def _needs(k: Knowledge) -> list[int]:
    """How many unknown cards each seat's hand still takes; the stock's share last."""
    needs = [0 if s == k.me else k.sizes[s] - k.known[s].bit_count() for s in range(k.players)]
    return [*needs, k.stock_hidden]


def _allowed(k: Knowledge, needs: list[int]) -> dict[int, list[int]]:
    """For each unknown card, the holders it may go to (seat numbers; ``players`` is the stock)."""
    out: dict[int, list[int]] = {}
    n = k.players
    for card in cards_of(k.unknown):
        holders = [s for s in range(n) if needs[s] and not k.cannot[s] >> card & 1]
        if needs[n]:
            holders.append(n)
        out[card] = holders
    return out


def sample_deal(k: Knowledge, rng: random.Random, tries: int = 30) -> Deal:
    """A random deal of the unknown cards consistent with ``k``.

    Cards go most-constrained first, each to a holder drawn in proportion to the room it has left; a dead
    end retries, and after ``tries`` a randomized exhaustive search decides. Raises ``ValueError`` when no
    deal is consistent (which a view of a real match never gives).
    """
    needs = _needs(k)
    n = k.players
    if not any(k.cannot[s] & k.unknown for s in range(n) if needs[s]):
        cards = cards_of(k.unknown)  # nothing inferred: a plain shuffle is a uniform deal
        if sum(needs) != len(cards):
            raise ValueError("the hand sizes do not match the unknown cards")
        rng.shuffle(cards)
        parts, start = [], 0
        for need in needs:
            parts.append(cards[start : start + need])
            start += need
        return _deal_of(k, parts, rng)
    allowed = _allowed(k, needs)
    if sum(needs) != len(allowed):
        raise ValueError("the hand sizes do not match the unknown cards")
    cards = list(allowed)
    for _ in range(tries):
        rng.shuffle(cards)
        cards.sort(key=lambda c: len(allowed[c]))
        room = list(needs)
        got: list[list[int]] = [[] for _ in range(n + 1)]
        for card in cards:
            holders = [h for h in allowed[card] if room[h]]
            if not holders:
                break
            total = sum(room[h] for h in holders)
            pick = rng.randrange(total)
            for holder in holders:
                pick -= room[holder]
                if pick < 0:
                    break
            room[holder] -= 1
            got[holder].append(card)
        else:
            return _deal_of(k, got, rng)
    got_or_none = _search(cards, allowed, list(needs), rng, n)
    if got_or_none is None:
        raise ValueError("no deal is consistent with this view")
    return _deal_of(k, got_or_none, rng)


def _search(
    cards: list[int], allowed: dict[int, list[int]], room: list[int], rng: random.Random, n: int
) -> list[list[int]] | None:
    got: list[list[int]] = [[] for _ in range(n + 1)]
    cards = sorted(cards, key=lambda c: len(allowed[c]))

    def place(i: int) -> bool:
        if i == len(cards):
            return True
        holders = [h for h in allowed[cards[i]] if room[h]]
        rng.shuffle(holders)
        for holder in holders:
            room[holder] -= 1
            got[holder].append(cards[i])
            if place(i + 1):
                return True
            got[holder].pop()
            room[holder] += 1
        return False

    return got if place(0) else None


def count_deals(k: Knowledge, limit: int = 2) -> int:
    """How many deals are consistent with ``k``, counted up to ``limit`` (1 means the cards are determined)."""
    needs = _needs(k)
    allowed = _allowed(k, needs)
    if sum(needs) != len(allowed):
        return 0
    if needs[k.players]:
        return limit  # face-down stock cards are never determined while it has two or more
    cards = sorted(allowed, key=lambda c: len(allowed[c]))
    room = list(needs)
    found = 0

    def place(i: int) -> None:
        nonlocal found
        if found >= limit:
            return
        if i == len(cards):
            found += 1
            return
        for holder in allowed[cards[i]]:
            if room[holder]:
                room[holder] -= 1
                place(i + 1)
                room[holder] += 1

    place(0)
    return found


def all_deals(k: Knowledge, limit: int) -> list[Deal] | None:
    """Every deal consistent with ``k`` when there are at most ``limit``, else None (no stock cards allowed)."""
    needs = _needs(k)
    allowed = _allowed(k, needs)
    if needs[k.players] or sum(needs) != len(allowed):
        return None
    cards = sorted(allowed, key=lambda c: len(allowed[c]))
    room = list(needs)
    got: list[list[int]] = [[] for _ in range(k.players + 1)]
    found: list[Deal] = []

    def place(i: int) -> bool:
        if i == len(cards):
            found.append(_deal_of(k, [list(g) for g in got], random.Random(0)))
            return len(found) <= limit
        for holder in allowed[cards[i]]:
            if room[holder]:
                room[holder] -= 1
                got[holder].append(cards[i])
                going = place(i + 1)
                got[holder].pop()
                room[holder] += 1
                if not going:
                    return False
        return True

    return found if place(0) else None


def _deal_of(k: Knowledge, got: list[list[int]], rng: random.Random) -> Deal:
    hands = list(k.known)
    for seat in range(k.players):
        for card in got[seat]:
            hands[seat] |= 1 << card
    stock = got[k.players]
    rng.shuffle(stock)
    return Deal(hands, stock)


def determined_deal(k: Knowledge) -> Deal | None:
    """The one deal consistent with ``k`` when the cards are determined, else None."""
    if count_deals(k, 2) != 1:
        return None
    got = _search(cards_of(k.unknown), _allowed(k, _needs(k)), _needs(k), random.Random(0), k.players)
    return _deal_of(k, got, random.Random(0)) if got is not None else None


@cache
def search_rules(variant: str, options: tuple[tuple[str, Any], ...]) -> Variant:
    """The variant's rules with the match ending after the hand being played, so a search never deals again."""
    base = VARIANT_CLASSES[variant]

    def match_winners(self: Variant, state: State) -> list[int] | None:
        return []

    cls = type(f"Search{base.__name__}", (base,), {"match_winners": match_winners})
    rules: Variant = cls(dict(options))
    rules.manual = False  # C10m: every seat declares as the table would, so a search lets the table declare
    return rules


@cache
def _template(variant: str, options: tuple[tuple[str, Any], ...]) -> State:
    return new_match(variant, dict(options), seed=0, first_dealer=0).state


def build_state(view: dict[str, Any], k: Knowledge, deal: Deal) -> State:
    """The hand in progress as a full engine state, with the hidden cards of ``deal``.

    The state ends the match when the hand ends (``status == "finished"``), its result in
    ``state.results[-1]``.
    """
    key = tuple(sorted(view["options"].items()))
    state = _template(k.variant, key).copy()
    hv = view["hand"]
    n = k.players
    state.rules = search_rules(k.variant, key)
    state.hand_number, state.dealer = hv["number"], k.dealer
    state.scoreboard, state.results, state.winners, state.status = list(view["scoreboard"]), [], None, "active"
    state.phase, state.turn = k.phase, k.turn
    state.hands, state.stock = list(deal.hands), list(deal.stock)
    state.seen = list(k.shown)
    state.trump = k.trump
    state.trump_card = _card(hv["trump_card"])
    state.face_up = k.face_up
    state.tricks = [[plays[0][0], [c for _, c in plays]] for plays in k.tricks]
    state.trick_number = len(k.tricks)
    state.trick = [c for _, c in k.trick]
    if k.trick:
        state.lead = k.trick[0][0]
        state.winning_seat, state.winning_card = trick_winner(k.trick, k.trump)
    else:
        state.lead = k.turn if k.phase == "play" else (k.dealer + 1) % n
        state.winning_seat, state.winning_card = -1, -1
    if k.tricks:
        state.last_lead, state.last_trick = k.tricks[-1][0][0], [c for _, c in k.tricks[-1]]
        state.last_winner = state.lead  # the leader of the trick in play, or the one to lead: the last winner
    else:
        state.last_lead, state.last_trick, state.last_winner = -1, [], -1
    state.played = k.played
    state.sung_points = list(k.sung_points)
    state.taken = [k.points[s] - k.sung_points[s] for s in range(n)]
    state.tricks_won = list(hv["tricks_won"])
    state.last_won = [-1] * n
    for number, winner in enumerate(k.winners):
        state.last_won[winner] = number
    state.sung = k.sung
    state.cantos = [[c["seat"], SUITS.index(c["suit"]), c["points"]] for c in hv["cantos"]]
    state.tute = None
    state.bids = [[s, a] for s, a in k.bids]
    state.passed = sum(1 << s for s, a in k.bids if not a)
    state.auction_turns = len(k.bids)
    state.high_bid = max((a for _, a in k.bids), default=0)
    bidders = [s for s, a in k.bids if a == state.high_bid and a]
    state.high_bidder = bidders[-1] if bidders else -1
    state.soloist = k.soloist
    state.decks = []
    return state


def _card(code: str | None) -> int:
    return parse(code) if code else -1
