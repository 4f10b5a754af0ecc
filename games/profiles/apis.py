"""A player's public profile: what the ratings and the streak ladder know of them, in one answer.

Above both on the ladder of packages: the ratings sit below the matches (a finishing match rates its
seats in its own transaction), the streak ladder above them (it reacts to a match's end).
"""

from __future__ import annotations

from dataclasses import replace
from uuid import UUID

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.ladder.selectors import best_of
from games.ratings.selectors import player_profile
from games.ratings.serializers import PROFILE, ProfileSerializer
from tute_api.schema import problems

PLAYER_ID = OpenApiParameter("player_id", UUID, OpenApiParameter.PATH, description="The player's (or bot's) id.")


class PlayerProfileApi(APIView):
    @extend_schema(
        operation_id="players_profile",
        summary="A player's public profile",
        description="Any player's (or registered bot's) username, rating, deviation and games per variant, "
        "matches played and won, and their best ladder score (null until they have won a ladder match).",
        parameters=[PLAYER_ID],
        responses={200: ProfileSerializer, **problems(401, 404, 429, s404="`player_not_found`.")},
        examples=[PROFILE],
        tags=["ratings"],
    )
    def get(self, request: Request, player_id: UUID) -> Response:
        profile = player_profile(player_id=player_id)
        best = best_of(player_id=player_id)
        profile = replace(profile, best_ladder_score=best.score if best is not None else None)
        return Response(ProfileSerializer(profile).data)
