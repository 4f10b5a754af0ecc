"""The latest row of each match this process saved or a long poll read, kept for the long polls that follow.

A player's action is answered with the table right after it; the client then long-polls
(``?after=<seq>&wait=``) for the bots' answer, which was recorded with the action (docs/clients.md), so
the long poll is answered at once, by reading again the row that the action's process has just
written. :func:`keep` keeps that row, once its transaction commits; :func:`newer_than` gives a copy of it
to a long poll whose ``after`` it is past.

Why a kept row may answer a long poll: every write of a match locks its row and its ``seq`` only grows,
so a row saved at a ``seq`` past ``after`` holds every change the caller had seen, and is a state the
match was in; a long poll asks for no more than that (one past ``after``), and a caller who then acts on
a table that moved on since gets 409 ``stale_seq``, as it would after any read. The live updates'
listener, which hears every match's news in every process, drops a kept row as soon as a later ``seq``
of its match is announced (:func:`heard`), and forgets them all when it loses Redis (:func:`forget_all`);
the long polls use kept rows only while it listens (``games.live.waits``). A plain ``GET`` and every
write read the database.

A kept row is also a long poll's first look (:func:`latest`): whether the match has moved past ``after``
or the poll must wait. Clients that wait on a match with nothing happening renew their long polls every
few seconds, each renewal reading the match to find that it has not moved: the row a long poll read is
kept too (:func:`keep_read`), and the next look takes it. No row is kept past later news of its match
(a write of another process that this one heard before it kept the row it saved or read). A look at a row
that news is about to drop finds the match not moved, and waits: the news, heard after it subscribed,
wakes it at once.

A kept row is a shallow copy of the saved instance: the instance's JSON values (the snapshot, the
seating) are replaced whole when the match changes, never changed in place.

The same hearing lets the subscribers of a match share their reads (:func:`shared`): every stream and
socket on a match reads its new events when news wakes them, the same rows from the same ``seq``. The
first read is kept until news of the match comes (or 2 s), and the others take it. A read that news of
the match may have overtaken (any news heard while it ran, or Redis lost) is not kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import transaction

from tute_api.expiring import Expiring
from tute_api.rows import copied

from .models import Match

#: Seconds a row is kept after its save or its read, at most: past a long poll's longest wait
#: (``MAX_WAIT_SECONDS``), so that the next look of a client that waits on an idle match finds it.
KEPT_SECONDS = 40.0
#: Rows kept at most: past it, the oldest go first.
MAX_KEPT = 5_000

_kept: Expiring[str, Match] = Expiring(MAX_KEPT)  # str(match id) -> the row as saved or read
# str(match id) -> the latest seq its news announced (inf: a change of unknown seq), for as long as a row is kept
_announced: Expiring[str, float] = Expiring(10 * MAX_KEPT)

#: Seconds a shared read is kept at most (news of its match drops it at once).
SHARED_SECONDS = 2.0

_shared: Expiring[str, dict[Any, Any]] = Expiring(MAX_KEPT)  # str(match id) -> {what was read: the read}
_heard = 0  # news heard, and losses of Redis, counted (by the listener's thread only)
_listened = 0  # the listener's losses of Redis and its listening again, counted (by its thread only)

T = TypeVar("T")


def keep(match: Match) -> None:
    """Keep ``match`` as it is now, once the current transaction commits (nothing if it rolls back)."""
    saved, since = copied(match), _listened
    transaction.on_commit(lambda: _keep(saved, since))


def _keep(row: Match, since: int) -> None:
    """Keep ``row`` unless a later row of its match is kept, or later news of it was heard (another process
    may have changed the match between this one's commit or read and now, and told it already), or the
    listener lost Redis or listened again since ``since`` (:func:`listened`: news may have gone unheard)."""
    key = str(row.pk)
    with _kept.lock:
        current, announced = _kept.get(key), _announced.get(key)
        fresh = (current is None or current.seq <= row.seq) and (announced is None or announced <= row.seq)
        if fresh and _listened == since:
            _kept.put(key, row, KEPT_SECONDS)


def listened() -> int:
    """How many times the listener lost Redis or listened again: taken before a read, for :func:`keep_read`."""
    return _listened


def latest(match_id: object) -> Match | None:
    """A copy of the row kept for the match, whatever its ``seq``: the match as it is, but for news on its
    way (which then wakes the waits that follow)."""
    match = _kept.get(str(match_id))
    return copied(match) if match is not None else None


def keep_read(match: Match, since: int) -> None:
    """Keep a row read from the database (outside a transaction), unless a later row is kept, later news
    of the match was heard (the read may be older than that news), or the listener lost Redis or listened
    again since ``since`` (:func:`listened`, taken before the read)."""
    _keep(copied(match), since)


def newer_than(match_id: object, after: int) -> Match | None:
    """A copy of the row kept for the match if its ``seq`` is past ``after``, else None."""
    match = _kept.get(str(match_id))
    return copied(match) if match is not None and match.seq > after else None


def shared(match_id: str, key: Any, read: Callable[[], T]) -> T:
    """``read()`` of the match (``key`` says what it reads), or the same read made by this process since the
    match's latest news, if kept. Call only while the process hears every process's news."""
    reads = _shared.get(match_id)
    if reads is not None and key in reads:
        return reads[key]  # type: ignore[no-any-return]
    counted = _heard
    value = read()
    with _shared.lock:
        if _heard == counted:  # no news overtook the read
            reads = _shared.get(match_id)
            if reads is None:
                _shared.put(match_id, reads := {}, SHARED_SECONDS)
            reads[key] = value
    return value


def heard(match_id: str, seq: int | None) -> None:
    """The news of a change of the match (``seq`` None: unknown): drop a row kept from before it, and the
    match's shared reads."""
    global _heard
    _heard += 1  # first: a shared read running now is not kept
    _shared.pop(match_id)
    announced = math.inf if seq is None else seq
    with _kept.lock:  # first the seq announced, then the row dropped: a row kept after it is checked against it
        if announced > (_announced.get(match_id) or -1):
            _announced.put(match_id, announced, KEPT_SECONDS)
        match = _kept.get(match_id)
        if match is not None and announced > match.seq:
            _kept.pop(match_id)


def forget_all() -> None:
    """Drop every kept row and shared read: news may have been missed (the listener lost Redis, or listens
    again: a row this process saved meanwhile may have been changed since by another, unheard)."""
    global _heard, _listened
    _heard += 1
    _listened += 1
    _shared.clear()
    _kept.clear()
    _announced.clear()
