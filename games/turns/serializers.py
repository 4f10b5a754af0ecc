"""The shapes of the turn takers' answers: a turn to play (``/me/turns``, a webhook call) and a match's
presence (the heartbeat)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from games.matches import examples
from games.matches.serializers import LegalActionField, MatchSerializer, OutputSerializer

_AT = "2026-01-01T12:00:00Z"


class TurnSerializer(OutputSerializer):
    match_id = serializers.UUIDField(source="match.id")
    seq = serializers.IntegerField(
        help_text="The match's seq: send it back as the action's `expected_seq`.", source="match.seq"
    )
    seat = serializers.IntegerField(help_text="The caller's seat.")
    deadline_ms = serializers.IntegerField(
        allow_null=True,
        help_text="For a poll bot: the milliseconds left of its `timeout_ms`, counted from the start of the turn, "
        "before a level-2 move is played for it (0: at any moment). null for anyone else. A webhook call carries "
        "the bot's `timeout_ms`.",
    )
    view = MatchSerializer(help_text="The match as the caller's seat sees it.")
    legal_actions = serializers.ListField(
        child=LegalActionField(), help_text="Each exactly as it would be posted.", source="view.table.legal_actions"
    )


class SeatPresenceSerializer(OutputSerializer):
    seat = serializers.IntegerField()
    connected = serializers.BooleanField()
    last_seen = serializers.DateTimeField()
    disconnected_at = serializers.DateTimeField(allow_null=True)


# Renders a games.turns.apis.Heartbeat: a match's presence and the caller's view.
class HeartbeatSerializer(OutputSerializer):
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
