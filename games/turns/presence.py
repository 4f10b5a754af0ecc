"""Presence at a table with friends (RULES.md M2, M3): connected seats, disconnections, the grace.

A seat of a match with more than one human is *connected* while its player calls the API on the
match (the heartbeat endpoint, any authenticated call under ``/matches/{id}``, an open stream):
:func:`touch` records the call in a :class:`~rooms.models.Presence` row. A match of one human
against bots has no presence rows, so it never waits and never times out (M3).

:func:`sweep` (Celery beat, every few seconds) decides everything from timestamps, so that a task
that runs early, late or twice does nothing wrong:

- a seat silent for ``presence_timeout`` seconds is disconnected (event ``seat_disconnected``), and
  a task is queued for ``reconnect_grace`` seconds later (:func:`grace_expire`);
- a seat still disconnected when its grace runs out cancels the match (``match_cancelled``); its
  room is back in its lobby;
- a turn clock (``turn_seconds``) that ran out plays the stand-in move for the player, after an event
  ``turn_timed_out`` (:mod:`games.turns.clock`).

A player who calls again within the grace is reconnected (``seat_reconnected``): seat and cards
were never taken away.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from games.matches import kept
from games.matches.models import Match, MatchStatus
from games.matches.records import iso
from games.matches.services import event_append, match_cancel_record
from players.models import Player

from . import clock, queue
from .models import Presence
from .tables import Timings, human_seats, timings_of, with_humans

logger = logging.getLogger(__name__)

#: A call refreshes ``last_seen`` only when the stored value is older than this (one cheap UPDATE).
TOUCH_EVERY = timedelta(seconds=1)


# -- the hot path -------------------------------------------------------------------------------

#: What :func:`tracked_players` learned for good, per match id; process-local and bounded.
_TRACKED: dict[str, frozenset[str]] = {}
_TRACKED_MAX = 10_000
_TRACKED_LOCK = threading.Lock()


def is_tracked(match_id: UUID | str) -> bool:
    """Whether calls on the match count for presence: it is active with more than one human (M2)."""
    return bool(tracked_players(match_id))


def tracked_players(match_id: UUID | str) -> frozenset[str]:
    """The ids of the players whose calls on the match count for presence: its seated humans, when it
    is active with more than one (M2); nobody else (a creator who watches, a spectator: M5).

    One query the first time a process asks; the answer is then kept, since it cannot change for a
    match that has started: its humans stay, and one that is over has no presence rows left. So a
    match of one human against bots (M3) costs its calls no presence query at all."""
    known = tracked_players_known(match_id)
    return known if known is not None else _tracked_players_read(str(match_id))


def tracked_players_known(match_id: UUID | str) -> frozenset[str] | None:
    """:func:`tracked_players` when this process knows it already (no query: an event loop may call it); else None.

    A match of one human that this process saved or read (``games.matches.kept``: its start, a player's action)
    is known without a query: once started its seats do not change, so nobody is tracked, whatever it became
    since the row was kept (the read cost 0.6% of the server's samples under ``make loadtest``)."""
    key = str(match_id)
    known = _TRACKED.get(key)
    if known is not None or (row := kept.latest(key)) is None or row.status == MatchStatus.WAITING:
        return known
    return _remember(key, frozenset()) if sum(1 for seat in row.seating if seat["player"]) <= 1 else None


def _tracked_players_read(key: str) -> frozenset[str]:
    row = Match.objects.filter(pk=key).values_list("status", "seating").first()
    if row is None or row[0] == MatchStatus.WAITING:
        return frozenset()  # its seats may still fill: ask again next time
    status, seating = row
    humans = frozenset(s["player"]["id"] for s in seating if s["player"])
    return _remember(key, humans if status == MatchStatus.ACTIVE and len(humans) > 1 else frozenset())


def _remember(key: str, tracked: frozenset[str]) -> frozenset[str]:
    with _TRACKED_LOCK:  # a server's threads share the cache: one of them evicts at a time
        while len(_TRACKED) >= _TRACKED_MAX:
            _TRACKED.pop(next(iter(_TRACKED)))
        _TRACKED[key] = tracked
    return tracked


def touch(
    *, match_id: UUID | str, player_id: object, now: datetime | None = None, until: datetime | None = None
) -> bool:
    """The player called the API on the match: refresh their seat; reconnect it if it was
    disconnected. One UPDATE, which changes nothing when the seat was seen within a second.

    ``until``: the player is there until then (a long poll that may wait that long), so the seat is
    seen then; the next call sets it back to its own time."""
    now = now or timezone.now()
    if (
        _touch_update(match_id, player_id, until or now)
        and Presence.objects.filter(match_id=match_id, player_id=player_id, disconnected_at__isnull=False).exists()
    ):
        return seat_reconnect(match_id=match_id, player_id=player_id, now=now)
    return False


def _touch_update(match_id: UUID | str, player_id: object, now: datetime) -> int:
    """``last_seen = now`` where it is older than :data:`TOUCH_EVERY`, later than ``now`` (a long poll
    that ended before its wait), or the seat is disconnected.

    Raw SQL: it runs after every call on a match, and building it with the ORM costs more CPU
    than running it."""
    meta = Presence._meta
    seen, match, player = meta.get_field("last_seen"), meta.get_field("match"), meta.get_field("player")
    gone = meta.get_field("disconnected_at")
    sql = (
        f'UPDATE "{meta.db_table}" SET "{seen.column}" = %s WHERE "{match.column}" = %s AND "{player.column}" = %s'
        f' AND ("{seen.column}" < %s OR "{seen.column}" > %s OR "{gone.column}" IS NOT NULL)'
    )
    params = [
        seen.get_db_prep_value(now, connection),
        match.target_field.get_db_prep_value(match_id, connection),  # type: ignore[union-attr]
        player.target_field.get_db_prep_value(player_id, connection),  # type: ignore[union-attr]
        seen.get_db_prep_value(now - TOUCH_EVERY, connection),
        seen.get_db_prep_value(now, connection),
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


@transaction.atomic
def seat_reconnect(*, match_id: UUID | str, player_id: object, now: datetime | None = None) -> bool:
    """The disconnected player is back within the grace: event ``seat_reconnected``."""
    now = now or timezone.now()
    match = Match.objects.fetch(match_id, lock=True)
    presence = Presence.objects.filter(match_id=match_id, player_id=player_id).first()
    if match is None or presence is None or presence.disconnected_at is None or match.status != MatchStatus.ACTIVE:
        return False
    away = (now - presence.disconnected_at).total_seconds()
    data = {"away_seconds": round(away, 1)}
    event_append(match, {"type": "seat_reconnected", "seat": presence.seat, "data": data}, now)
    presence.disconnected_at, presence.disconnected_seq, presence.last_seen = None, None, now
    presence.save(update_fields=["disconnected_at", "disconnected_seq", "last_seen"])
    return True


# -- timers -------------------------------------------------------------------------------------


def sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Enforce every timeout that is due at ``now`` (a beat task); returns what it did."""
    now = now or timezone.now()
    done = {"tracked": presences_create(now=now), "disconnected": 0, "cancelled": 0, "clock_moves": 0}
    active = Presence.objects.filter(match__status=MatchStatus.ACTIVE)
    timings: dict[Any, Timings] = {}
    for row in active.filter(disconnected_at__isnull=True, last_seen__lt=now - timedelta(seconds=1)):
        timing = timings.setdefault(row.match_id, timings_of(row.match_id))
        if row.last_seen <= now - timedelta(seconds=timing.presence_timeout):
            done["disconnected"] += seat_disconnect(match_id=row.match_id, seat=row.seat, now=now)
    for row in active.filter(disconnected_at__isnull=False):
        timing = timings.setdefault(row.match_id, timings_of(row.match_id))
        assert row.disconnected_at is not None and row.disconnected_seq is not None
        if row.disconnected_at <= now - timedelta(seconds=timing.reconnect_grace):
            done["cancelled"] += grace_expire(match_id=row.match_id, seat=row.seat, seq=row.disconnected_seq, now=now)
    done["clock_moves"] = clock.turn_clocks_sweep(now=now)
    return done


def presences_start(*, match_id: UUID, players: list[Player], now: datetime) -> None:
    """Track the human seats of a match started with more than one human (M2): seat ``n`` is ``players[n]``."""
    Presence.objects.bulk_create(
        Presence(match_id=match_id, seat=n, player=p, last_seen=now) for n, p in enumerate(players)
    )


def presences_create(*, now: datetime) -> int:
    """Start tracking the human seats of active matches with more than one human (M2, not M3)."""
    seated = human_seats()
    matches = Match.objects.filter(status=MatchStatus.ACTIVE, pk__in=with_humans())
    # NOT EXISTS, an anti-join by the index: ``NOT IN`` hashed every presence row ever written.
    tracked = Presence.objects.filter(match=OuterRef("pk"))
    matches = matches.exclude(Exists(tracked)).values_list("pk", flat=True)
    rows = [
        Presence(match_id=s.match_id, seat=s.number, player_id=s.player_id, last_seen=now)
        for s in seated.filter(match__in=list(matches))
    ]
    Presence.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


@transaction.atomic
def seat_disconnect(*, match_id: UUID | str, seat: int, now: datetime | None = None) -> bool:
    """The seat has been silent for ``presence_timeout``: event ``seat_disconnected``; the grace starts."""
    now = now or timezone.now()
    match = Match.objects.fetch(match_id, lock=True)
    # The row locked too: a touch of the seat meanwhile waits for this to commit, then sees the
    # disconnection and reconnects the seat, instead of passing unseen and leaving it disconnected.
    presence = Presence.objects.select_for_update().filter(match_id=match_id, seat=seat).first()
    if match is None or presence is None or match.status != MatchStatus.ACTIVE or presence.disconnected_at:
        return False
    timing = timings_of(match_id)
    if presence.last_seen > now - timedelta(seconds=timing.presence_timeout):
        return False  # heard from meanwhile
    grace = timing.reconnect_grace
    data = {"grace_seconds": grace, "reconnect_by": iso(now + timedelta(seconds=grace))}
    event_append(match, {"type": "seat_disconnected", "seat": seat, "data": data}, now)
    presence.disconnected_at, presence.disconnected_seq = now, match.seq
    presence.save(update_fields=["disconnected_at", "disconnected_seq"])
    seq = match.seq
    transaction.on_commit(lambda: _queue_grace(str(match_id), seat, seq, grace))
    return True


@transaction.atomic
def grace_expire(*, match_id: UUID | str, seat: int, seq: int, now: datetime | None = None) -> bool:
    """The grace of the disconnection recorded at ``seq`` is over: cancel the match (M2).

    Does nothing if the seat came back (or left again: another ``seq``), the match is over, or
    the grace has not run out yet (an early or eager task)."""
    now = now or timezone.now()
    match = Match.objects.fetch(match_id, lock=True)
    presence = Presence.objects.filter(match_id=match_id, seat=seat).first()
    if match is None or presence is None or match.status != MatchStatus.ACTIVE:
        return False
    if presence.disconnected_at is None or presence.disconnected_seq != seq:
        return False
    if now < presence.disconnected_at + timedelta(seconds=timings_of(match_id).reconnect_grace):
        return False
    match_cancel_record(match=match, data={"reason": "seat_abandoned", "seat": seat}, now=now)
    Presence.objects.filter(match=match).delete()  # presence matters while a match is active only
    return True


# -- helpers ------------------------------------------------------------------------------------


def _queue_grace(match_id: str, seat: int, seq: int, grace: int) -> None:
    try:
        queue.enqueue(queue.EXPIRE_GRACE, match_id, seat, seq, countdown=grace)
    except BrokerError:  # the sweep enforces the grace anyway
        logger.exception("Could not queue the grace of seat %s of match %s", seat, match_id)


def presence_of(*, match_id: UUID) -> list[Presence]:
    """Each tracked human seat's presence, by seat (none for a match against bots)."""
    return list(Presence.objects.filter(match_id=match_id).order_by("seat"))
