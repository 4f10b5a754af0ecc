"""Input and output shapes of the rooms app's endpoints (and their OpenAPI examples)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from games import examples as game_examples
from games.models import MatchStatus
from games.serializers import MatchSerializer, OptionsField
from tute_api.fields import JSONInteger


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


class RoomInputSerializer(serializers.Serializer):
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


class RoomJoinInputSerializer(serializers.Serializer):
    code = serializers.CharField(min_length=1, max_length=16, help_text="The room's invite code.")


class MemberSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    username = serializers.CharField()
    joined_at = serializers.DateTimeField()


class RoomMatchSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=MatchStatus.values)


class RoomSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    code = serializers.CharField(help_text="The invite code: friends join with POST /rooms/join.")
    host = serializers.UUIDField(help_text="The host player's id.")
    state = serializers.ChoiceField(choices=["lobby", "playing", "closed"])
    variant = serializers.CharField()
    options = OptionsField()
    bot = serializers.CharField()
    table_options = TableOptionsSerializer()
    members = MemberSerializer(many=True)
    match = RoomMatchSerializer(allow_null=True, help_text="The latest match started from the room.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class SeatPresenceSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    connected = serializers.BooleanField()
    last_seen = serializers.DateTimeField()
    disconnected_at = serializers.DateTimeField(allow_null=True)


class HeartbeatSerializer(serializers.Serializer):
    presence = SeatPresenceSerializer(many=True, help_text="The human seats of a match with friends; empty vs bots.")
    match = MatchSerializer()


class ReplaySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    variant = serializers.CharField()
    status = serializers.ChoiceField(choices=MatchStatus.values)
    seq = serializers.IntegerField(help_text="The event the table is shown after.")
    last_seq = serializers.IntegerField(help_text="The last event of the log.")
    engine_events = serializers.IntegerField(
        help_text="How many of the first `seq` events are the engine's (service events aside)."
    )
    event = serializers.DictField(help_text="Event `seq`, unredacted.")
    table = serializers.DictField(
        allow_null=True, help_text="The whole table, every hand face up (`hand.hands`, `hand.stock`)."
    )


_AT = "2026-01-01T12:00:00Z"
_ROOM: dict[str, Any] = {
    "id": "7c1e2d9a-0b5f-4c3e-8a71-2b9d4f6e1a22",
    "code": "K7QX2M",
    "host": "5f0c8a9e-3d1b-4c55-9a3e-0f6f2a1b7c11",
    "state": "lobby",
    "variant": "clasico",
    "options": {"games_to_win": 4},
    "bot": "level-2",
    "table_options": {"presence_timeout": 20, "reconnect_grace": 60, "turn_seconds": None},
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
           "table_options": {"reconnect_grace": 60}},
    request_only=True,
)  # fmt: skip
ROOM_JOIN = OpenApiExample("Join by code", value={"code": "K7QX2M"}, request_only=True)
HEARTBEAT = OpenApiExample(
    "Connected",
    value={
        "presence": [
            {"seat": 0, "connected": True, "last_seen": _AT, "disconnected_at": None},
            {"seat": 1, "connected": False, "last_seen": _AT, "disconnected_at": _AT},
        ],
        "match": game_examples.MATCH_VIEW.value,
    },
    response_only=True,
)
REPLAY = OpenApiExample(
    "After a card",
    value={
        "id": "0b9d6c8e-5a53-4f0e-9a36-2f1d7c4e8a11", "variant": "dos", "status": "finished", "seq": 2,
        "last_seq": 60, "engine_events": 2,
        "event": {"seq": 2, "type": "card_played", "seat": 1, "data": {"card": "O1"}, "at": _AT},
        "table": {"variant": "dos", "status": "active", "hand": {"hands": [["O3", "C4"], ["E1", "B7"]]}},
    },
    response_only=True,
)  # fmt: skip
STREAM = OpenApiExample(
    "Two events",
    value='id: 7\nevent: card_played\ndata: {"seq":7,"type":"card_played","seat":1,"data":{"card":"O1"},'
    '"at":"2026-01-01T12:00:00Z"}\n\n: keep-alive\n\n',
    response_only=True,
)
