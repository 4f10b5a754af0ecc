"""Property tests: seeded random matches of every variant and player count, played to their end.

At every turn the engine is checked against the independent :class:`Referee` (and the C5 of
``helpers``): what it offers, what it refuses and with which code, every event it records, what each
seat may see, and that the state survives JSON; at the end, that the log replays to the same state.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    IllegalAction,
    State,
    apply_action,
    current_seat,
    from_json,
    legal_actions,
    new_match,
    push,
    redact,
    replay,
    to_json,
    view,
)

from .helpers import ALL_CODES, SUITS, codes_in, points
from .referee import Referee

# -- a random policy that lets every match end -------------------------------------------------


def choose(state: State, actions: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    """A random legal action. In the auctions a seat holding 35 card points bids the lowest, others pass
    (now and then any bid): uniformly random bids are nearly always burnt and subastado_parejas would
    go negative for ever. The soloist takes their longest suit."""
    if state.phase == "auction":
        hand = view(state, state.turn)["my_hand"]
        strong = sum(points(x) for x in hand) >= 35
        r = rnd.random()
        if r < 0.03:
            return rnd.choice(actions)
        if len(actions) > 1 and (r < 0.9 if strong else r < 0.1):
            return actions[1]  # the lowest bid
        return actions[0]  # pass
    if state.phase == "trump_choice":
        if rnd.random() < 0.2:
            return rnd.choice(actions)
        hand = view(state, state.turn)["my_hand"]
        return max(actions, key=lambda a: sum(1 for x in hand if x[0] == a["suit"]))
    return rnd.choice(actions)


# -- the checks at each turn -------------------------------------------------------------------


class Visibility:
    """The cards each seat has seen in the hand, worked out from the unredacted events alone."""

    def __init__(self, players: int):
        self.n = players
        self.seen: dict[int | None, set[str]] = {s: set() for s in [*range(players), None]}
        self.last_trick: set[str] = set()  # M4: shown until a trick of the next hand is won

    def feed(self, event: dict[str, Any]) -> None:
        kind, seat, data = event["type"], event["seat"], event["data"]
        public: set[str] = set()
        if kind == "hand_started":
            for s in self.seen:
                self.seen[s] = set(data["hands"][s]) if s is not None else set()
            public = {x for x in (data["trump_card"], data["face_up"]) if x} | self.last_trick
        elif kind == "trick_won":
            self.last_trick = {play["card"] for play in data["trick"]}
        elif kind == "draw":
            if data.get("face_up"):
                public = {data["card"]}
            else:
                self.seen[seat].add(data["card"])
        elif kind == "card_played":
            public = {data["card"]}
        elif kind in ("canto", "tute"):
            public = set(data["cards"])
        elif kind == "exchange":
            public = {data["gave"], data["took"]}
        for s in self.seen:
            self.seen[s] |= public

    def check_event(self, event: dict[str, Any]) -> None:
        written: list[tuple[dict[str, Any], set[str]]] = []  # each distinct redacted event (most are shared)
        for s in self.seen:
            shown = redact(event, s)
            codes = next((codes for other, codes in written if other is shown), None)
            if codes is None:
                codes = codes_in(shown)
                written.append((shown, codes))
            leaked = codes - self.seen[s]
            assert not leaked, f"seat {s} sees {leaked} in {shown}"

    def check_view(self, state: State) -> None:
        for s in self.seen:
            leaked = codes_in(view(state, s)) - self.seen[s]
            assert not leaked, f"seat {s} sees {leaked} in its view"


def check_turn(state: State, ref: Referee) -> None:
    """What the engine offers and refuses at this turn, against the referee."""
    seat = current_seat(state)
    assert seat == ref.seat_to_act()
    n = state.players
    actions = legal_actions(state, seat)
    assert legal_actions(state) == actions and actions
    assert legal_actions(state, (seat + 1) % n) == []
    error = _refused(state, (seat + 1) % n, actions[0])
    assert error.code == "not_your_turn"
    for action in actions:  # every legal action is accepted
        apply_action(state, seat, action)
    h = ref.hand
    if state.phase == "play":
        hand = set(view(state, seat)["my_hand"])
        assert hand == h["hands"][seat]
        offered = {a["card"] for a in actions}
        assert offered == ref.legal(seat)
        for code in ALL_CODES:  # every card not offered is refused, naming the duty
            if code not in offered:
                error = _refused(state, seat, {"type": "play", "card": code})
                assert error.code == ref.refusal(seat, code), (code, error.code, error.message)
        assert _refused(state, seat, {"type": "pass"}).code == "action_not_allowed_now"
    elif state.phase == "auction":
        step, lowest = ref.options["bid_step"], ref.options["min_bid"]
        start = h["high"] + step if h["high"] else lowest
        assert actions == [{"type": "pass"}, *({"type": "bid", "amount": a} for a in range(start, 231, step))]
        assert _refused(state, seat, {"type": "bid", "amount": start - step}).code == "bid_too_low"
        if start < 230:
            assert _refused(state, seat, {"type": "bid", "amount": start + 1}).code == "invalid_bid"
        assert _refused(state, seat, {"type": "bid", "amount": max(235, start)}).code in ("invalid_bid", "bid_too_low")
        assert _refused(state, seat, {"type": "bid", "amount": str(start)}).code == "invalid_action"
        assert _refused(state, seat, {"type": "play", "card": "O1"}).code == "action_not_allowed_now"
    elif state.phase == "declare":  # C10m
        assert actions == [*ref.declaration_actions(seat), {"type": "pass"}]
        for s in SUITS:
            if {"type": "sing", "suit": s} not in actions:
                assert _refused(state, seat, {"type": "sing", "suit": s}).code == "cannot_declare"
        for kind in ("tute", "exchange"):
            if {"type": kind} not in actions:
                assert _refused(state, seat, {"type": kind}).code == "cannot_declare"
        assert _refused(state, seat, {"type": "sing", "suit": "X"}).code == "invalid_suit"
        assert _refused(state, seat, {"type": "play", "card": "O1"}).code == "action_not_allowed_now"
    else:
        assert actions == [{"type": "choose_trump", "suit": s} for s in SUITS]
        assert _refused(state, seat, {"type": "choose_trump", "suit": "X"}).code == "invalid_suit"


def _refused(state: State, seat: int, action: dict[str, Any]) -> IllegalAction:
    try:
        push(state, seat, action)
    except IllegalAction as error:
        return error
    raise AssertionError(f"{action} by seat {seat} was accepted")


def check_view(state: State, ref: Referee, last_trick: list[dict[str, Any]], last_winner: int | None) -> None:
    """M4 and the view's counts, against the referee."""
    if state.status != "active":
        return
    h = ref.hand["hands"] if ref.hand else None
    shown = view(state, None)["hand"]
    if h is not None:
        assert shown["hand_sizes"] == [len(x) for x in h]
    assert shown["stock_count"] == len(ref.hand["stock"]) + (ref.hand["face_up"] is not None)
    assert shown["trick"] == [{"seat": s, "card": x} for s, x in ref.hand["trick"]]
    assert shown["last_trick"] == last_trick  # M4: the finished trick stays visible
    assert shown["last_trick_winner"] == last_winner
    assert shown["trump"] == ref.hand["trump"]


def roundtrip(state: State) -> None:
    data = json.loads(json.dumps(to_json(state)))
    again = from_json(data)
    assert again == state
    assert to_json(again) == to_json(state)


# -- the match ---------------------------------------------------------------------------------


def full_checks(state: State) -> bool:
    """Whether every check runs in this hand: the first three and every fifth (long subastado matches
    stay fast). The referee, and the replay of the whole match, follow every hand."""
    return state.hand_number <= 3 or state.hand_number % 5 == 0


def play_match(variant: str, options: dict[str, Any], seed: int) -> None:
    rnd = random.Random(seed)
    start = new_match(variant, options, seed=seed)
    state = start.state
    ref = Referee(variant, dict(state.options), state.players)
    seen = Visibility(state.players)
    log: list[dict[str, Any]] = []
    actions: list[tuple[int, dict[str, Any]]] = []
    last_trick: list[dict[str, Any]] = []
    last_winner: int | None = None

    def record(events: list[dict[str, Any]]) -> None:
        nonlocal last_trick, last_winner
        for event in events:
            ref.feed(event)
            seen.feed(event)
            if full_checks(state):
                seen.check_event(event)
            if event["type"] == "trick_won":  # M4: it stays shown, across the deal of the next hand too
                last_trick, last_winner = event["data"]["trick"], event["seat"]
        log.extend(events)

    record(start.events)
    while state.status == "active":
        if full_checks(state):
            check_turn(state, ref)
            check_view(state, ref, last_trick, last_winner)
            seen.check_view(state)
            roundtrip(state)
        seat = current_seat(state)
        assert seat is not None
        action = choose(state, legal_actions(state, seat), rnd)
        record(push(state, seat, action))
        actions.append((seat, action))
    assert ref.finished and ref.expect == [] and not ref.pending
    assert state.winners == ref.winners
    assert current_seat(state) is None and legal_actions(state) == []
    assert _refused(state, 0, {"type": "pass"}).code == "match_not_active"
    seen.check_view(state)
    roundtrip(state)

    # C12: the seed and the actions make the same match; so does the log alone.
    again = new_match(variant, options, seed=seed)
    events = list(again.events)
    for seat, action in actions:
        events += push(again.state, seat, action)
    assert again.state == state and events == log
    rebuilt = replay(variant, options, log)
    assert rebuilt.events == log
    assert {**to_json(rebuilt.state), "seed": seed} == to_json(state)


SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


@given(seed=SEEDS, games=st.integers(1, 2), tute_on_deal=st.booleans())
def test_random_clasico_matches(seed: int, games: int, tute_on_deal: bool) -> None:
    play_match("clasico", {"games_to_win": games, "tute_on_deal": tute_on_deal}, seed)


@given(
    seed=SEEDS,
    players=st.sampled_from([3, 4]),
    letters=st.integers(1, 2),
    zero_rule=st.sampled_from(["points", "tricks"]),
)
def test_random_cabron_matches(seed: int, players: int, letters: int, zero_rule: str) -> None:
    play_match("cabron", {"players": players, "letters": letters, "zero_rule": zero_rule}, seed)


@given(
    seed=SEEDS,
    rounds=st.sampled_from([1, "many"]),
    step=st.sampled_from([5, 10]),
    min_bid=st.sampled_from([50, 60, 70]),
    failed=st.sampled_from(["each", "split"]),
)
def test_random_subastado_matches(seed: int, rounds: int | str, step: int, min_bid: int, failed: str) -> None:
    options = {"auction_rounds": rounds, "bid_step": step, "min_bid": min_bid, "failed_bid": failed}
    play_match("subastado", options, seed)


@given(
    seed=SEEDS,
    size=st.sampled_from([8, 6]),
    games=st.integers(1, 3),
    arrastre=st.booleans(),
    tute_on_deal=st.booleans(),
)
def test_random_dos_matches(seed: int, size: int, games: int, arrastre: bool, tute_on_deal: bool) -> None:
    options = {"hand_size": size, "games_to_win": games, "cantos_in_arrastre": arrastre, "tute_on_deal": tute_on_deal}
    play_match("dos", options, seed)


@given(seed=SEEDS, players=st.sampled_from([3, 4]), games=st.integers(1, 2), tute_on_deal=st.booleans())
def test_random_individual_matches(seed: int, players: int, games: int, tute_on_deal: bool) -> None:
    play_match("individual", {"players": players, "games_to_win": games, "tute_on_deal": tute_on_deal}, seed)


@given(seed=SEEDS, step=st.sampled_from([5, 10]), min_bid=st.sampled_from([50, 60, 70]))
def test_random_subastado_parejas_matches(seed: int, step: int, min_bid: int) -> None:
    play_match("subastado_parejas", {"bid_step": step, "min_bid": min_bid}, seed)


# -- C10m: the same matches with the players declaring ---------------------------------------------


@given(
    seed=SEEDS,
    variant=st.sampled_from(["clasico", "individual", "subastado", "subastado_parejas"]),
    tute_on_deal=st.booleans(),
)
def test_C10m_random_manual_matches_follow_the_referee(seed: int, variant: str, tute_on_deal: bool) -> None:
    options: dict[str, Any] = {"declarations": "manual"}
    if variant in ("clasico", "individual"):
        options |= {"games_to_win": 1, "tute_on_deal": tute_on_deal}
    play_match(variant, options, seed)


@given(seed=SEEDS, size=st.sampled_from([8, 6]), arrastre=st.booleans())
def test_C10m_random_manual_dos_matches_follow_the_referee(seed: int, size: int, arrastre: bool) -> None:
    options = {"declarations": "manual", "hand_size": size, "games_to_win": 2, "cantos_in_arrastre": arrastre}
    play_match("dos", options, seed)
