"""``Idempotency-Key``: the first answer to a keyed request, stored and given again on a retry.

It lives in the API layer: a view runs its service and builds its answer inside :func:`respond_once`,
which keeps that answer (status and body) for the key, in the same transaction as the service's
writes. A retry with the key gets the first answer and runs nothing; the key with another request is
422 ``idempotency_key_reused``. An error that the view raises changes nothing and is not kept, so a
retry runs again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.response import Response

from players.models import Player

from .errors import BadRequest, ErrorCode, Unprocessable
from .models import IdempotencyRecord

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"},  # printable ASCII
    OpenApiParameter.HEADER,
    description="A unique key per request (e.g. a UUID): a retry with the same key and body returns the "
    "first answer and changes nothing; the same key with another request of those that take it (creating "
    "a match or a room, joining a match, an action) is refused (422 "
    "`idempotency_key_reused`). Keys are remembered for 24 hours (the service's `IDEMPOTENCY_KEY_HOURS`). "
    "1 to 255 printable ASCII characters, else 400 `invalid_idempotency_key`.",
)


@dataclass(frozen=True)
class Idempotency:
    """An ``Idempotency-Key`` and what identifies the request it came with."""

    key: str
    method: str
    path: str
    request_hash: str


def idempotency_of(request: Request) -> Idempotency | None:
    """The request's ``Idempotency-Key``, with what identifies the request; None without one."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not 1 <= len(key) <= 255 or not key.isascii() or not key.isprintable():
        raise BadRequest(
            "An Idempotency-Key is 1 to 255 printable ASCII characters.", code=ErrorCode.INVALID_IDEMPOTENCY_KEY
        )
    body = json.dumps(request.data, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(body.encode()).hexdigest()
    return Idempotency(key=key, method=request.method or "POST", path=request.path, request_hash=digest)


@transaction.atomic
def respond_once(request: Request, respond: Callable[[], Response]) -> Response:
    """``respond()``'s answer, once per the request's ``Idempotency-Key`` (none: simply ``respond()``)."""
    idempotency = idempotency_of(request)
    if idempotency is None:
        return respond()
    player: Player = request.user
    first = _first_answer(player, idempotency)
    if first is not None:
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
        raise Unprocessable(
            "This Idempotency-Key was used with another request; use a new key for a new request.",
            code=ErrorCode.IDEMPOTENCY_KEY_REUSED,
        )
    return Response(record.body, status=record.status_code, headers={"Idempotent-Replayed": "true"})


def idempotency_records_purge(*, now: datetime | None = None) -> int:
    """Delete the recorded answers older than ``IDEMPOTENCY_KEY_HOURS``; returns how many."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
