"""The lobby's error codes; the error classes are the matches' (one status each)."""

from __future__ import annotations

from enum import StrEnum

from games.matches.errors import Conflict, Forbidden, NotFound, Unprocessable

__all__ = ["Conflict", "ErrorCode", "Forbidden", "NotFound", "Unprocessable"]


class ErrorCode(StrEnum):
    ROOM_NOT_FOUND = "room_not_found"
    NOT_HOST = "not_host"
    ROOM_PLAYING = "room_playing"
    TOO_MANY_PLAYERS = "too_many_players"
    NOT_A_MEMBER = "not_a_member"
    HOST_REMOVES_SELF = "host_removes_self"
    INVALID_TABLE_OPTION = "invalid_table_option"
