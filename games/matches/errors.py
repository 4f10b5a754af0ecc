"""The errors of the matches: a code enum, one class per HTTP status, and the engine's errors mapped.

Every error leaves the service as problem details (:mod:`tute_api.errors`) with a stable ``code``:
the engine's codes (``must_follow_suit``, ``not_your_turn``, …) and the service's own below.
"""

from __future__ import annotations

from enum import StrEnum

from games.engine import Code, EngineError, InvalidOptions
from tute_api.errors import ApiError


class ErrorCode(StrEnum):
    NOT_FOUND = "not_found"
    STALE_SEQ = "stale_seq"
    MATCH_NOT_OVER = "match_not_over"
    MATCH_NOT_WAITING = "match_not_waiting"
    NOT_SEATED = "not_seated"
    ALREADY_SEATED = "already_seated"
    SEAT_TAKEN = "seat_taken"
    NO_OPEN_SEAT = "no_open_seat"
    INVALID_INVITE_CODE = "invalid_invite_code"
    INVALID_SEATS = "invalid_seats"
    UNKNOWN_BOT = "unknown_bot"
    SEED_NOT_ALLOWED = "seed_not_allowed"
    CLIENT_SEED_NOT_ALLOWED = "client_seed_not_allowed"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    INVALID_IDEMPOTENCY_KEY = "invalid_idempotency_key"
    SEQ_OUT_OF_RANGE = "seq_out_of_range"


class BadRequest(ApiError):
    status_code = 400
    default_code = "bad_request"


class Forbidden(ApiError):
    status_code = 403
    default_code = "permission_denied"


class NotFound(ApiError):
    status_code = 404
    default_code = ErrorCode.NOT_FOUND.value
    default_detail = "No such match among yours."


class Conflict(ApiError):
    """The request does not fit the match's current state (409)."""

    status_code = 409
    default_code = "conflict"


class Unprocessable(ApiError):
    """Well-formed, but a rule or a constraint refuses it (422)."""

    status_code = 422
    default_code = "unprocessable"


#: Engine codes that are conflicts with the current state rather than rules broken.
_CONFLICTS = {Code.NOT_YOUR_TURN, Code.MATCH_NOT_ACTIVE}


def sentence(message: str) -> str:
    """An engine's message (``"O1 is not in seat 2's hand"``) in the service's voice: a sentence, capitalized
    and closed with a full stop, as every other ``detail``."""
    message = message.strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message.endswith((".", "?", "!")) else message + "."


def engine_error(exc: EngineError) -> ApiError:
    """The API error for an engine error: 409 for a turn or a match that moved on, else 422; its detail in the
    service's voice (:func:`sentence`)."""
    extra: dict[str, str] = {}
    if exc.rule:
        extra["rule"] = exc.rule
    if isinstance(exc, InvalidOptions):
        extra["field"] = "variant" if exc.field == "variant" else f"options.{exc.field}"
    cls = Conflict if exc.code in _CONFLICTS else Unprocessable
    return cls(sentence(exc.message), code=str(exc.code), **extra)
