"""The bodies of the API's answers about matches, built from the game's objects: one function per
shape, each documented by its output serializer (:mod:`.serializers`; a test checks every answer
against the schema). What a seat may see is the engine's to decide (:func:`games.engine.view`,
:func:`games.engine.redact`); these add what the service knows (ids, seats, ``seq``, times).
"""

from __future__ import annotations

from typing import Any

from games import engine
from games.engine import State

from . import records
from .models import Event, Match, MatchStatus
from .records import iso
from .replays import Replay
from .selectors import Record


def event_body(row: Event, seat: int | None) -> dict[str, Any]:
    """A log row as ``seat`` may see it (``None``: a spectator)."""
    shown = engine.redact(row.as_engine_event(), seat)
    return {"seq": row.seq, "type": row.type, "seat": row.seat, "data": shown["data"], "at": iso(row.created_at)}


def event_body_full(row: Event) -> dict[str, Any]:
    """A log row unredacted: for the record of a match that is over."""
    return {"seq": row.seq, "type": row.type, "seat": row.seat, "data": row.data, "at": iso(row.created_at)}


def _unstarted_view(match: Match) -> dict[str, Any]:
    """The table of a match whose cards are not dealt: scores at zero, no hand."""
    blank = engine.view(engine.new_match(match.variant, match.options, seed=0).state, None)
    return {**blank, "hand": None, "legal_actions": []}


def match_body(match: Match, seat: int | None, state: State | None = None) -> dict[str, Any]:
    """The match as ``seat`` sees it: the engine's view plus ids, seats, ``seq`` and times."""
    if match.state is None:
        table = _unstarted_view(match)
    else:
        table = engine.view(state if state is not None else records.state_of(match), seat)
    if match.status == MatchStatus.CANCELLED:
        table["legal_actions"] = []
    return {
        "id": str(match.id),
        "variant": match.variant,
        "options": table["options"],
        "status": match.status,
        "seq": match.seq,
        "players": table["players"],
        "seats": match.seating,
        "invite_code": match.invite_code if match.status == MatchStatus.WAITING else None,
        "my_seat": seat,
        "my_hand": table["my_hand"] or [],
        "legal_actions": table["legal_actions"],
        "scoreboard": table["scoreboard"],
        "sides": table["sides"],
        "results": table["results"],
        "winners": table["winners"],
        "hand": table["hand"],
        "created_at": iso(match.created_at),
        "started_at": iso(match.started_at),
        "finished_at": iso(match.finished_at),
    }


def match_summary(match: Match) -> dict[str, Any]:
    """A list entry: who sits where and whether the caller (``match.my_seat``) is to act; no cards."""
    my_seat = getattr(match, "my_seat", None)
    return {
        "id": str(match.id),
        "variant": match.variant,
        "options": match.options,
        "status": match.status,
        "seq": match.seq,
        "seats": match.seating,
        "my_seat": my_seat,
        "turn": match.turn,
        "my_turn": my_seat is not None and match.turn == my_seat and match.status == MatchStatus.ACTIVE,
        "invite_code": match.invite_code if match.status == MatchStatus.WAITING else None,
        "created_at": iso(match.created_at),
        "updated_at": iso(match.updated_at),
    }


def record_body(record: Record) -> dict[str, Any]:
    """Everything about a match that is over: every deal in full, every action, every event."""
    match = record.match
    actions = []
    for row in record.events:
        for seat, action in engine.actions_of([row.as_engine_event()]):
            actions.append({"seq": row.seq, "seat": seat, "action": action})
    final = match_body(match, None)
    return {
        "id": str(match.id),
        "variant": match.variant,
        "options": match.options,
        "seed": match.seed,
        "status": match.status,
        "seq": match.seq,
        "seats": final["seats"],
        "scoreboard": final["scoreboard"],
        "winners": final["winners"],
        "created_at": final["created_at"],
        "started_at": final["started_at"],
        "finished_at": final["finished_at"],
        "hands": [
            {"number": h.number, "dealer": h.dealer, "deck": h.deck, "result": h.result, "started_seq": h.started_seq}
            for h in record.hands
        ],
        "actions": actions,
        "events": [event_body_full(row) for row in record.events],
    }


def variants_body() -> list[dict[str, Any]]:
    """Every variant of RULES.md with its seats and options (names, defaults, allowed values)."""
    return [
        {
            "name": info.name,
            "title": info.title,
            "rule": info.rule,
            "players": list(info.players),
            "options": [
                {
                    "name": o.name,
                    "default": o.default,
                    "choices": list(o.choices),
                    "rule": o.rule,
                    "description": o.description,
                }
                for o in info.options
            ],
        }
        for info in engine.VARIANTS.values()
    ]


def replay_body(replay: Replay) -> dict[str, Any]:
    match = replay.match
    return {
        "id": str(match.id),
        "variant": match.variant,
        "status": match.status,
        "seq": replay.seq,
        "last_seq": replay.last_seq,
        "engine_events": replay.engine_events,
        "event": event_body_full(replay.event),
        "table": replay.table,
    }
