"""Illegal actions over HTTP: each kind gives its code (409 for a turn or a match that moved on,
422 naming the rule for a rule broken, 400 for a malformed action) and changes nothing."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import engine
from games.matches.models import Event, Match
from tests.problems import problem

from .helpers import Table, choose, human_table

pytestmark = pytest.mark.django_db

Finder = Callable[[engine.State, int, dict[str, Any]], dict[str, Any] | None]


def snapshot(table: Table) -> tuple[int, Any, int]:
    match = Match.objects.get(pk=table.match_id)
    return match.seq, match.state, Event.objects.filter(match=match).count()


def play_until(table: Table, find: Finder, seed: int = 0, limit: int = 400) -> tuple[int, dict[str, Any]]:
    """Play random legal actions until ``find`` returns an action for the seat to act; returns both."""
    rng = random.Random(seed)
    for _ in range(limit):
        match = Match.objects.get(pk=table.match_id)
        state = engine.from_json(match.state)
        seat = engine.current_seat(state)
        assert seat is not None, "the match ended before the situation arose"
        view = table.view(seat)
        action = find(state, seat, view)
        if action is not None:
            return seat, action
        assert table.seats[seat].post(table.url("/actions"), choose(rng, view["legal_actions"])).status_code == 200
    pytest.fail("the situation did not arise")


def refused_card(code: str) -> Finder:
    """A card of the hand that the rules refuse with ``code``."""

    def find(state: engine.State, seat: int, view: dict[str, Any]) -> dict[str, Any] | None:
        if view["hand"]["phase"] != "play":
            return None
        for card in view["my_hand"]:
            try:
                engine.apply_action(state, seat, {"type": "play", "card": card})
            except engine.IllegalAction as exc:
                if exc.code == code:
                    return {"type": "play", "card": card}
        return None

    return find


@pytest.mark.parametrize("code, rule", [
    ("must_follow_suit", "C5.a"),
    ("must_beat", "C5.b"),
    ("must_trump", "C5.c"),
    ("must_overtrump", "C5.d"),
])  # fmt: skip
def test_a_card_the_duties_of_c5_refuse_is_422_naming_the_rule(code, rule):
    table = human_table("clasico", {"games_to_win": 9}, seed=8)
    seat, action = play_until(table, refused_card(code))
    before = snapshot(table)
    body = problem(table.seats[seat].post(table.url("/actions"), action), 422, code)
    assert body["rule"] == rule
    assert action["card"] in body["detail"]
    assert snapshot(table) == before


def test_an_engine_refusal_is_told_in_the_service_voice():
    """The engine's messages ("it is seat 1's turn, not seat 0's") reach clients as every other detail: a
    sentence, capitalized, with a full stop, and no Markdown."""
    table = human_table("clasico", {"games_to_win": 1}, seed=2)
    waiting = next(s for s in range(4) if s != table.view(0)["hand"]["turn"])
    body = problem(table.seats[waiting].post(table.url("/actions"), {"type": "pass"}), 409, "not_your_turn")
    assert body["detail"][0].isupper() and body["detail"].endswith("."), body["detail"]
    assert "`" not in body["detail"]


def test_a_card_not_in_hand_is_422_and_changes_nothing():
    table = human_table("clasico", {"games_to_win": 1}, seed=2)
    view = table.view(table.view(0)["hand"]["turn"])
    seat = view["my_seat"]
    elsewhere = next(c for c in engine.CODES if c not in view["my_hand"])
    before = snapshot(table)
    problem(table.seats[seat].post(table.url("/actions"), {"type": "play", "card": elsewhere}), 422,
            "card_not_in_hand")  # fmt: skip
    problem(table.seats[seat].post(table.url("/actions"), {"type": "play", "card": "Z9"}), 422, "invalid_action")
    assert snapshot(table) == before


def test_playing_out_of_turn_is_409_not_your_turn():
    table = human_table("clasico", {"games_to_win": 1}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    other = (turn + 1) % 4
    card = table.view(other)["my_hand"][0]
    before = snapshot(table)
    problem(table.seats[other].post(table.url("/actions"), {"type": "play", "card": card}), 409, "not_your_turn")
    assert snapshot(table) == before


def test_a_stale_expected_seq_is_409_with_the_current_seq():
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    view = table.view(turn)
    action = {**view["legal_actions"][0], "expected_seq": view["seq"] - 1}
    before = snapshot(table)
    body = problem(table.seats[turn].post(table.url("/actions"), action), 409, "stale_seq")
    assert body["seq"] == view["seq"]
    assert snapshot(table) == before
    assert table.seats[turn].post(table.url("/actions"), {**action, "expected_seq": view["seq"]}).status_code == 200


def test_a_seat_that_disconnects_and_comes_back_makes_no_action_stale():
    """Presence events take a seq but change no card, bid or turn; a move does make it stale."""
    from games.turns import presence

    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    seen = table.view(turn)["seq"]
    now = timezone.now()
    presence.presences_create(now=now)
    later = now + timedelta(seconds=presence.timings_of(table.match_id).presence_timeout + 1)
    assert presence.seat_disconnect(match_id=table.match_id, seat=1 - turn, now=later)
    assert presence.seat_reconnect(match_id=table.match_id, player_id=table.seats[1 - turn].player.pk, now=later)
    assert table.view(turn)["seq"] == seen + 2
    action = {**table.view(turn)["legal_actions"][0], "expected_seq": seen}
    assert table.seats[turn].post(table.url("/actions"), action).status_code == 200
    other = table.view(1 - turn)  # the second card of the trick, after a move since `seen`
    late = {**other["legal_actions"][0], "expected_seq": seen}
    body = problem(table.seats[1 - turn].post(table.url("/actions"), late), 409, "stale_seq")
    assert body["seq"] == other["seq"] and "moved on" in body["detail"]


def test_an_expected_seq_ahead_of_the_match_is_stale_and_says_so():
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    view = table.view(turn)
    action = {**view["legal_actions"][0], "expected_seq": view["seq"] + 3}
    body = problem(table.seats[turn].post(table.url("/actions"), action), 409, "stale_seq")
    assert body["seq"] == view["seq"] and "no seq" in body["detail"]


def auction_turn(state: engine.State, seat: int, view: dict[str, Any]) -> dict[str, Any] | None:
    return {} if view["hand"]["phase"] == "auction" and state.high_bid else None


def test_auction_refusals_name_their_rule():
    table = human_table("subastado", {"auction_rounds": "many"}, seed=3)
    rng = random.Random(1)
    # Bid so that a later bidder faces a high bid.
    seat = table.view(0)["hand"]["turn"]
    table.seats[seat].post(table.url("/actions"), {"type": "bid", "amount": 80})
    seat, _ = play_until(table, auction_turn, seed=rng.randrange(100))
    api = table.seats[seat]
    before = snapshot(table)
    assert problem(api.post(table.url("/actions"), {"type": "bid", "amount": 80}), 422, "bid_too_low")["rule"] == "SU2"
    assert problem(api.post(table.url("/actions"), {"type": "bid", "amount": 87}), 422, "invalid_bid")["rule"] == "SU2"
    problem(api.post(table.url("/actions"), {"type": "bid", "amount": 235}), 422, "invalid_bid")
    problem(api.post(table.url("/actions"), {"type": "play", "card": table.view(seat)["my_hand"][0]}), 422,
            "action_not_allowed_now")  # fmt: skip
    problem(api.post(table.url("/actions"), {"type": "choose_trump", "suit": "O"}), 422, "action_not_allowed_now")
    assert snapshot(table) == before


def test_choosing_a_suit_that_is_not_one_is_422_invalid_suit():
    table = human_table("subastado", {}, seed=5)
    for _ in range(10):  # the mano bids the least, the others pass: the mano chooses trump (SU4)
        view = table.view(table.view(0)["hand"]["turn"])
        if view["hand"]["phase"] == "trump_choice":
            break
        action = view["legal_actions"][0 if view["hand"]["bids"] else 1]
        assert table.seats[view["my_seat"]].post(table.url("/actions"), action).status_code == 200
    seat = view["my_seat"]
    before = snapshot(table)
    problem(table.seats[seat].post(table.url("/actions"), {"type": "choose_trump", "suit": "X"}), 422, "invalid_suit")
    problem(table.seats[seat].post(table.url("/actions"), {"type": "pass"}), 422, "action_not_allowed_now")
    assert snapshot(table) == before


@pytest.mark.parametrize("body", [
    {}, {"type": "fold"}, {"type": "play"}, {"type": "bid"}, {"type": "bid", "amount": "many"},
    {"type": "bid", "amount": True}, {"type": "choose_trump"}, {"type": "play", "card": ["O1"]},
    {"type": "play", "card": "O1", "expected_seq": -1}, ["play"], "play", None, {"type": "play", "card": 5},
    {"type": "choose_trump", "suit": 1},
])  # fmt: skip
def test_malformed_actions_are_400_and_change_nothing(body):
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    before = snapshot(table)
    problem(table.seats[turn].post(table.url("/actions"), body), 400, "invalid")
    assert snapshot(table) == before


def test_an_action_without_its_card_or_amount_is_told_which():
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    body = problem(table.seats[turn].post(table.url("/actions"), {"type": "play"}), 400, "invalid")
    assert body["errors"] == {"card": ["A play action needs its card."]}
    body = problem(table.seats[turn].post(table.url("/actions"), {"type": "bid"}), 400, "invalid")
    assert body["errors"] == {"amount": ["A bid action needs its amount."]}


def test_bad_json_is_400_parse_error():
    table = human_table("dos", {}, seed=2)
    problem(table.seats[0].post(table.url("/actions"), raw=b'{"type": "play", '), 400, "parse_error")


def test_acting_in_a_finished_match_is_409_match_not_active():
    table = human_table("dos", {"games_to_win": 1}, seed=6)
    rng = random.Random(2)
    for _ in range(200):
        view = table.view(0)
        if view["status"] == "finished":
            break
        turn = view["hand"]["turn"]
        table.seats[turn].post(table.url("/actions"), choose(rng, table.view(turn)["legal_actions"]))
    before = snapshot(table)
    problem(table.seats[0].post(table.url("/actions"), {"type": "play", "card": "O1"}), 409, "match_not_active")
    assert snapshot(table) == before
