"""``Idempotency-Key``: the first answer to a keyed request, stored and given again on a retry.

It lives in the API layer: a view runs its service and builds its answer inside :func:`respond_once`,
which keeps that answer (status and body) for the key, in the same transaction as the service's
writes. A retry with the key gets the first answer and runs nothing; the key with another request is
422 ``idempotency_key_reused``. An error that the view raises changes nothing and is not kept, so a
retry runs again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.response import Response

from players.models import Player
from players.signup import signup_answers_purge
from tute_api.idempotency import IDEMPOTENCY_HEADER, Idempotency, IdempotencyKeyReused, idempotency_of

from .models import IdempotencyRecord

__all__ = [
    "IDEMPOTENCY_HEADER",
    "Idempotency",
    "answer_once",
    "idempotency_of",
    "idempotency_records_purge",
    "respond_once",
]


def respond_once(
    request: Request, respond: Callable[[], Response], location: Callable[[Any], str] | None = None
) -> Response:
    """``respond()``'s answer, once per the request's ``Idempotency-Key`` (none: simply ``respond()``).
    ``location``: the ``Location`` of a 201 answer, from its body, given again with the first answer."""
    return answer_once(request.user, idempotency_of(request), respond, location)


def answer_once(
    player: Player,
    idempotency: Idempotency | None,
    respond: Callable[[], Response],
    location: Callable[[Any], str] | None = None,
) -> Response:
    """``respond()``'s answer, once per ``idempotency``'s key (None: simply ``respond()``): an HTTP
    request's, or an action sent over a match's WebSocket (``games.live.sockets``), which names the
    same path, so that a key retried over either transport gets the first answer.

    Without a key no transaction is opened here: ``respond()``'s service has its own, and one around it
    cost every unkeyed action two more round trips (a savepoint and its release)."""
    if idempotency is None:
        return respond()
    with transaction.atomic():
        return _answer_once(player, idempotency, respond, location)


def _answer_once(
    player: Player, idempotency: Idempotency, respond: Callable[[], Response], location: Callable[[Any], str] | None
) -> Response:
    first = _first_answer(player, idempotency)
    if first is not None:
        if location is not None and first.status_code == 201:
            first["Location"] = location(first.data)
        return first
    response = respond()
    IdempotencyRecord.objects.create(
        player=player,
        key=idempotency.key,
        method=idempotency.method,
        path=idempotency.path,
        request_hash=idempotency.request_hash,
        status_code=response.status_code,
        body=response.data,
    )
    return response


def _first_answer(player: Player, idempotency: Idempotency) -> Response | None:
    """The first answer to this key, if any; 422 if the key came with another request."""
    Player.objects.lock(player.pk)  # one keyed request at a time
    record = IdempotencyRecord.objects.filter(player=player, key=idempotency.key).first()
    if record is None:
        return None
    if (record.method, record.path, record.request_hash) != (
        idempotency.method,
        idempotency.path,
        idempotency.request_hash,
    ):
        raise IdempotencyKeyReused()
    return Response(record.body, status=record.status_code, headers={"Idempotent-Replayed": "true"})


def idempotency_records_purge(*, now: datetime | None = None) -> int:
    """Delete the recorded answers older than ``IDEMPOTENCY_KEY_HOURS``, sign-ups' included; returns how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted + signup_answers_purge(now=now)
