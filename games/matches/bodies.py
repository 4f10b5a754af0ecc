"""What the API shows of the game's objects: the views its output serializers render.

A body's shape is defined once, by its output serializer (:mod:`.serializers`), which renders one of
these views and is what the schema documents. What a seat may see is the engine's to decide
(:func:`games.engine.view`, :func:`games.engine.redact`): the table of a :class:`MatchView` and the
data of an event are the engine's, passed through as they are; these views add what the service
knows (ids, seats, ``seq``, times).

Events are the one body built here: a list of up to a thousand of them answers ``/events`` and the
stream writes one per line, so :func:`event_body` writes the envelope without a serializer's cost
per field; the schema's ``Event`` component documents it (a test checks every answer against it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games import engine
from games.engine import State

from . import records
from .models import Event, Match, MatchStatus
from .records import iso
from .selectors import Record


def event_body(row: Event, seat: int | None) -> dict[str, Any]:
    """A log row as ``seat`` may see it (``None``: a spectator)."""
    shown = engine.redact(row.as_engine_event(), seat)
    return {"seq": row.seq, "type": row.type, "seat": row.seat, "data": shown["data"], "at": iso(row.created_at)}


def event_body_full(row: Event) -> dict[str, Any]:
    """A log row unredacted: for the record and the replays of a match that is over."""
    return {"seq": row.seq, "type": row.type, "seat": row.seat, "data": row.data, "at": iso(row.created_at)}


def counts_for_ratings(match: Match) -> bool:
    """The match will change its players' ratings once finished: asked so, and not seeded (C12)."""
    return match.rated and match.seed is None


@dataclass(frozen=True)
class MatchView:
    """A match as ``seat`` sees it (None: a creator who watches, a spectator of a public match, or
    anyone once it is over): the row, and the engine's view of the table (:func:`games.engine.view`).
    A spectator (M5) is shown no invite code: watching a match is not a seat at it."""

    match: Match
    seat: int | None
    table: dict[str, Any]
    spectator: bool = False

    @property
    def invite_code(self) -> str | None:
        shown = self.match.status == MatchStatus.WAITING and not self.spectator
        return self.match.invite_code if shown else None

    @property
    def my_hand(self) -> list[str]:
        return self.table["my_hand"] or []

    @property
    def deal_commitment(self) -> str | None:
        return self.match.deal_commitment or None

    @property
    def my_turn(self) -> bool:
        """As in the list (:class:`MatchEntry`): the caller's seat is to act in a match in play."""
        return self.seat is not None and self.match.turn == self.seat and self.match.status == MatchStatus.ACTIVE

    @property
    def rated(self) -> bool:
        return counts_for_ratings(self.match)

    @property
    def winner_seats(self) -> list[int] | None:
        """The seats of the winning sides (``winners``), as the ``match_finished`` event names them."""
        winners, sides = self.table["winners"], self.table["sides"]
        return None if winners is None else [seat for seat, side in enumerate(sides) if side in winners]


def match_view(match: Match, seat: int | None, state: State | None = None, *, spectator: bool = False) -> MatchView:
    """The match as ``seat`` sees it; ``state``, when the caller has it, saves reading the snapshot.
    ``spectator``: the viewer only watches (seat None, M5)."""
    if state is None and match.state is None:  # not dealt yet: the scores at zero, no hand
        blank = engine.view(engine.new_match(match.variant, match.options, seed=0).state, None)
        table = {**blank, "hand": None, "legal_actions": []}
    else:
        table = engine.view(state if state is not None else records.state_of(match), seat)
    if match.status == MatchStatus.CANCELLED:
        table["legal_actions"] = []
    return MatchView(match, seat, table, spectator)


@dataclass(frozen=True)
class MatchEntry:
    """A match in the caller's list (``match.my_seat``: the caller's seat, annotated by the selector)."""

    match: Match

    @property
    def my_seat(self) -> int | None:
        return getattr(self.match, "my_seat", None)

    @property
    def my_turn(self) -> bool:
        match, seat = self.match, self.my_seat
        return seat is not None and match.turn == seat and match.status == MatchStatus.ACTIVE

    @property
    def invite_code(self) -> str | None:
        return self.match.invite_code if self.match.status == MatchStatus.WAITING else None

    @property
    def rated(self) -> bool:
        return counts_for_ratings(self.match)


@dataclass(frozen=True)
class RecordView:
    """Everything about a match that is over, with the table as it ended and every recorded action."""

    record: Record
    final: MatchView

    @property
    def deals(self) -> dict[str, Any] | None:
        """C12v: the key and the seeds, revealed once the match is over (a record is never built before)."""
        match = self.record.match
        assert match.status in (MatchStatus.FINISHED, MatchStatus.CANCELLED), "the key is shown once it is over"
        if not match.deal_key:
            return None
        return {
            "procedure": engine.fair_deals.VERSION.decode(),
            "commitment": match.deal_commitment,
            "key": match.deal_key,
            "client_seeds": records.seeds_with(match.client_seeds, len(match.seating)),
            "deck_order": engine.fair_deals.deck_order(match.variant, match.options),
            "first_dealer": ((match.state or {}).get("fair_deals") or {}).get("first_dealer", "drawn"),
        }

    @property
    def actions(self) -> list[dict[str, Any]]:
        return [
            {"seq": row.seq, "seat": seat, "action": action}
            for row in self.record.events
            for seat, action in engine.actions_of([row.as_engine_event()])
        ]

    @property
    def rating_changes(self) -> list[dict[str, Any]] | None:
        """The seats' rating changes of a rated match (its ``ratings_updated`` event), else None."""
        return next((row.data["seats"] for row in self.record.events if row.type == "ratings_updated"), None)


def record_view(record: Record) -> RecordView:
    return RecordView(record, match_view(record.match, None))
