"""The bodies of the lobby's answers, built from its rows."""

from __future__ import annotations

from typing import Any

from games.matches.records import iso

from .models import Room, RoomMember
from .selectors import in_lobby, table_options_of


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
            {"id": str(m.player_id), "username": m.player.username, "joined_at": iso(m.joined_at)}
            for m in members
        ],
        "match": {"id": str(match.id), "status": match.status} if match is not None else None,
        "created_at": iso(room.created_at),
        "updated_at": iso(room.updated_at),
    }
