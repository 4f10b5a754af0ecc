"""What the API shows of a room: the view its output serializer (``RoomSerializer``) renders."""

from __future__ import annotations

from dataclasses import dataclass

from .models import Room, RoomMember
from .selectors import in_lobby, table_options_of


@dataclass(frozen=True)
class RoomView:
    """A room, its members in the order they joined, and its table options (defaults filled in)."""

    room: Room
    members: list[RoomMember]
    table_options: dict[str, int | None]

    @property
    def status(self) -> str:
        return "closed" if self.room.closed else "lobby" if in_lobby(self.room) else "playing"


def room_view(room: Room) -> RoomView:
    members = RoomMember.objects.filter(room=room).select_related("player").order_by("joined_at", "id")
    return RoomView(room, list(members), table_options_of(room))
