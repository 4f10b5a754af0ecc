"""The ladder's error codes; the error classes are the matches' (one status each)."""

from __future__ import annotations

from enum import StrEnum

from games.matches.errors import NotFound

__all__ = ["ErrorCode", "NotFound"]


class ErrorCode(StrEnum):
    NO_CURRENT_RUN = "no_current_run"
