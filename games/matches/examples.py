"""OpenAPI examples, built from a real seeded deal so that they always match what the API sends."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample

from games import engine

from .serializers import VariantSerializer

_ID = "0b9d6c8e-5a53-4f0e-9a36-2f1d7c4e8a11"
#: C12v: the deal key of the examples (a real match draws its own, secret until the match is over).
_KEY = bytes(range(32))
_AT = "2026-01-01T12:00:00Z"
_SEATS = [
    {"seat": 0, "kind": "player", "player": {"id": "5f0c8a9e-3d1b-4c55-9a3e-0f6f2a1b7c11", "username": "ana"},
     "bot": None},
    {"seat": 1, "kind": "bot", "player": None, "bot": "level-1"},
    {"seat": 2, "kind": "bot", "player": None, "bot": "level-2"},
    {"seat": 3, "kind": "bot", "player": None, "bot": "level-1"},
]  # fmt: skip


def _sample() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """Seat 0's view of a seeded clásico once others have played to the trick, its events, and a
    spectator's view of the same table (M5)."""
    step = engine.new_match("clasico", {"games_to_win": 1}, seed=7)
    state, events = step.state, list(step.events)
    while engine.current_seat(state) != 0 or len(events) < 3:
        seat = engine.current_seat(state)
        assert seat is not None
        events += engine.push(state, seat, engine.legal_actions(state, seat)[0])
    table = engine.view(state, 0)
    body = {
        "id": _ID, "variant": "clasico", "options": table["options"], "status": "active", "public": False,
        "rated": True, "seq": len(events),
        "players": 4, "seats": _SEATS, "invite_code": None, "my_seat": 0, "my_hand": table["my_hand"],
        "legal_actions": table["legal_actions"], "scoreboard": table["scoreboard"], "sides": table["sides"],
        "results": [], "winners": None, "winner_seats": None, "my_turn": True, "hand": table["hand"],
        "deal_commitment": engine.fair_deals.commitment(_KEY), "created_at": _AT, "updated_at": _AT,
        "started_at": _AT, "finished_at": None,
    }  # fmt: skip
    shown = [{"seq": n, **engine.redact(e, 0), "at": _AT} for n, e in enumerate(events, 1)]
    watched = engine.view(state, None)
    spectator = {
        **body, "public": True, "my_seat": None, "my_hand": watched["my_hand"] or [],
        "legal_actions": watched["legal_actions"], "hand": watched["hand"], "my_turn": False,
    }  # fmt: skip
    return body, shown, spectator


def _replay() -> dict[str, Any]:
    """A replay of a seeded dos match right after its first card: the whole table, every hand face up."""
    step = engine.new_match("dos", {}, seed=7)
    state, events = step.state, list(step.events)
    seat = engine.current_seat(state)
    assert seat is not None
    events += engine.push(state, seat, engine.legal_actions(state, seat)[0])
    return {
        "id": _ID, "variant": "dos", "status": "finished", "seq": len(events), "last_seq": 60,
        "engine_events": len(events), "event": {"seq": len(events), **events[-1], "at": _AT},
        "table": engine.table_after("dos", {}, events, len(events)),
    }  # fmt: skip


def _recorded_events() -> list[dict[str, Any]]:
    """The first events of a seeded clásico as its record shows them: unredacted, every hand dealt."""
    step = engine.new_match("clasico", {"games_to_win": 1}, seed=7)
    state, events = step.state, list(step.events)
    seat = engine.current_seat(state)
    assert seat is not None
    events += engine.push(state, seat, engine.legal_actions(state, seat)[0])
    return [{"seq": n, **event, "at": _AT} for n, event in enumerate(events, 1)]


_VIEW, _EVENTS, _SPECTATOR = _sample()

# A list response shows each example as a list of one item (drf-spectacular wraps it): one example per item.
VARIANTS = [
    OpenApiExample(f"Variant {variant['name']}", value=variant, response_only=True)
    for variant in VariantSerializer(list(engine.VARIANTS.values())[:2], many=True).data
]
CREATE_VS_BOTS = OpenApiExample(
    "Against bots",
    value={"variant": "clasico", "options": {"games_to_win": 1}, "client_seed": "my lucky numbers 7 12 40",
           "seats": [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-2"}, {"bot": "level-1"}]},
    request_only=True,
)  # fmt: skip
CREATE_PUBLIC = OpenApiExample(
    "Public: anyone may watch",
    value={"variant": "dos", "public": True, "seats": [{"player": "me"}, {"bot": "level-3"}]},
    request_only=True,
)
CREATE_WITH_FRIENDS = OpenApiExample(
    "With friends",
    value={"variant": "dos", "seats": [{"player": "me"}, {"open": True}]},
    request_only=True,
)
MATCH_CREATED = OpenApiExample("Created", value=_VIEW, response_only=True, status_codes=["201"])
MATCH_VIEW = OpenApiExample("The caller's view", value=_VIEW, response_only=True)
SPECTATOR_VIEW = OpenApiExample("A spectator's view of a public match", value=_SPECTATOR, response_only=True)
MATCH_PAGE = OpenApiExample(
    "A page",
    value={"count": 1, "next": None, "previous": None, "results": [{
        "id": _ID, "variant": "clasico", "options": _VIEW["options"], "status": "active", "public": False,
        "rated": True, "seq": _VIEW["seq"], "seats": _SEATS, "my_seat": 0, "turn": 0, "my_turn": True,
        "invite_code": None, "created_at": _AT, "updated_at": _AT,
    }]},
    response_only=True,
)  # fmt: skip
JOIN = OpenApiExample("Join", value={"invite_code": "k7m2q9xw4p", "client_seed": "guest-2f9c"}, request_only=True)
ACTIONS = [
    OpenApiExample("Play a card", value={"type": "play", "card": "O1", "expected_seq": 3}, request_only=True),
    OpenApiExample("Bid", value={"type": "bid", "amount": 75}, request_only=True),
    OpenApiExample("Pass", value={"type": "pass"}, request_only=True),
    OpenApiExample("Choose trump", value={"type": "choose_trump", "suit": "E"}, request_only=True),
    OpenApiExample("Sing (declarations: manual)", value={"type": "sing", "suit": "O"}, request_only=True),
    OpenApiExample("Declare tute (declarations: manual)", value={"type": "tute"}, request_only=True),
    OpenApiExample("Exchange (declarations: manual, dos)", value={"type": "exchange"}, request_only=True),
]
ACTION_ERRORS = [
    OpenApiExample(
        "Must follow suit",
        value={"type": "urn:tute:problem:must_follow_suit", "title": "Unprocessable Entity", "status": 422,
               "detail": "O4 does not follow suit: play a card of C.", "code": "must_follow_suit", "rule": "C5.a"},
        response_only=True,
        status_codes=["422"],
    ),
    OpenApiExample(
        "Stale seq",
        value={"type": "urn:tute:problem:stale_seq", "title": "Conflict", "status": 409,
               "detail": "The match has moved on: it is at seq 9, not 7.", "code": "stale_seq", "seq": 9},
        response_only=True,
        status_codes=["409"],
    ),
]  # fmt: skip
EVENTS = [
    OpenApiExample(f"Event {event['type']}", value=event, response_only=True)
    for event in [_EVENTS[0], _EVENTS[1], *(e for e in _EVENTS if e["type"] in ("trick_won", "canto"))][:4]
]
RECORD = OpenApiExample(
    "A record (abridged)",
    value={
        "id": _ID, "variant": "clasico", "options": _VIEW["options"], "seed": None, "status": "finished",
        "seq": 58, "seats": _SEATS, "scoreboard": [1, 0], "winners": [0], "winner_seats": [0, 2], "created_at": _AT,
        "started_at": _AT, "finished_at": _AT, "hands": [],
        "deals": {"procedure": "tute-deals-v1", "commitment": engine.fair_deals.commitment(_KEY), "key": _KEY.hex(),
                  "client_seeds": ["my lucky numbers 7 12 40", None, None, None],
                  "deck_order": engine.fair_deals.deck_order("clasico", {}), "first_dealer": "drawn"},
        "actions": [{"seq": 2, "seat": 1, "action": {"type": "play", "card": "O4"}}],
        "events": _recorded_events(), "rating_changes": None,
    },
    response_only=True,
)  # fmt: skip
MATCH_CANCELLED = OpenApiExample(
    "Cancelled",
    value={**_VIEW, "status": "cancelled", "seq": 1, "hand": None, "my_hand": [], "legal_actions": [], "my_turn": False,
           "started_at": None, "finished_at": _AT},
    response_only=True,
)  # fmt: skip

REPLAY = OpenApiExample("After a card", value=_replay(), response_only=True)
