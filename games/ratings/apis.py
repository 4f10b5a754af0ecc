"""The ratings' HTTP API: a player's public profile, a variant's leaderboard (docs/ratings.md)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import engine
from tute_api.fields import QueryInteger
from tute_api.pagination import MAX_PAGE
from tute_api.schema import problems
from tute_api.serializers import FlatSerializer

from . import selectors
from .models import LEADERBOARD_MAX_DEVIATION
from .serializers import LEADERBOARD, LeaderboardSerializer

VARIANT = OpenApiParameter(
    "variant", str, OpenApiParameter.PATH, enum=sorted(engine.VARIANTS), description="A variant of GET /variants/."
)
MAX_PAGE_SIZE = 100


class LeaderboardApi(APIView):
    class FilterSerializer(FlatSerializer):
        page = QueryInteger(required=False, min_value=1, max_value=MAX_PAGE, help_text="1 by default.")
        page_size = QueryInteger(required=False, min_value=1, max_value=MAX_PAGE_SIZE, help_text="50 by default.")

    @extend_schema(
        operation_id="leaderboards_read",
        summary="A variant's leaderboard",
        description="The best Glicko-2 ratings of the variant, best first (ties by the player's id), a page at "
        f"a time. Only ratings whose deviation is under {LEADERBOARD_MAX_DEVIATION:g} are ranked: a rating "
        "with fewer rated matches behind it is not yet sure enough (docs/ratings.md).",
        parameters=[VARIANT, FilterSerializer],
        responses={
            200: LeaderboardSerializer,
            **problems(400, 401, 404, 429, s404="`unknown_variant`, or `not_found`: a page past the last."),
        },
        examples=[LEADERBOARD],
        tags=["ratings"],
    )
    def get(self, request: Request, variant: str) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        board = selectors.leaderboard(
            variant=variant,
            page=filters.validated_data.get("page", 1),
            page_size=filters.validated_data.get("page_size", 50),
        )
        return Response(LeaderboardSerializer(board).data)
