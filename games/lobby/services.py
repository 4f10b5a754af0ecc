"""Writes of play-now: enter and leave the queue, pair a pool into matches, open tables, notices.

The pairing (:func:`queue_pair`) reads the pool's waiting entries, forms the tables (:mod:`.pools`), and
seats each in its own transaction: it locks that table's entries (``skip_locked``: a table whose players
another pairing holds is left to it) and stamps each with the match, only if it had none (a
compare-and-set that also holds on SQLite): a player is never seated twice. The matches are created and
joined through the matches' services, in a savepoint per table: a table that cannot start (a player
vanished, a bot retired) is rolled back, the player who failed leaves the queue, the others wait on.
"""

from __future__ import annotations

import json
import logging
import secrets
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import engine
from games.live import channels
from games.matches.errors import engine_error
from games.matches.models import Match, MatchStatus
from games.matches.selectors import Membership
from games.matches.services import match_create, match_join
from games.ratings.anchors import anchor_ratings
from games.ratings.models import Rating
from players.models import Bot, Player
from tute_api import rows
from tute_api.after_response import on_commit_later
from tute_api.errors import ApiError

from . import pools
from .errors import Conflict, ErrorCode, NotFound, Unprocessable
from .models import Notice, NoticeKind, OpenTable, QueueEntry

logger = logging.getLogger(__name__)

PAIR_QUEUE = "lobby.tasks.pair_queue"
#: At most this many waiting players of a pool are read by one pairing.
PAIR_BATCH = 2000
#: How often a queued player's sign of life is written at most (their GET /queue/ and channel reads).
SEEN_EVERY = timedelta(seconds=5)


def _rating(player_id: object, variant: str) -> float:
    found = Rating.objects.filter(player_id=player_id, variant=variant).values_list("rating", flat=True).first()
    return float(found) if found is not None else 1500.0


def pool_of(variant: str, options: dict[str, Any], rated: bool, humans_only: bool) -> str:
    return json.dumps([variant, options, rated, humans_only], sort_keys=True, separators=(",", ":"))


def _enqueue_pairing(pool: str) -> None:
    def send() -> None:
        try:
            current_app.tasks[PAIR_QUEUE].delay(pool)
        except Exception:  # the broker is away: the beat's sweep pairs the pool
            logger.warning("Could not queue the pairing of %s", pool, exc_info=True)

    on_commit_later(send)  # after the answer: a broker that is away delays no one


def _notify(player_ids: list[str]) -> None:
    names = [channels.player_channel(p) for p in player_ids]
    transaction.on_commit(lambda: channels.publish(*names))


def notices_add(notices: list[Notice]) -> None:
    """Store messages of players' channels (one statement) and wake their readers once the transaction
    commits. A move's ``your_turn`` goes with the move instead (:mod:`games.lobby.news`)."""
    rows.insert(Notice, notices)
    _notify([str(n.player_id) for n in notices])


# -- the queue ------------------------------------------------------------------------------------


@transaction.atomic
def queue_enter(
    *,
    player: Player,
    variant: str,
    options: dict[str, Any] | None = None,
    rated: bool = True,
    humans_only: bool = False,
) -> QueueEntry:
    """The player waits in the pool of ``variant`` and ``options``; 409 ``already_queued`` when they
    wait in a queue already (leave it first)."""
    try:
        checked = engine.validate_options(variant, options)
    except engine.EngineError as exc:
        raise engine_error(exc) from None
    Player.objects.lock(player.pk)
    current = QueueEntry.objects.filter(player=player).first()
    if current is not None and current.match_id is None:
        raise Conflict("You wait in a queue already: leave it first (DELETE /queue/).", code=ErrorCode.ALREADY_QUEUED)
    if current is not None:  # seated by an earlier wait: that entry is done
        current.delete()
    now = timezone.now()
    pool = pool_of(variant, checked, rated, humans_only)
    entry = QueueEntry.objects.create(
        player=player,
        variant=variant,
        options=checked,
        pool=pool,
        rated=rated,
        humans_only=humans_only,
        is_bot=Bot.objects.filter(pk=player.pk).exists(),
        rating=_rating(player.pk, variant),
        entered_at=now,
        seen_at=now,
    )
    _enqueue_pairing(pool)  # the bots' seats, after the maximum wait, are the beat's sweep's (every second)
    return entry


def queue_touch(*, player: Player, now: datetime | None = None) -> None:
    """A sign of life of a waiting player: written at most every few seconds."""
    now = now or timezone.now()
    QueueEntry.objects.filter(player=player, match__isnull=True, seen_at__lt=now - SEEN_EVERY).update(seen_at=now)


@transaction.atomic
def queue_leave(*, player: Player) -> None:
    """The player leaves the queue; 404 ``not_queued`` when they wait in none."""
    deleted, _ = QueueEntry.objects.filter(player=player, match__isnull=True).delete()
    if not deleted:
        raise NotFound("You wait in no queue.", code=ErrorCode.NOT_QUEUED)


def queue_pair(*, pool: str, now: datetime | None = None) -> list[Match]:
    """Seat the pool's waiting players who may sit together now in new matches, each table in its own
    transaction (so each is told as soon as it is seated, and pairings run side by side); idempotent (a
    second run finds them seated). Returns the matches created."""
    now = now or timezone.now()
    entries = list(QueueEntry.objects.filter(pool=pool, match__isnull=True).order_by("entered_at")[:PAIR_BATCH])
    if not entries:
        return []
    first = entries[0]
    seats = engine.player_count(first.variant, first.options)
    waiting = [
        pools.Waiter(str(e.pk), e.rating, (now - e.entered_at).total_seconds(), e.is_bot, e.humans_only)
        for e in entries
    ]
    anchors = {level: float(r) for level, r in anchor_ratings(first.variant).items()}
    ratings = {str(e.pk): e.rating for e in entries}
    created = []
    for table in pools.tables(waiting, seats, settings.QUEUE_MAX_WAIT_SECONDS):
        keys = [w.key for w in table.players]
        level = pools.bot_level([ratings[k] for k in keys], anchors) if table.bots else ""
        match = _seat(keys, table.bots, level, seats)
        if match is not None:
            created.append(match)
    return created


@transaction.atomic
def _seat(keys: list[str], bots: int, level: str, seats: int) -> Match | None:
    """One table of the queue, if its players still wait and no other pairing holds them: seat order drawn
    (so partners too, in pair variants)."""
    locked = {
        str(e.pk): e
        for e in QueueEntry.objects.select_for_update(skip_locked=True)
        .select_related("player")
        .filter(pk__in=keys, match__isnull=True)
    }
    if len(locked) != len(keys):  # seated, gone, or held by another pairing: it pairs them, or the next one
        return None
    group = [locked[k] for k in keys]
    order = list(range(seats))
    secrets.SystemRandom().shuffle(order)
    at = {e.pk: order[n] for n, e in enumerate(group)}
    host = group[0]
    specs: list[Any] = [{"bot": level} if n in order[len(group) :] else {"open": True} for n in range(seats)]
    specs[at[host.pk]] = {"player": "me"}
    failed: QueueEntry | None = None
    try:
        with transaction.atomic():
            match = match_create(
                player=host.player, variant=host.variant, options=host.options, seats=specs, rated=host.rated
            ).match
            seated_at = timezone.now()
            # Before the joins: the last one starts the match and may write a your_turn in this
            # transaction (settings.MATCH_RECORDERS), which comes after "match ready".
            notices_add(
                [
                    Notice(
                        player_id=e.player_id,
                        kind=NoticeKind.MATCH_READY,
                        match_id=match.id,
                        data={"seat": at[e.pk], "variant": match.variant},
                        created_at=seated_at,
                    )
                    for e in group
                ]
            )
            for entry in group[1:]:
                failed = entry
                match_join(player=entry.player, match_id=match.id, invite_code=match.invite_code, seat=at[entry.pk])
            failed = None
            stamped = QueueEntry.objects.filter(pk__in=[e.pk for e in group], match__isnull=True).update(
                match=match, seated_at=seated_at
            )
            if stamped != len(group):  # another pairing seated one of them (SQLite has no row locks)
                raise _Taken()
    except _Taken:
        return None
    except ApiError:
        gone = failed or host
        logger.info("A queued table could not start: %s leaves the queue", gone.player_id)
        QueueEntry.objects.filter(pk=gone.pk).delete()
        notices_add([Notice(player_id=gone.player_id, kind=NoticeKind.QUEUE_LEFT, data={"reason": "cannot_sit"})])
        return None
    return match


class _Taken(Exception):
    pass


def queue_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """The beat's sweep: drop the players with no sign of life for ``QUEUE_GONE_SECONDS``, then pair
    every pool with someone waiting (each in its own transaction)."""
    now = now or timezone.now()
    gone_before = now - timedelta(seconds=settings.QUEUE_GONE_SECONDS)
    with transaction.atomic():
        gone = list(
            QueueEntry.objects.select_for_update(skip_locked=True).filter(match__isnull=True, seen_at__lt=gone_before)
        )
        QueueEntry.objects.filter(pk__in=[e.pk for e in gone]).delete()
        if gone:
            notices_add(
                [Notice(player_id=e.player_id, kind=NoticeKind.QUEUE_LEFT, data={"reason": "gone"}) for e in gone]
            )
    seated = 0
    for pool in QueueEntry.objects.filter(match__isnull=True).values_list("pool", flat=True).distinct():
        seated += len(queue_pair(pool=pool, now=now))
    return {"gone": len(gone), "matches": seated}


# -- open tables ---------------------------------------------------------------------------------


@transaction.atomic
def table_create(
    *, player: Player, variant: str, seats: list[Any], options: dict[str, Any] | None = None
) -> Membership:
    """A match with open seats, listed in the open tables: anyone may sit without its invite code."""
    if {"open": True} not in seats:
        raise Unprocessable(
            "An open table has an open seat at least.",
            code="invalid_seats",
            field="seats",  # the matches' code
        )
    membership = match_create(player=player, variant=variant, options=options, seats=seats)
    OpenTable.objects.create(match=membership.match)
    return membership


@transaction.atomic
def table_sit(*, player: Player, match_id: UUID, seat: int | None = None) -> Membership:
    """The player takes a free seat of an open table (the matches' join, without a code); the host is told.

    The host's ``seat_taken`` is written before the join, which may start the match and write its first
    ``your_turn`` in this transaction (``settings.MATCH_RECORDERS``): the messages come in that order. The
    match is locked first, so that the seat the join takes (the one asked for, or the first open one, as
    the join picks it) is the one the message names."""
    table = OpenTable.objects.filter(match_id=match_id).first()
    match = Match.objects.fetch(match_id, lock=True) if table is not None else None
    if table is None or match is None:
        raise NotFound("No open table with that id.", code=ErrorCode.TABLE_NOT_FOUND)
    open_seats = [s["seat"] for s in match.seating if s["kind"] == "open"]
    taking = seat if seat is not None else next(iter(open_seats), None)
    if taking in open_seats:  # else the join refuses it, and this transaction writes nothing
        told = Notice(
            player_id=match.created_by_id,
            kind=NoticeKind.SEAT_TAKEN,
            match_id=match.id,
            data={"seat": taking, "seats_free": len(open_seats) - 1},
        )
        notices_add([told])
    membership = match_join(player=player, match_id=match_id, invite_code=match.invite_code, seat=taking)
    if membership.match.status != MatchStatus.WAITING:
        table.delete()
    return membership
