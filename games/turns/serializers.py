"""The shapes of the turn takers' answers: a match's presence (the heartbeat)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from games.matches import examples
from games.matches.serializers import MatchSerializer

_AT = "2026-01-01T12:00:00Z"


class SeatPresenceSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    connected = serializers.BooleanField()
    last_seen = serializers.DateTimeField()
    disconnected_at = serializers.DateTimeField(allow_null=True)


class HeartbeatSerializer(serializers.Serializer):
    presence = SeatPresenceSerializer(many=True, help_text="The human seats of a match with friends; empty vs bots.")
    match = MatchSerializer()


HEARTBEAT = OpenApiExample(
    "Connected",
    value={
        "presence": [
            {"seat": 0, "connected": True, "last_seen": _AT, "disconnected_at": None},
            {"seat": 1, "connected": False, "last_seen": _AT, "disconnected_at": _AT},
        ],
        "match": examples.MATCH_VIEW.value,
    },
    response_only=True,
)
