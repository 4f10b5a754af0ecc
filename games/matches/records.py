"""Rows ↔ engine: the one place that turns stored matches into engine states and engine output into
rows (Cosmic Python's ``to_domain`` / ``update_from_domain``).

What a seat may see is decided by the engine (:func:`games.engine.view`, :func:`games.engine.redact`);
the bodies of the API are :mod:`games.matches.bodies`'.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games import engine
from games.engine import State

from .models import Event, Hand, Match, MatchStatus, Seat

# -- rows → engine ------------------------------------------------------------------------------


def state_of(match: Match) -> State:
    """The engine state of a started match, from its snapshot."""
    assert match.state is not None, "a match that has not started has no state"
    return engine.from_json(match.state)


#: The events the service writes to the log itself, which the engine neither produces nor counts:
#: presence, the turn clock, a bot's fallback marker, a cancellation, a rated match's rating changes.
SERVICE_EVENTS = frozenset(
    {"seat_disconnected", "seat_reconnected", "turn_timed_out", "bot_fallback", "match_cancelled", "ratings_updated"}
)


def log_of(rows: list[Event]) -> list[engine.Event]:
    """The engine's events of a log, in order: the service's own left out."""
    return [row.as_engine_event() for row in rows if row.type not in SERVICE_EVENTS]


# -- engine → rows ------------------------------------------------------------------------------


def update_from_state(match: Match, state: State, now: datetime) -> None:
    """Copy the engine state into the match row (not saved): snapshot, turn, status."""
    match.state = engine.to_json(state)
    match.turn = engine.current_seat(state)
    match.updated_at = now
    if state.status == "finished" and match.status != MatchStatus.FINISHED:
        match.status = MatchStatus.FINISHED
        match.finished_at = now


#: The order of :class:`Event`'s columns, in which :func:`event_rows` gives them: Django builds an instance
#: from positional values in half the time of keywords (3.0 against 5.8 µs, about five rows an action).
EVENT_COLUMNS = ("id", "match_id", "seq", "type", "seat", "data", "created_at")


def event_rows(match: Match, events: list[engine.Event], now: datetime) -> list[Event]:
    """New log rows for engine events, numbered on from ``match.seq`` (which is advanced); each row's
    ``match`` is ``match`` itself."""
    first, match_id = match.seq + 1, match.pk
    rows = []
    for i, e in enumerate(events):
        row = Event(None, match_id, first + i, e["type"], e["seat"], e["data"], now)
        row._state.fields_cache["match"] = match
        rows.append(row)
    match.seq += len(rows)
    return rows


def hands_started(match: Match, rows: list[Event]) -> list[Hand]:
    """A :class:`Hand` for each ``hand_started`` row."""
    return [
        Hand(match=match, number=r.data["hand"], dealer=r.data["dealer"], deck=r.data["deck"], started_seq=r.seq)
        for r in rows
        if r.type == "hand_started"
    ]


def hands_finished(rows: list[Event]) -> list[tuple[int, dict[str, Any], int]]:
    """``(hand number, result, seq)`` for each ``hand_finished`` row."""
    return [(r.data["hand"], r.data, r.seq) for r in rows if r.type == "hand_finished"]


# -- the seating: who sits where, stored with the match ---------------------------------------------


def iso(moment: datetime | None) -> str | None:
    """A moment as the service writes it in JSON (events' data, bodies): ISO 8601, ``Z`` for UTC."""
    if moment is None:
        return None
    text = moment.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def seating_entry(seat: Seat) -> dict[str, Any]:
    player = seat.player
    return {
        "seat": seat.number,
        "kind": seat.kind,
        "player": {"id": str(player.pk), "username": player.username} if player is not None else None,
        "bot": seat.bot or None,
    }


def seating_of(seats: list[Seat]) -> list[dict[str, Any]]:
    """``Match.seating``: the seat rows as the API shows them, stored with the match so that a
    request reads one row (the Seat rows stay the source for queries and constraints)."""
    return [seating_entry(s) for s in sorted(seats, key=lambda s: s.number)]


def seat_in(seating: list[dict[str, Any]], player_id: object) -> int | None:
    """The seat of a player in a match's seating, if any."""
    wanted = str(player_id)
    return next((s["seat"] for s in seating if s["player"] and s["player"]["id"] == wanted), None)


def bot_at(seating: list[dict[str, Any]], seat: int | None) -> str | None:
    """The built-in bot's level at a seat, or None for a human or an open seat."""
    return None if seat is None else seating[seat]["bot"]


def seeds_with(
    seeds: list[str | None], count: int, seat: int | None = None, seed: str | None = None
) -> list[str | None]:
    """``Match.client_seeds`` for ``count`` seats (null for a seat without one), with ``seed`` at ``seat``."""
    out = [*seeds, *[None] * (count - len(seeds))][:count]
    if seat is not None:
        out[seat] = seed
    return out


def player_at(seating: list[dict[str, Any]], seat: int | None) -> str | None:
    """The id of the player (a human or a registered bot) at a seat, or None."""
    if seat is None:
        return None
    player = seating[seat]["player"]
    return player["id"] if player else None
