"""Input and output shapes of the rooms app's endpoints (and their OpenAPI examples)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema_field
from rest_framework import serializers

from games.matches.models import MatchStatus
from games.matches.serializers import OptionsField, OutputSerializer
from tute_api.fields import JSONBoolean, JSONInteger
from tute_api.serializers import InputSerializer


class TableOptionsSerializer(serializers.Serializer):
    presence_timeout = JSONInteger(
        required=False, min_value=1, max_value=600, help_text="Seconds without a call before a seat is disconnected."
    )
    reconnect_grace = JSONInteger(
        required=False, min_value=1, max_value=3600, help_text="Seconds a disconnected seat is held (M2)."
    )
    turn_seconds = JSONInteger(
        required=False,
        min_value=1,
        max_value=3600,
        allow_null=True,
        help_text="The turn clock: when it runs out the table plays a level-2 move for the player; null: off.",
    )


class RoomInputSerializer(InputSerializer):
    variant = serializers.CharField(required=False, min_length=1, max_length=32)
    options = OptionsField(required=False)
    bot = serializers.CharField(
        required=False,
        min_length=1,
        max_length=64,
        help_text="The built-in bot (`level-1` to `level-4`) that fills every empty seat; a registered bot takes "
        "one seat of a match (`POST /matches/`), not a room's.",
    )
    table_options = TableOptionsSerializer(required=False)
    public = JSONBoolean(
        required=False,
        help_text="The room's matches are public: any player may watch them (RULES.md M5); false by default.",
    )
    open = JSONBoolean(
        required=False,
        help_text="Anyone may join without the invite code (`POST /rooms/{id}/join`); listed in "
        "`GET /tables/open` while in its lobby; false by default.",
    )


@extend_schema_field({"type": "string", "minLength": 1, "maxLength": 16, "deprecated": True})
class DeprecatedCodeField(serializers.CharField):
    """The old name of ``invite_code`` (until 0.2)."""


class RoomJoinInputSerializer(InputSerializer):
    invite_code = serializers.CharField(
        required=False, min_length=1, max_length=16, help_text="The room's invite code, in either case."
    )
    code = DeprecatedCodeField(
        required=False, min_length=1, max_length=16,
        help_text="Deprecated: the old name of `invite_code`, taken until version 0.2.",
    )  # fmt: skip

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        code = attrs.get("invite_code", attrs.get("code"))
        if code is None:
            raise serializers.ValidationError({"invite_code": ["This field is required."]})
        return {"invite_code": code}


class MemberSerializer(OutputSerializer):
    id = serializers.UUIDField(source="player_id")
    username = serializers.CharField(source="player.username")
    joined_at = serializers.DateTimeField()


class RoomMatchSerializer(OutputSerializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=MatchStatus.values)


@extend_schema_field({"type": "string", "deprecated": True})
class DeprecatedStringField(serializers.CharField):
    pass


@extend_schema_field({"$ref": "#/components/schemas/RoomStatusEnum", "deprecated": True})
class DeprecatedRoomStatusField(serializers.CharField):
    pass


# Renders a games.rooms.bodies.RoomView: a room as its members see it.
class RoomSerializer(OutputSerializer):
    id = serializers.UUIDField(source="room.id")
    invite_code = serializers.CharField(
        help_text="The invite code: friends join with POST /rooms/join.", source="room.code"
    )
    code = DeprecatedStringField(help_text="Deprecated: the old name of `invite_code`, sent until version 0.2.",
                                 source="room.code")  # fmt: skip
    host = serializers.UUIDField(help_text="The host player's id.", source="room.host_id")
    status = serializers.ChoiceField(
        choices=["lobby", "playing", "closed"],
        help_text="`lobby` when there is no match or the latest is over (finished or cancelled), `playing` while "
        "it is played, `closed` once the last member left.",
    )
    state = DeprecatedRoomStatusField(
        help_text="Deprecated: the old name of `status`, sent until version 0.2.", source="status"
    )
    variant = serializers.CharField(source="room.variant")
    options = OptionsField(source="room.options")
    bot = serializers.CharField(source="room.bot")
    table_options = TableOptionsSerializer()
    public = serializers.BooleanField(help_text="Its matches may be watched by any player (M5).", source="room.public")
    open = serializers.BooleanField(
        help_text="Anyone may join without the invite code; listed in the open tables.", source="room.open"
    )
    members = MemberSerializer(many=True)
    match = RoomMatchSerializer(
        allow_null=True, help_text="The latest match started from the room.", source="room.match"
    )
    created_at = serializers.DateTimeField(source="room.created_at")
    updated_at = serializers.DateTimeField(source="room.updated_at")


_AT = "2026-01-01T12:00:00Z"
_ROOM: dict[str, Any] = {
    "id": "7c1e2d9a-0b5f-4c3e-8a71-2b9d4f6e1a22",
    "invite_code": "K7QX2M",
    "code": "K7QX2M",
    "host": "5f0c8a9e-3d1b-4c55-9a3e-0f6f2a1b7c11",
    "status": "lobby",
    "state": "lobby",
    "variant": "clasico",
    "options": {"games_to_win": 4},
    "bot": "level-2",
    "table_options": {"presence_timeout": 20, "reconnect_grace": 60, "turn_seconds": None},
    "public": False,
    "open": False,
    "members": [
        {"id": "5f0c8a9e-3d1b-4c55-9a3e-0f6f2a1b7c11", "username": "ana", "joined_at": _AT},
        {"id": "0a6d1c2b-9e8f-4a7b-b6c5-d4e3f2a1b0c9", "username": "bea", "joined_at": _AT},
    ],
    "match": None,
    "created_at": _AT,
    "updated_at": _AT,
}
ROOM = OpenApiExample("A room in its lobby", value=_ROOM, response_only=True)
ROOM_CREATE = OpenApiExample(
    "A room for clásico",
    value={"variant": "clasico", "options": {"games_to_win": 1}, "bot": "level-2",
           "table_options": {"reconnect_grace": 60}, "public": True},
    request_only=True,
)  # fmt: skip
ROOM_JOIN = OpenApiExample("Join by code", value={"invite_code": "K7QX2M"}, request_only=True)
