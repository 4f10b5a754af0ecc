"""Reads of the rooms app: a room as its members see it, and a match's presence."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from games import adapter
from games.models import MatchStatus
from players.models import Player

from .errors import ErrorCode, NotFound
from .models import Presence, Room, RoomMember
from .presence import default_timings


def room_of_member(*, room_id: UUID, player: Player) -> Room:
    room = Room.objects.select_related("match").filter(pk=room_id).first()
    if room is None or not RoomMember.objects.filter(room=room, player=player).exists():
        raise NotFound("No such room among yours.", code=ErrorCode.ROOM_NOT_FOUND)
    return room


def rooms_of(*, player: Player) -> list[Room]:
    """The open rooms the player is a member of, latest activity first."""
    mine = RoomMember.objects.filter(player=player).values("room")
    return list(Room.objects.filter(pk__in=mine, closed=False).select_related("match").order_by("-updated_at")[:100])


def in_lobby(room: Room) -> bool:
    """Whether the room is between matches (none yet, or the latest is over)."""
    return room.match is None or room.match.status in (MatchStatus.FINISHED, MatchStatus.CANCELLED)


def table_options_of(room: Room) -> dict[str, int | None]:
    """The room's table options, the settings' defaults filling in the ones it leaves unset."""
    defaults = default_timings()
    return {
        "presence_timeout": room.presence_timeout or defaults.presence_timeout,
        "reconnect_grace": room.reconnect_grace or defaults.reconnect_grace,
        "turn_seconds": room.turn_seconds or defaults.turn_seconds,
    }


def room_body(room: Room) -> dict[str, Any]:
    members = RoomMember.objects.filter(room=room).select_related("player").order_by("joined_at", "id")
    match = room.match
    return {
        "id": str(room.id),
        "code": room.code,
        "host": str(room.host_id),
        "state": "closed" if room.closed else "lobby" if in_lobby(room) else "playing",
        "variant": room.variant,
        "options": room.options,
        "bot": room.bot,
        "table_options": table_options_of(room),
        "members": [
            {"id": str(m.player_id), "username": m.player.username, "joined_at": adapter.iso(m.joined_at)}
            for m in members
        ],
        "match": {"id": str(match.id), "status": match.status} if match is not None else None,
        "created_at": adapter.iso(room.created_at),
        "updated_at": adapter.iso(room.updated_at),
    }


def presence_of(*, match_id: UUID) -> list[dict[str, Any]]:
    """Each tracked human seat: connected or since when not (empty for a match against bots)."""
    return [
        {
            "seat": p.seat,
            "connected": p.disconnected_at is None,
            "last_seen": adapter.iso(p.last_seen),
            "disconnected_at": adapter.iso(p.disconnected_at),
        }
        for p in Presence.objects.filter(match_id=match_id).order_by("seat")
    ]
