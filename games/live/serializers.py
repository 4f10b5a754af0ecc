"""Output shapes of the live updates' own bodies (the match views and events are the matches')."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from games.matches import examples
from games.matches.models import MatchStatus
from games.matches.serializers import OptionsField, OutputSerializer, SeatSerializer
from tute_api.pagination import page_of


# Renders a games.live.bodies.LiveEntry: a public match in play, without a card.
class LiveMatchSerializer(OutputSerializer):
    id = serializers.UUIDField(source="match.id")
    variant = serializers.CharField(source="match.variant")
    options = OptionsField(source="match.options")
    status = serializers.ChoiceField(choices=MatchStatus.values, source="match.status")
    seq = serializers.IntegerField(source="match.seq")
    seats = SeatSerializer(many=True, source="match.seating")
    turn = serializers.IntegerField(allow_null=True, help_text="The seat to act.", source="match.turn")
    spectators = serializers.IntegerField(help_text="How many watch it now (open streams and long polls).")
    started_at = serializers.DateTimeField(allow_null=True, source="match.started_at")
    updated_at = serializers.DateTimeField(help_text="Its latest move.", source="match.updated_at")


LiveMatchPageSerializer = page_of("LiveMatchPageSerializer", LiveMatchSerializer(many=True))


_AT = "2026-01-01T12:00:00Z"
LIVE_PAGE = OpenApiExample(
    "The most watched first",
    value={"count": 1, "next": None, "previous": None, "results": [{
        "id": examples.MATCH_VIEW.value["id"], "variant": "clasico", "options": examples.MATCH_VIEW.value["options"],
        "status": "active", "seq": examples.MATCH_VIEW.value["seq"], "seats": examples.MATCH_VIEW.value["seats"],
        "turn": 0, "spectators": 12, "started_at": _AT, "updated_at": _AT,
    }]},
    response_only=True,
)  # fmt: skip
