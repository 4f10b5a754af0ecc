"""Output shapes of the ladder's endpoints (and their OpenAPI examples)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema_field
from rest_framework import serializers

from games.engine import ladder as rules
from games.matches.models import MatchStatus
from games.matches.serializers import OutputSerializer
from tute_api.pagination import page_of

from .models import MatchResult, RunEnd, RunState


# Renders a games.ladder.models.LadderMatch: one match of a run.
class LadderRunMatchSerializer(OutputSerializer):
    number = serializers.IntegerField(help_text="1 for the run's first match.")
    id = serializers.UUIDField(source="match_id", help_text="The match's id: play it at /matches/{id}.")
    status = serializers.ChoiceField(choices=MatchStatus.values, source="match.status")
    level = serializers.ChoiceField(choices=list(rules.LEVELS), help_text="The bot's level (L2).")
    dealer = serializers.IntegerField(help_text="The seat that dealt (L1): 1 the bot's, 0 yours (you sit at 0).")
    result = serializers.ChoiceField(
        choices=MatchResult.values, allow_null=True, source="result_or_none", help_text="Null until it is over."
    )
    margin = serializers.IntegerField(
        allow_null=True, help_text="Your total minus the bot's (a tute counts 130 to 0, L3); null until it is over."
    )


@extend_schema_field({"$ref": "#/components/schemas/LadderRunStatusEnum", "deprecated": True})
class DeprecatedRunStatusField(serializers.CharField):
    pass


# Renders a games.ladder.bodies.RunView: a streak-ladder run.
class LadderRunSerializer(OutputSerializer):
    id = serializers.UUIDField(source="run.id")
    status = serializers.ChoiceField(
        choices=RunState.values, source="run.state", help_text="`active` while the run goes on, then `over`."
    )
    state = DeprecatedRunStatusField(
        source="run.state", help_text="Deprecated: the old name of `status`, sent until version 0.2."
    )
    ended_by = serializers.ChoiceField(
        choices=RunEnd.values, allow_null=True, help_text="Why the run is over (`abandoned`: a new run started)."
    )
    streak = serializers.IntegerField(source="run.streak", help_text="Matches won (L2).")
    level = serializers.ChoiceField(
        choices=list(rules.LEVELS), source="run.level", help_text="The current (or last) rival's level."
    )
    margin = serializers.IntegerField(source="run.margin", help_text="The won matches' margins, at most 9,999 (L3).")
    score = serializers.IntegerField(source="run.score", help_text="streak × 10,000 + margin (L3).")
    match = LadderRunMatchSerializer(help_text="The current match (the last one once the run is over).")
    matches = LadderRunMatchSerializer(many=True, help_text="Every match of the run, in order.")
    started_at = serializers.DateTimeField(source="run.started_at")
    ended_at = serializers.DateTimeField(allow_null=True, source="run.ended_at")


class LadderPlayerSerializer(OutputSerializer):
    id = serializers.UUIDField()
    username = serializers.CharField()


# Renders a games.ladder.bodies.LeaderboardEntry: a player's best score.
class LadderLeaderboardEntrySerializer(OutputSerializer):
    rank = serializers.IntegerField(help_text="1 for the best score.")
    player = LadderPlayerSerializer(source="best.player")
    score = serializers.IntegerField(source="best.score")
    streak = serializers.IntegerField(source="best.streak")
    margin = serializers.IntegerField(source="best.margin")
    run = serializers.UUIDField(source="best.run_id", help_text="The run that scored it.")
    achieved_at = serializers.DateTimeField(source="best.achieved_at", help_text="When it was scored.")


LadderRunPageSerializer = page_of("LadderRunPageSerializer", LadderRunSerializer(many=True))


LadderLeaderboardPageSerializer = page_of(
    "LadderLeaderboardPageSerializer", LadderLeaderboardEntrySerializer(many=True)
)


_AT = "2026-01-01T12:00:00Z"
_PLAYER = {"id": "5f0c8a9e-3d1b-4c55-9a3e-0f6f2a1b7c11", "username": "ana"}
_MATCHES: list[dict[str, Any]] = [
    {"number": 1, "id": "0b9d6c8e-5a53-4f0e-9a36-2f1d7c4e8a11", "status": "finished", "level": "level-1",
     "dealer": 1, "result": "won", "margin": 42},
    {"number": 2, "id": "1c8e7d9f-6b64-4a1f-8b47-3a2e8d5f9b22", "status": "finished", "level": "level-2",
     "dealer": 0, "result": "won", "margin": 130},
    {"number": 3, "id": "2d9f8e0a-7c75-4b2a-9c58-4b3f9e6a0c33", "status": "active", "level": "level-3",
     "dealer": 1, "result": None, "margin": None},
]  # fmt: skip
_RUN: dict[str, Any] = {
    "id": "7c1e2d9a-0b5f-4c3e-8a71-2b9d4f6e1a22", "status": "active", "state": "active", "ended_by": None,
    "streak": 2,
    "level": "level-3", "margin": 172, "score": 20172, "match": _MATCHES[2], "matches": _MATCHES,
    "started_at": _AT, "ended_at": None,
}  # fmt: skip
_LOST = {
    **_RUN, "status": "over", "state": "over", "ended_by": "lost", "ended_at": _AT,
    "match": {**_MATCHES[2], "status": "finished", "result": "lost", "margin": -18},
    "matches": [*_MATCHES[:2], {**_MATCHES[2], "status": "finished", "result": "lost", "margin": -18}],
}  # fmt: skip
_FIRST = {
    **_RUN, "streak": 0, "level": "level-1", "margin": 0, "score": 0,
    "match": {**_MATCHES[0], "status": "active", "result": None, "margin": None},
    "matches": [{**_MATCHES[0], "status": "active", "result": None, "margin": None}],
}  # fmt: skip
RUN_STARTED = OpenApiExample("A new run", value=_FIRST, response_only=True)
RUN = OpenApiExample("A run two matches in", value=_RUN, response_only=True)
RUN_PAGE = OpenApiExample(
    "Past runs", value={"count": 1, "next": None, "previous": None, "results": [_LOST]}, response_only=True
)
LEADERBOARD_PAGE = OpenApiExample(
    "The leaderboard",
    value={"count": 1, "next": None, "previous": None, "results": [
        {"rank": 1, "player": _PLAYER, "score": 20172, "streak": 2, "margin": 172, "run": _RUN["id"],
         "achieved_at": _AT},
    ]},
    response_only=True,
)  # fmt: skip
