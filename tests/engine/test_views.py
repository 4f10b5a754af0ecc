"""What each seat may see (API.md "Hidden information"), M4's last trick, and the state as JSON."""

from __future__ import annotations

import json

import pytest

from games.engine import from_json, legal_actions, new_match, push, redact, replay, table, table_after, to_json, view
from games.engine.cards import codes

from .helpers import c, codes_in, dos_deck, of_type, play, position


def test_a_seat_sees_its_own_hand_and_only_the_sizes_of_the_others() -> None:
    state = new_match("clasico", {}, seed=5).state
    trump_card = view(state, None)["hand"]["trump_card"]
    for seat in range(4):
        shown = view(state, seat)
        assert shown["my_seat"] == seat and set(shown["my_hand"]) == set(codes(state.hands[seat]))
        assert shown["hand"]["hand_sizes"] == [10, 10, 10, 10]
        assert bool(shown["legal_actions"]) == (seat == state.turn)
        assert codes_in(shown) == set(shown["my_hand"]) | {trump_card}  # and the dealer's shown trump card
    spectator = view(state, None)
    assert spectator["my_hand"] is None and spectator["legal_actions"] == []
    assert codes_in(spectator) == {trump_card}


def test_M4_the_last_completed_trick_stays_visible() -> None:
    hands = {0: ["C4", "E4"], 1: ["C5", "E5"], 2: ["C1", "E6"], 3: ["C6", "E7"]}
    state = position("clasico", None, trump="O", lead=0, hands=hands)
    play(state, "C4", "C5", "C1", "C6")
    table = view(state, 1)["hand"]
    assert table["trick"] == []
    assert table["last_trick"] == [
        {"seat": 0, "card": "C4"},
        {"seat": 1, "card": "C5"},
        {"seat": 2, "card": "C1"},
        {"seat": 3, "card": "C6"},
    ]
    assert table["last_trick_winner"] == 2 and table["turn"] == 2
    play(state, "E6")
    table = view(state, 1)["hand"]
    assert table["trick"] == [{"seat": 2, "card": "E6"}] and table["last_trick"][2] == {"seat": 2, "card": "C1"}


def test_M4_the_last_trick_of_a_hand_stays_visible_once_the_next_is_dealt() -> None:
    state = new_match("clasico", {"games_to_win": 2}, seed=8).state
    while state.hand_number == 1:
        events = play(state, legal_actions(state)[0]["card"])
    won = [e for e in events if e["type"] == "trick_won"][-1]
    assert won["data"]["last"] and state.trick_number == 0 and state.tricks == []
    for seat in (0, 1, None):
        table = view(state, seat)["hand"]
        assert table["number"] == 2 and table["tricks"] == [] and table["trick"] == []
        assert table["last_trick"] == won["data"]["trick"] and table["last_trick_winner"] == won["seat"]
    first_lead = legal_actions(state)[0]["card"]
    play(state, first_lead)
    assert view(state, 0)["hand"]["last_trick"] == won["data"]["trick"], "shown until the next trick is won"
    while state.trick_number == 0:
        events = play(state, legal_actions(state)[0]["card"])
    table = view(state, 0)["hand"]
    assert table["last_trick"] == table["tricks"][0] and table["last_trick"][0]["card"] == first_lead
    assert from_json(to_json(state)).last_winner == state.last_winner


def test_M4_a_snapshot_without_the_last_winner_reads_it_from_the_lead() -> None:
    state = new_match("clasico", {}, seed=8).state
    while state.trick_number == 0:
        play(state, legal_actions(state)[0]["card"])
    old = to_json(state)
    del old["last_winner"]  # as stored before M4 kept the last trick across hands
    assert from_json(old) == state


def test_views_stock_count_and_hand_sizes_in_dos() -> None:
    deck = dos_deck(1, {}, "B5")
    state = new_match("dos", {}, first_dealer=1, decks=[deck]).state
    table = view(state, 0)["hand"]
    assert table["stock_count"] == 24 and table["hand_sizes"] == [8, 8] and table["face_up"] == "B5"
    play(state, legal_actions(state)[0]["card"])
    assert view(state, 0)["hand"]["hand_sizes"] in ([7, 8], [8, 7])
    play(state, legal_actions(state)[0]["card"])
    table = view(state, 0)["hand"]
    assert table["stock_count"] == 22 and table["hand_sizes"] == [8, 8]


def test_redact_hand_started_shows_only_the_seats_own_cards() -> None:
    step = new_match("dos", {}, seed=3)
    event = step.events[0]
    hands = event["data"]["hands"]
    for seat in (0, 1):
        shown = redact(event, seat)
        assert shown["data"]["my_hand"] == hands[seat]
        assert not {"deck", "stock", "hands"} & set(shown["data"])
        assert shown["data"]["hand_sizes"] == [8, 8] and shown["data"]["stock_count"] == 24
        assert shown["data"]["face_up"] == event["data"]["face_up"]
        assert not set(hands[1 - seat]) & codes_in(shown)
    assert redact(event, None)["data"]["my_hand"] is None
    assert "deck" in event["data"]  # redact copies: the log keeps everything


def test_redact_a_draw_is_seen_by_the_one_who_draws_it_the_face_up_card_by_all() -> None:
    state = position("dos", None, trump="O", lead=0, hands={0: ["C4", "O4"], 1: ["C12", "E2"]})
    state.face_up, state.stock = c("O6"), [c("B4")]
    draws = of_type(play(state, "C4", "C12"), "draw")
    hidden, face_up = draws
    assert redact(hidden, 1)["data"] == {"card": "B4"}
    assert redact(hidden, 0)["data"] == {"card": None} and redact(hidden, None)["data"] == {"card": None}
    for seat in (0, 1, None):
        assert redact(face_up, seat) == face_up


@pytest.mark.parametrize(
    "variant, options, actions",
    [
        ("clasico", {}, 7),
        ("subastado", {}, 2),
        ("subastado", {}, 6),
        ("dos", {}, 9),
        ("cabron", {"players": 3}, 20),
        ("subastado_parejas", {}, 3),
        ("individual", {"players": 3}, 40),
    ],
)
def test_the_state_round_trips_through_json(variant: str, options: dict[str, object], actions: int) -> None:
    state = new_match(variant, options, seed=12).state
    for _ in range(actions):
        if state.status != "active":
            break
        push(state, state.turn, legal_actions(state)[-1])
    data = json.loads(json.dumps(to_json(state)))
    again = from_json(data)
    assert again == state and to_json(again) == to_json(state)
    # The copy plays on exactly like the original.
    for _ in range(30):
        if state.status != "active":
            break
        action = legal_actions(state)[0]
        assert push(again, again.turn, action) == push(state, state.turn, action)
    assert again == state


def test_to_json_is_a_snapshot_that_later_play_does_not_change() -> None:
    state = new_match("subastado", {"auction_rounds": "many"}, seed=3).state
    snapshot = to_json(state)
    text = json.dumps(snapshot)
    push(state, state.turn, {"type": "bid", "amount": 60})
    push(state, state.turn, {"type": "pass"})
    push(state, state.turn, {"type": "pass"})
    push(state, state.turn, {"type": "choose_trump", "suit": "O"})
    for _ in range(6):
        push(state, state.turn, legal_actions(state)[0])
    assert json.dumps(snapshot) == text


def test_from_json_makes_an_independent_state() -> None:
    state = new_match("clasico", {}, seed=3).state
    before = json.dumps(to_json(state))
    again = from_json(to_json(state))
    for _ in range(8):
        push(again, again.turn, legal_actions(again)[0])
    assert json.dumps(to_json(state)) == before
    data = json.loads(before)
    again = from_json(data)
    for _ in range(8):
        push(again, again.turn, legal_actions(again)[0])
    assert json.dumps(data) == before  # the stored snapshot is not written through either


@pytest.mark.parametrize("variant, options, seed", [("dos", {}, 4), ("cabron", {"players": 3, "letters": 1}, 2)])
def test_table_after_shows_a_finished_match_event_by_event(variant: str, options: dict[str, object], seed: int) -> None:
    step = new_match(variant, options, seed=seed)
    state, log = step.state, list(step.events)
    while state.status == "active":
        log += push(state, state.turn, legal_actions(state)[0])
    assert table_after(variant, options, log, len(log)) == table(state)
    for count, event in enumerate(log, start=1):
        if event["type"] not in ("hand_started", "card_played", "trick_won", "draw", "exchange", "canto"):
            continue
        shown = table_after(variant, options, log, count)["hand"]
        data = event["data"]
        if event["type"] == "hand_started":
            assert shown["hands"] == data["hands"] and shown["stock"] == data["stock"]
        elif event["type"] == "card_played":
            assert shown["trick"][-1] == {"seat": event["seat"], "card": data["card"]}
            assert data["card"] not in shown["hands"][event["seat"]]
            full = len(shown["trick"]) == len(shown["hands"])
            assert (shown["turn"] is None) == full, "nobody is to play while the last card lies on the trick"
        elif event["type"] == "trick_won":
            assert shown["trick"] == [] and shown["last_trick"] == data["trick"]
        elif event["type"] == "draw":
            assert data["card"] in shown["hands"][event["seat"]]
        elif event["type"] == "exchange":
            assert data["took"] in shown["hands"][event["seat"]] and shown["face_up"] == data["gave"]
        else:
            assert {"seat": event["seat"], "suit": data["suit"], "points": data["points"]} in shown["cantos"]
    with pytest.raises(ValueError):
        table_after(variant, options, log, len(log) + 1)
    with pytest.raises(ValueError):
        replay(variant, options, log[1:2])
