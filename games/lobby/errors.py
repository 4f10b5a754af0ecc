"""Play-now's error codes; the error classes are the matches' (one status each)."""

from __future__ import annotations

from enum import StrEnum

from games.matches.errors import Conflict, Forbidden, NotFound, Unprocessable

__all__ = ["Conflict", "ErrorCode", "Forbidden", "NotFound", "Unprocessable"]


class ErrorCode(StrEnum):
    ALREADY_QUEUED = "already_queued"
    NOT_QUEUED = "not_queued"
    QUEUE_UNAVAILABLE = "queue_unavailable"
    TABLE_NOT_FOUND = "table_not_found"
