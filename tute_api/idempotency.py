"""``Idempotency-Key``: the header, and what identifies the request it came with.

The answers are kept by those who take the key: a player's requests in ``games.matches.idempotency``,
a sign-up, which has no player yet, in ``players.signup``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request

from .errors import ApiError


class InvalidIdempotencyKey(ApiError):
    status_code = 400
    default_code = "invalid_idempotency_key"
    default_detail = "An Idempotency-Key is 1 to 255 printable ASCII characters."


class IdempotencyKeyReused(ApiError):
    status_code = 422
    default_code = "idempotency_key_reused"
    default_detail = "This Idempotency-Key was used with another request; use a new key for a new request."


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
    return idempotency_for(request.headers.get("Idempotency-Key"), request.method or "POST", request.path, request.data)


def idempotency_for(key: object, method: str, path: str, data: object) -> Idempotency | None:
    """A key (None: none) with what identifies its request: the method, the path and the body
    (a WebSocket's action names the path and body of ``POST …/actions``)."""
    if key is None:
        return None
    if not isinstance(key, str) or not 1 <= len(key) <= 255 or not key.isascii() or not key.isprintable():
        raise InvalidIdempotencyKey()
    body = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(body.encode()).hexdigest()
    return Idempotency(key=key, method=method, path=path, request_hash=digest)
