"""``GET /api/v1/me/turns``: the turns a player (typically a registered bot) must play, as a long poll."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tute_api.fields import QueryInteger
from tute_api.schema import problems

from . import examples, turns
from .selectors import MAX_WAIT_SECONDS
from .serializers import ActionField, MatchSerializer


class TurnSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    seq = serializers.IntegerField(help_text="The match's seq: send it back as the action's `expected_seq`.")
    seat = serializers.IntegerField(help_text="The caller's seat.")
    deadline_ms = serializers.IntegerField(
        allow_null=True,
        help_text="For a poll bot: the milliseconds left of its `timeout_ms`, counted from the start of the turn, "
        "before a level-2 move is played for it (0: at any moment). null for anyone else. A webhook call carries "
        "the bot's `timeout_ms`.",
    )
    view = MatchSerializer(help_text="The match as the caller's seat sees it.")
    legal_actions = serializers.ListField(child=ActionField(), help_text="Each exactly as it would be posted.")


class TurnsOutputSerializer(serializers.Serializer):
    turns = TurnSerializer(many=True)


class MyTurnsApi(APIView):
    class QuerySerializer(serializers.Serializer):
        wait = QueryInteger(
            required=False,
            default=0,
            min_value=0,
            max_value=MAX_WAIT_SECONDS,
            help_text="Whole seconds to wait for a turn.",
        )

    @extend_schema(
        operation_id="me_turns",
        summary="The matches where the caller must act (a long poll)",
        description="Every active match where it is the caller's turn, with the caller's view and "
        "`legal_actions`. With `wait`, answers as soon as there is one, or with an empty list after `wait` "
        "seconds. Answer each with `POST /matches/{match_id}/actions` and `expected_seq`. This is how a "
        "`poll` bot gets its turns (docs/http-bots.md), within its `timeout_ms` (`deadline_ms` says what is "
        "left); any player may use it.",
        parameters=[QuerySerializer],
        responses={200: TurnsOutputSerializer, **problems(400, 401, 429)},
        examples=[
            OpenApiExample(
                "A turn",
                value={
                    "turns": [
                        {
                            "match_id": examples.MATCH_VIEW.value["id"],
                            "seq": examples.MATCH_VIEW.value["seq"],
                            "seat": examples.MATCH_VIEW.value["my_seat"],
                            "deadline_ms": 1850,
                            "view": examples.MATCH_VIEW.value,
                            "legal_actions": examples.MATCH_VIEW.value["legal_actions"],
                        }
                    ]
                },
                response_only=True,
            ),
            OpenApiExample("No turn yet", value={"turns": []}, response_only=True),
        ],
        tags=["bots"],
    )
    def get(self, request: Request) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        found = turns.turns_wait(player=request.user, timeout=query.validated_data["wait"])
        return Response({"turns": found})
