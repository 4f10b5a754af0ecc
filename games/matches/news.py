"""What goes with a change of a match: the layers above write beside it, then are told once it commits.

The matches know nothing of who takes the next turn (:mod:`games.turns`) or of who waits for news
(:mod:`games.live`): every change they record is a :class:`MatchNews`. Each recorder that
``settings.MATCH_RECORDERS`` names gives the rows to write beside it (:func:`recorded`), which the
change's own statement inserts (``Match.objects.save_with_events``: what a recorder writes commits with
the change or not at all, and costs no round trip of its own); once the transaction has committed (and
after the answer is sent, in a request: ``tute_api.after_response``), each listener that
``settings.MATCH_LISTENERS`` names is told, in order (:func:`tell_on_commit`). So the imports run one
way, from those layers down to this one, as with Django's ``MIDDLEWARE``.

A recorder's failure fails the change, as any write of its transaction would. A listener must not
raise: a failure is logged and the next listener is still told. What it announces is in the database:
waiters time out and read again, and the sweeps queue lost turns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import models
from django.utils.module_loading import import_string

from tute_api.after_response import on_commit_later

from .models import Match, MatchStatus

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Mover:
    """The player whose own action a move was: the ``seq`` their turn stood at, when it began (the
    latest move before) and when they acted."""

    player_id: str
    seq: int
    turn_began: datetime
    acted_at: datetime


@dataclass(frozen=True)
class MatchNews:
    """A committed change of a match: where it stands now, and whether a move made it."""

    match_id: UUID
    seq: int
    status: str
    #: The seat to act and its seating entry (``Match.seating``), None when nobody is to act.
    turn: int | None
    seat: dict[str, Any] | None
    #: True for a move (the engine's events); False for an event of the service's own (presence, a
    #: turn clock's marker), after which the same seat is still to act.
    moved: bool
    #: Who moved, when a player's own action made the change (not a bot's turn or a stand-in move).
    mover: Mover | None = None

    @classmethod
    def of(cls, match: Match, *, moved: bool, mover: Mover | None = None) -> MatchNews:
        """The news of ``match`` as it stands (its fields set as they will be saved)."""
        turn = match.turn if match.status == MatchStatus.ACTIVE else None
        seat = match.seating[turn] if turn is not None else None
        return cls(
            match_id=match.id, seq=match.seq, status=match.status, turn=turn, seat=seat, moved=moved, mover=mover
        )

    @property
    def active(self) -> bool:
        return self.status == MatchStatus.ACTIVE


Listener = Callable[[MatchNews], None]
#: Gives the rows (model instances, unsaved) to insert beside the change; none for most changes.
Recorder = Callable[[MatchNews], Sequence[models.Model]]


@cache
def _imported(names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(import_string(name) for name in names)


def recorders() -> tuple[Recorder, ...]:
    """The recorders that ``settings.MATCH_RECORDERS`` names, imported once."""
    return _imported(tuple(settings.MATCH_RECORDERS))


def listeners() -> tuple[Listener, ...]:
    """The listeners that ``settings.MATCH_LISTENERS`` names, imported once."""
    return _imported(tuple(settings.MATCH_LISTENERS))


def recorded(news: MatchNews) -> list[models.Model]:
    """The rows every recorder writes beside the change, in the recorders' order: the caller inserts them
    with the change."""
    return [row for recorder in recorders() for row in recorder(news)]


def tell_on_commit(news: MatchNews) -> None:
    """Tell every listener once the current transaction commits."""
    on_commit_later(lambda: tell(news))


def tell(news: MatchNews) -> None:
    for listener in listeners():
        try:
            listener(news)
        except Exception:  # the news is in the database: waiters read again, sweeps queue lost turns
            logger.exception("A listener of match news failed on match %s at seq %s", news.match_id, news.seq)
