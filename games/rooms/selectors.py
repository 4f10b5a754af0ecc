"""Reads of the lobby: a player's rooms, and whether a room is between matches."""

from __future__ import annotations

from uuid import UUID

from games.matches.models import MatchStatus
from games.turns.tables import default_timings
from players.models import Player

from .errors import ErrorCode, NotFound
from .models import Room, RoomMember


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
