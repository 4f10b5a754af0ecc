"""The latest row of each match this process saved, kept a few seconds for the long polls that follow.

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

A kept row is a shallow copy of the saved instance: the instance's JSON values (the snapshot, the
seating) are replaced whole when the match changes, never changed in place.
"""

from __future__ import annotations

from django.db import transaction

from tute_api.expiring import Expiring
from tute_api.rows import copied

from .models import Match

#: Seconds a row is kept after its save, at most.
KEPT_SECONDS = 10.0
#: Rows kept at most: past it, the oldest go first.
MAX_KEPT = 5_000

_kept: Expiring[str, Match] = Expiring(MAX_KEPT)  # str(match id) -> the row as saved


def keep(match: Match) -> None:
    """Keep ``match`` as it is now, once the current transaction commits (nothing if it rolls back)."""
    saved = copied(match)
    transaction.on_commit(lambda: _kept.put(str(saved.pk), saved, KEPT_SECONDS))


def newer_than(match_id: object, after: int) -> Match | None:
    """A copy of the row kept for the match if its ``seq`` is past ``after``, else None."""
    match = _kept.get(str(match_id))
    return copied(match) if match is not None and match.seq > after else None


def heard(match_id: str, seq: int | None) -> None:
    """The news of a change of the match (``seq`` None: unknown): drop a row kept from before it."""
    match = _kept.get(match_id)
    if match is not None and (seq is None or seq > match.seq):
        with _kept.lock:
            if _kept.get(match_id) is match:
                _kept.pop(match_id)


def forget_all() -> None:
    """Drop every kept row: news may have been missed (the listener lost Redis)."""
    _kept.clear()
