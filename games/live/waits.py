"""Long polls: a request that waits for news (``?after=&wait=`` on a match or its events,
``/me/turns?wait=``, ``/me/notices?wait=``) subscribes to its channel first and reads second, so that news published in
between is not missed, then sleeps on the subscription holding no database connection.

Two ways to wait, one answer:

- under ASGI (the service's server), the view is a coroutine (:meth:`.deferred.DeferrableApi.as_async_view`):
  the DRF view, run in a thread, authenticates, validates and reads once; if it must wait it returns a
  :class:`WaitingResponse`, and the coroutine awaits the channel holding no thread and no database
  connection, then reads again (a short read in a thread) and answers;
- under WSGI (the test client, ``manage.py runserver`` without ASGI), the thread sleeps on the subscription.

Either way a wait holds one of the player's slots (:mod:`.slots`, 429 ``too_many_connections``
beyond the cap) and a spectator's holds a lease among the match's watchers (:mod:`.watchers`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TypeVar
from uuid import UUID

from django.db import close_old_connections, connection
from django.http import HttpResponse, HttpResponseBase

from games.matches import kept
from games.matches.models import Match, MatchStatus
from games.matches.selectors import MAX_WAIT_SECONDS, Membership, match_membership, membership_of
from players.models import Player

from . import channels, shutdown, watchers
from .slots import connection_slot

T = TypeVar("T")

_deferring: ContextVar[bool] = ContextVar("live_waits_deferring", default=False)


def deferring() -> bool:
    """The view runs for an ASGI coroutine, which does the waiting: return a :class:`WaitingResponse`."""
    return _deferring.get()


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within: a view that must wait returns a :class:`WaitingResponse` for the caller to await."""
    token = _deferring.set(True)
    try:
        yield
    finally:
        _deferring.reset(token)


class WaitingResponse(HttpResponse):
    """Not an answer yet: what the ASGI coroutine awaits (``channel``, at most ``timeout`` seconds).
    At each wake ``answer_if_ready()`` reads once and answers if the news it waits for came (else None);
    when the time is up, ``answer()``, or ``answer_unchanged()`` when given and nothing was published
    on the channel since a subscription made before the view's first read (no read: what it read is
    still so); ``release`` runs once it is done."""

    def __init__(
        self,
        *,
        channel: str,
        timeout: float,
        answer_if_ready: Callable[[], HttpResponseBase | None],
        answer: Callable[[], HttpResponseBase],
        release: list[Callable[[], None]],
        answer_unchanged: Callable[[], HttpResponseBase] | None = None,
    ) -> None:
        super().__init__(status=204)
        self.channel, self.timeout, self.release = channel, timeout, release
        self.answer_if_ready, self.answer = answer_if_ready, answer
        self.answer_unchanged = answer_unchanged or answer

    def done(self) -> None:
        """Once its wait is over: runs ``release`` and drops its steps, closures that refer back to it
        through the view that made them (so that reference counting frees it: tute_api/cycles.py)."""
        release, self.release = self.release, []
        del self.answer, self.answer_if_ready, self.answer_unchanged
        for step in release:
            step()


def refresh_connection() -> None:
    """Before a read of a long wait: drop a connection that broke or aged meanwhile (not inside a
    transaction: a test's, say, which Django's check would close for good)."""
    if not connection.in_atomic_block:
        close_old_connections()


def release_connection() -> None:
    """Give the database connection back while waiting (not inside a transaction: a test's, say)."""
    if not connection.in_atomic_block:
        connection.close()  # back to the pool, if any; the next query reconnects


def _settled(match: Match, after: int) -> bool:
    return match.seq > after or match.status in (MatchStatus.FINISHED, MatchStatus.CANCELLED)


def _first_look(match_id: UUID, player: Player) -> Membership:
    """A long poll's first look at the match and the caller's seat, made after it subscribed: the row this
    process keeps when it hears every match's news (:func:`games.matches.kept.latest`), else read (and
    kept for the next look: :func:`games.matches.kept.keep_read`). 404 as
    :func:`~games.matches.selectors.match_membership`."""
    if not channels.hears_everything():
        return match_membership(match_id=match_id, player=player)
    row = kept.latest(match_id)
    if row is not None and (membership := membership_of(row, player)) is not None:
        return membership
    since = kept.listened()
    membership = match_membership(match_id=match_id, player=player)
    kept.keep_read(membership.match, since)
    return membership


def kept_or_read(match_id: UUID, after: int) -> Match | None:
    """After a wait, the match: the row kept past ``after``, else read, and kept when the process hears every
    match's news (:func:`games.matches.kept.keep_read`): the other waits that the same news woke, and the
    client's next long poll, take it."""
    if not channels.hears_everything():
        return Match.objects.fetch(match_id)
    if (row := kept.newer_than(match_id, after)) is not None:
        return row
    since = kept.listened()
    match = Match.objects.fetch(match_id)
    if match is not None:
        kept.keep_read(match, since)
    return match


def match_long_poll(
    *, match_id: UUID, player: Player, after: int | None, wait: float, answer: Callable[[Membership], HttpResponseBase]
) -> HttpResponseBase:
    """``answer`` the caller's :func:`~games.matches.selectors.match_membership`, as a long poll when
    ``after`` and ``wait`` are given: the match once its ``seq`` is past ``after``, or as it is after
    ``wait`` seconds. Answers at once when the match is already past ``after``, or over (nothing more
    will happen), or the server is shutting down."""
    if after is None or wait <= 0:
        return answer(match_membership(match_id=match_id, player=player))
    timeout = min(wait, MAX_WAIT_SECONDS)
    if deferring():
        membership = _first_look(match_id, player)
        if _settled(membership.match, after) or shutdown.draining():
            return answer(membership)
        slot = connection_slot(player.pk, "long_poll").acquire()
        release = [slot.release]
        if membership.spectator:
            try:
                watch = watchers.Watch(match_id)
                watch.enter()
            except Exception:
                slot.release()
                raise
            release.append(watch.leave)
        release_connection()

        def fresh(*, moved_only: bool = False) -> HttpResponseBase | None:
            """The match read once: answered (or, ``moved_only``, only if it moved past ``after``)."""
            match = kept_or_read(match_id, after)
            if moved_only and match is not None and not _settled(match, after):
                release_connection()
                return None
            return answer(Membership(match or membership.match, membership.seat, spectator=membership.spectator))

        return WaitingResponse(
            channel=channels.match_channel(match_id),
            timeout=timeout,
            answer_if_ready=lambda: fresh(moved_only=True),
            answer=fresh,
            # Every change of a match publishes on its channel (games/matches/news.py): with none since
            # the first read, the match is as read then.
            answer_unchanged=lambda: answer(membership),
            release=release,
        )
    with channels.subscribe(channels.match_channel(match_id)) as subscription:
        membership = _first_look(match_id, player)
        match = membership.match
        if _settled(match, after):
            return answer(membership)
        with connection_slot(player.pk, "long_poll"):
            if membership.spectator:
                with watchers.watching(match_id):
                    release_connection()
                    subscription.wait(timeout)
            else:
                release_connection()
                subscription.wait(timeout)
        fresh_match = kept_or_read(match_id, after)
    return answer(Membership(fresh_match or match, membership.seat, spectator=membership.spectator))


def player_long_poll(
    *,
    player: Player,
    kind: str,
    timeout: float,
    read: Callable[[], list[T]],
    answer: Callable[[list[T]], HttpResponseBase],
) -> HttpResponseBase:
    """``answer`` what ``read`` finds for the player (their turns, ``/me/turns``; their messages,
    ``/me/notices``), waiting on the player's own channel up to ``timeout`` seconds when it finds nothing.
    ``kind``: the slot the wait holds (:mod:`.slots`)."""
    if deferring():
        found = read()
        if found or timeout <= 0 or shutdown.draining():
            return answer(found)
        slot = connection_slot(player.pk, kind).acquire()
        release_connection()

        def answer_if_found() -> HttpResponseBase | None:
            if found := read():
                return answer(found)
            release_connection()
            return None

        return WaitingResponse(
            channel=channels.player_channel(player.pk),
            timeout=timeout,
            answer_if_ready=answer_if_found,
            answer=lambda: answer(read()),
            release=[slot.release],
        )
    with channels.subscribe(channels.player_channel(player.pk)) as subscription:
        found = read()
        if found or timeout <= 0:
            return answer(found)
        with connection_slot(player.pk, kind):
            deadline = time.monotonic() + timeout
            while not found and (left := deadline - time.monotonic()) > 0:
                release_connection()
                if subscription.wait(left):
                    found = read()
    return answer(found)
