"""A token's player, kept in the process for ``settings.TOKEN_CACHE_SECONDS``, and revoked in every
process as soon as the token is deleted.

Every authenticated request looked its token up in the database (a round trip, and the query's CPU
in the server and in PostgreSQL). A player's requests come a few a second, so the answer is kept,
per process, for a few seconds; but a token that is rotated or deleted (a rotation, a retired bot,
the admin) must stop working everywhere at once, not when its entry expires. So:

- **A deletion revokes.** Every ``Token`` deleted through the ORM (a queryset's ``delete()`` sends
  ``post_delete`` for each) is revoked at once and again once its transaction commits, before the
  request that deleted it answers: this process forgets it, and ``settings.TOKEN_REVOCATIONS`` (an object with
  ``listening()`` and ``revoke(digests)``; ``games.live.channels.token_revocations``, the live
  updates' broker) tells every other process, which forgets it as soon as it hears.
- **Nothing is kept that a revocation may have missed.** A process keeps (and answers from) entries
  only while ``listening()`` says that it hears every revocation published: over Redis, while its
  listener is subscribed (without Redis, as under ``make run``, nothing is kept: the processes would
  have no way to tell each other). A listener that loses Redis forgets everything (:func:`forget_all`) and
  the process reads the database until it listens again. A read that a revocation overtook (the
  token looked up before the deletion committed, and the answer back after the revocation was
  heard) is not kept: every revocation bumps a generation that the read compares.
- What is left: another process answers from its entry for the milliseconds between the revocation's
  publication and its listener reading it; a token deleted without the ORM (SQL by hand) or a
  revocation lost on a connection that died silently, works at most ``TOKEN_CACHE_SECONDS`` more.

Only found tokens are kept (an unknown token is read every time), as the player's row, from which
each request gets a new instance: nothing one request sets on its player reaches another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, transaction
from django.utils.module_loading import import_string

from tute_api.expiring import Expiring

from .models import Player, Token

#: Entries at most: past it, the oldest go first (each costs about 300 bytes).
MAX_ENTRIES = 20_000


class Revocations(Protocol):
    """How the processes of a deployment tell each other of revoked tokens (``settings.TOKEN_REVOCATIONS``)."""

    def listening(self) -> bool:
        """Whether this process hears, from now on, every revocation any process publishes."""

    def revoke(self, digests: Iterable[str]) -> None:
        """Tell every process (this one included) to forget these digests."""


_entries: Expiring[str, tuple[Any, ...]] = Expiring(MAX_ENTRIES)  # digest -> the player's row
_generation = 0  # bumped by every revocation: a read it overtook is not kept
_revocations: tuple[str, Revocations] | None = None


def revocations() -> Revocations:
    """The object that ``settings.TOKEN_REVOCATIONS`` names, imported once."""
    global _revocations
    path = settings.TOKEN_REVOCATIONS
    if _revocations is None or _revocations[0] != path:
        _revocations = (path, import_string(path))
    return _revocations[1]


def player_by_digest(digest: str, read: Callable[[str], Player | None]) -> Player | None:
    """The player holding the token of this digest, as ``read(digest)`` finds it in the database, or
    as it found it less than ``TOKEN_CACHE_SECONDS`` ago in this process (and no revocation since)."""
    seconds = settings.TOKEN_CACHE_SECONDS
    if seconds <= 0 or not revocations().listening():
        return read(digest)
    row = _entries.get(digest)
    if row is not None:
        return Player.from_db(DEFAULT_DB_ALIAS, None, row)
    generation = _generation
    player = read(digest)
    if player is not None:
        row = tuple(getattr(player, field.attname) for field in Player._meta.concrete_fields)
        with _entries.lock:
            if generation == _generation and revocations().listening():
                _entries.put(digest, row, seconds)
    return player


def forget(digests: Iterable[str]) -> None:
    """Revoked tokens: forget them, and keep no read begun before."""
    global _generation
    with _entries.lock:
        _generation += 1
        for digest in digests:
            _entries.pop(digest)


def forget_all() -> None:
    """Forget every token: revocations may have been missed (the process stopped listening)."""
    global _generation
    with _entries.lock:
        _generation += 1
        _entries.clear()


def revoke(digest: str) -> None:
    """A token deleted in the current transaction: revoke it everywhere now, and again once the
    deletion commits (before the request answers: Django runs ``on_commit`` callbacks right after the
    commit), for a read that another process made before the commit and kept meanwhile. (Revoked and
    rolled back, the token is only read again.)"""
    _revoke(digest)
    transaction.on_commit(lambda: _revoke(digest))


def _revoke(digest: str) -> None:
    forget([digest])
    revocations().revoke([digest])


def token_deleted(sender: type[Token], instance: Token, **kwargs: Any) -> None:
    """``post_delete`` of a token (connected by ``players.apps``): revoke it."""
    revoke(instance.digest)
