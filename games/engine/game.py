"""The flow of a match: deal, auction, tricks, end of hand, end of match.

The public surface, in the spirit of OpenSpiel and python-chess::

    step = new_match("clasico", {}, seed=7)        # Step(state, events)
    seat = current_seat(step.state)
    action = legal_actions(step.state, seat)[0]     # {"type": "play", "card": "O1"}
    step = apply_action(step.state, seat, action)   # a new state; the old one is untouched
    events = push(state, seat, action)              # the same, in place (bots, benchmarks)

An action is its JSON, as above, or an :class:`~games.engine.actions.Action`; the engine reads both
through :mod:`games.engine.actions` and writes its legal actions with :meth:`Action.to_json`.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from .actions import PASS, PLAYS, TRUMP_CHOICES, Action, read_field, read_type
from .auction import MAX_BID, bid_amounts, check_bid, record_bid
from .cards import CODES, POINTS, SUITS, cards_of
from .declarations import (
    DECLARED_CANTO,
    DECLARED_EXCHANGE,
    declarations,
    declare_tute,
    exchange,
    next_declarer,
    sing_suit,
)
from .errors import Code, IllegalAction
from .fair_deals import deck_for
from .fair_deals import first_dealer as fair_first_dealer
from .options import validate_options
from .state import Event, Log, Rules, State
from .tricks import legal_cards, refuse_card
from .variants import rules_for

_SYSTEM_RANDOM = secrets.SystemRandom()
#: The types of action each phase allows.
_EXPECTED = {
    "auction": ("bid", "pass"),
    "trump_choice": ("choose_trump",),
    "play": ("play",),
    "declare": ("sing", "tute", "exchange", "pass"),
}
#: Every bid the auctions allow, by its amount.
_BIDS = tuple(Action("bid", amount) for amount in range(MAX_BID + 1))


class Step(NamedTuple):
    """A state and the events that produced it."""

    state: State
    events: list[Event]


def rules_of(state: State) -> Rules:
    """The variant's rules for this state's options (a :class:`games.engine.variants.Variant`)."""
    return state.rules


def new_match(
    variant: str,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    *,
    first_dealer: int | None = None,
    decks: Iterable[Iterable[int]] = (),
    deal_key: bytes | None = None,
    client_seeds: Sequence[str | None] = (),
) -> Step:
    """A new match with its first hand dealt.

    With a ``seed`` every deal is reproducible (C12); with a ``deal_key`` (and the seats'
    ``client_seeds``) the first dealer and every deck come from :mod:`games.engine.fair_deals` (C12v);
    with neither, from the operating system's secure generator. ``first_dealer`` and ``decks`` replay
    recorded deals.
    """
    events: list[Event] = []
    state = _create(variant, options, seed, first_dealer, decks, deal_key, client_seeds)
    _start_hand(state, state.rules, events)
    return Step(state, events)


def _create(
    variant: str,
    options: Mapping[str, Any] | None,
    seed: int | None,
    first_dealer: int | None,
    decks: Iterable[Iterable[int]],
    deal_key: bytes | None = None,
    client_seeds: Sequence[str | None] = (),
) -> State:
    """A match with its scoreboard at zero and no hand dealt yet."""
    checked = validate_options(variant, options)
    state = State.__new__(State)
    state.variant, state.options, state.seed = variant, checked, seed
    rules = state.rules = rules_for(variant, checked)
    n = state.players = rules.players
    seeds = list(client_seeds) or [None] * n
    if deal_key is not None and len(seeds) != n:
        raise ValueError(f"{n} seats need {n} client seeds (None for a seat without one), not {len(seeds)}")
    state.fair_deals = (
        # the first dealer drawn from the key (C12v), or fixed by the service's rules (a ladder match, L1)
        {"key": deal_key.hex(), "seeds": seeds, "first_dealer": "drawn" if first_dealer is None else "fixed"}
        if deal_key is not None and seed is None
        else None
    )
    if first_dealer is None:  # C11: the first dealer is drawn at random
        if seed is not None:
            first_dealer = random.Random(f"{seed}:dealer").randrange(n)
        elif deal_key is not None:
            first_dealer = fair_first_dealer(deal_key, seeds, n)
        else:
            first_dealer = secrets.randbelow(n)
    state.status, state.hand_number, state.dealer = "active", 0, first_dealer
    state.scoreboard, state.results, state.winners = [0] * rules.sides, [], None
    state.decks = [list(deck) for deck in decks]
    state.last_trick, state.last_lead, state.last_winner = [], -1, -1
    return state


def current_seat(state: State) -> int | None:
    """The seat to act, or None once the match is over."""
    return state.turn if state.turn >= 0 else None


def legal_actions(state: State, seat: int | None = None) -> list[dict[str, Any]]:
    """Every action the seat to act may take, in a fixed order, shaped as the API posts them.

    Given a ``seat`` that is not to act, the list is empty.
    """
    if state.turn < 0 or (seat is not None and seat != state.turn):
        return []
    if state.phase == "play":
        return [PLAYS[c].to_json() for c in cards_of(legal_cards(state))]
    if state.phase == "auction":
        return [PASS.to_json(), *[_BIDS[a].to_json() for a in bid_amounts(state, state.rules)]]
    if state.phase == "declare":  # C10m
        return [*(a.to_json() for a in declarations(state, state.turn)), PASS.to_json()]
    return [choice.to_json() for choice in TRUMP_CHOICES]


def apply_action(state: State, seat: int, action: Action | Mapping[str, Any]) -> Step:
    """The state after ``seat`` takes ``action``, and its events; ``state`` itself is not changed.

    Raises :class:`IllegalAction` with the code of the rule broken.
    """
    new = state.copy()
    return Step(new, push(new, seat, action))


def push(state: State, seat: int, action: Action | Mapping[str, Any]) -> list[Event]:
    """Apply an action in place; returns its events. An illegal action raises and changes nothing."""
    events: list[Event] = []
    _act(state, seat, action, events)
    return events


def _act(state: State, seat: int, action: Action | Mapping[str, Any], events: Log) -> None:
    """Checks in this order: the match, the turn, the action's type, the phase, then the action's field."""
    if state.status != "active":
        raise IllegalAction(Code.MATCH_NOT_ACTIVE, "the match is over")
    if seat != state.turn:
        raise IllegalAction(Code.NOT_YOUR_TURN, f"it is seat {state.turn}'s turn, not seat {seat}'s")
    kind = read_type(action)
    expected = _EXPECTED[state.phase]
    if kind not in expected:
        raise IllegalAction(
            Code.ACTION_NOT_ALLOWED_NOW, f"{kind!r} is not allowed now; expected {' or '.join(expected)}"
        )
    value = read_field(kind, action).value
    if kind == "play":
        if not legal_cards(state) >> value & 1:
            raise refuse_card(state, value)
        play_card(state, value, events)
    elif kind == "choose_trump":
        _choose_trump(state, value, events)
    elif state.phase == "declare":
        _declare(state, kind, value, events)
    else:
        _bid(state, value, kind, events)


def play_card(state: State, card: int, events: Log) -> None:
    """The seat to act plays ``card``, which must be one of :func:`legal_cards` (C5)."""
    seat = state.turn
    bit = 1 << card
    state.hands[seat] ^= bit
    state.played |= bit
    trick = state.trick
    if not trick:
        state.winning_card, state.winning_seat = card, seat
    else:  # C6: the highest trump, else the highest card of the led suit
        best = state.winning_card
        if card // 10 == best // 10 and card > best or card // 10 == state.trump != best // 10:
            state.winning_card, state.winning_seat = card, seat
    trick.append(card)
    done = len(trick) == state.players
    if not done:
        state.turn = (seat + 1) % state.players
    if events is not None:
        events.append({"type": "card_played", "seat": seat, "data": {"card": CODES[card]}})
    if done:
        _finish_trick(state, events)


def _play_of(seat: int, card: int) -> dict[str, Any]:
    return {"seat": seat, "card": CODES[card]}


def _choose_trump(state: State, suit: int, events: Log) -> None:
    state.trump = suit  # SU4, SP2: the highest bidder chooses trump and leads
    state.phase = "play"
    state.lead = state.turn
    if events is not None:
        events.append({"type": "trump_chosen", "seat": state.turn, "data": {"suit": SUITS[suit]}})


def _declare(state: State, kind: str, suit: int, events: Log) -> None:
    """C10m: the seat to declare sings a suit, declares tute, exchanges (D4) or passes."""
    seat = state.turn
    if kind == "pass":
        state.declaring, state.declared = state.declaring[1:], 0
        if events is not None:
            events.append({"type": "pass", "seat": seat, "data": {}})
        next_declarer(state, events)
        return
    action = Action(kind, suit)
    if action not in declarations(state, seat):
        raise IllegalAction(Code.CANNOT_DECLARE, _cannot_declare(state, action), rule="C10m")
    if kind == "tute":
        declare_tute(state, seat, events, declared=True)
        state.declaring, state.declared = [], 0
        _finish_hand(state, state.rules, events)
        return
    if kind == "sing":
        sing_suit(state, seat, suit, events)
    else:
        exchange(state, seat, events, declared=True)
        state.declared |= DECLARED_EXCHANGE
    next_declarer(state, events)


def _cannot_declare(state: State, action: Action) -> str:
    kind, suit = action
    if kind == "sing":
        if state.sung >> suit & 1:
            return f"{SUITS[suit]} has been sung this hand (C7)"
        if state.declared & DECLARED_CANTO:
            return "one canto per player per won trick (C8)"
        return f"seat {state.turn} does not hold the king and the knight of {SUITS[suit]} (C7)"
    if kind == "tute":
        if not state.rules.tute:
            return f"no tute in {state.variant} (C9)"
        return f"seat {state.turn} holds neither the four kings nor the four knights (C9)"
    if state.declared & DECLARED_EXCHANGE:
        return "one exchange per won trick (D4)"
    return "no exchange now (D4): the 7 of trump goes for a face-up 1, 3, 12, 11 or 10, the 2 for a 4 to 7"


def _bid(state: State, amount: int, kind: str, events: Log) -> None:
    rules = state.rules
    seat = state.turn
    if kind == "bid":
        check_bid(state, rules, amount)
    else:
        amount = 0
    over = record_bid(state, rules, seat, amount)
    if over and state.high_bidder >= 0:  # SU4, SP2: the highest bidder chooses trump
        state.soloist = state.high_bidder
        state.phase, state.turn = "trump_choice", state.soloist
    if events is not None:
        event = {"type": "bid", "seat": seat, "data": {"amount": amount}} if amount else None
        events.append(event or {"type": "pass", "seat": seat, "data": {}})
    if over and state.high_bidder < 0:  # SU3, SP2: nobody bid; the hand is passed
        _finish_hand(state, rules, events)


def _finish_trick(state: State, events: Log) -> None:
    """C6: the trick's winner takes its points and leads the next, after the declarations."""
    rules = state.rules
    winner, trick, lead = state.winning_seat, state.trick, state.lead
    points = sum(map(POINTS.__getitem__, trick))
    last = not any(state.hands)
    if last:
        points += 10  # C4: diez de últimas
    state.taken[winner] += points
    state.tricks_won[winner] += 1
    state.last_won[winner] = state.trick_number
    state.trick_number += 1
    state.last_trick, state.last_lead, state.last_winner, state.trick = trick, lead, winner, []
    state.tricks.append([lead, trick])
    state.turn = state.lead = winner
    seats = rules.seats_from[lead]
    if events is not None:
        events.append({
            "type": "trick_won",
            "seat": winner,
            "data": {"trick": list(map(_play_of, seats, trick)), "points": points, "last": last},
        })
    if rules.after_trick(state, winner, last, events) or last:
        _finish_hand(state, rules, events)


def _start_hand(state: State, rules: Rules, events: Log) -> None:
    n = rules.players
    state.hand_number += 1
    deck = _next_deck(state, rules)
    state.hands, state.seen, state.played = [0] * n, [0] * n, 0
    state.trump, state.trump_card, state.face_up, state.stock = -1, -1, -1, []
    # M4: the last completed trick, of the hand before when this one has none yet, stays visible.
    state.trick, state.trick_number, state.tricks = [], 0, []
    state.winning_card, state.winning_seat = -1, -1
    state.taken, state.sung_points = [0] * n, [0] * n
    state.tricks_won, state.last_won = [0] * n, [-1] * n
    state.sung, state.cantos, state.tute = 0, [], None
    state.bids, state.passed, state.auction_turns = [], 0, 0
    state.high_bid, state.high_bidder, state.soloist = 0, -1, -1
    state.declaring, state.declared = [], 0
    rules.deal(state, deck)
    mano = (state.dealer + 1) % n
    state.phase = "auction" if rules.auction else "play"
    state.turn = state.lead = mano  # C11, CL2, SU2, D1: the mano bids or leads first
    if events is not None:
        events.append({
            "type": "hand_started",
            "seat": None,
            "data": {
                "hand": state.hand_number,
                "dealer": state.dealer,
                "mano": mano,
                "deck": [CODES[c] for c in deck],
                "hands": [[CODES[c] for c in cards_of(h)] for h in state.hands],
                "trump": SUITS[state.trump] if state.trump >= 0 else None,
                "trump_card": CODES[state.trump_card] if state.trump_card >= 0 else None,
                "face_up": CODES[state.face_up] if state.face_up >= 0 else None,
                "stock": [CODES[c] for c in reversed(state.stock)],
            },
        })
    tute_on_deal = rules.tute and state.options.get("tute_on_deal")  # C9: a tute straight from the deal
    if tute_on_deal and any(declare_tute(state, (mano + i) % n, events) for i in range(n)):
        _finish_hand(state, rules, events)


def _next_deck(state: State, rules: Rules) -> list[int]:
    """C12: a recorded deal when replaying, else a seeded shuffle, a verifiable one (C12v) or a secure one."""
    if state.decks:
        return state.decks.pop(0)
    deck = cards_of(rules.deck)
    if state.seed is not None:
        draw = random.Random(f"{state.seed}:{state.hand_number}").random
        deck.sort(key=lambda _: draw())  # a uniform shuffle, twice as fast as random.shuffle
    elif state.fair_deals is not None:
        fair = state.fair_deals
        deck = deck_for(bytes.fromhex(fair["key"]), fair["seeds"], state.hand_number, deck)
    else:
        _SYSTEM_RANDOM.shuffle(deck)
    return deck


def _finish_hand(state: State, rules: Rules, events: Log) -> None:
    """Score the hand (or record it passed), then end the match or deal the next hand."""
    if state.soloist < 0 and rules.auction:
        result: dict[str, Any] = {"passed": True}
    else:
        result = rules.score_hand(state)
        if state.tute is not None:
            result["tute"] = {"seat": state.tute[0], "kind": ("kings", "knights")[state.tute[1]]}
    result = {"hand": state.hand_number, "dealer": state.dealer, **result, "scoreboard": list(state.scoreboard)}
    state.results.append(result)
    if events is not None:
        events.append({"type": "hand_finished", "seat": None, "data": dict(result)})
    winners = rules.match_winners(state)
    if winners is not None:
        state.status, state.phase, state.turn, state.winners = "finished", "over", -1, winners
        seats = [s for s in range(rules.players) if rules.side_of(s) in winners]
        if events is not None:
            events.append({
                "type": "match_finished",
                "seat": None,
                "data": {"winners": winners, "winner_seats": seats, "scoreboard": list(state.scoreboard)},
            })
        return
    state.dealer = (state.dealer + 1) % rules.players  # C11: the deal passes to the next seat
    _start_hand(state, rules, events)
