"""The ladder's HTTP API (RULES.md L): start a run, read the current one and the past ones, and the
leaderboard of best scores. A run's matches are played through the matches' own API.

One small view per operation (HackSoft style); errors are ApiErrors rendered as problem details.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.matches.idempotency import IDEMPOTENCY_HEADER, respond_once
from tute_api.created import created, location
from tute_api.fields import QueryInteger
from tute_api.pagination import MAX_PAGE, Pagination
from tute_api.schema import problems
from tute_api.serializers import FlatSerializer

from . import selectors, services
from .bodies import LeaderboardEntry, run_view
from .serializers import (
    LEADERBOARD_PAGE,
    RUN,
    RUN_PAGE,
    RUN_STARTED,
    LadderLeaderboardEntrySerializer,
    LadderLeaderboardPageSerializer,
    LadderRunPageSerializer,
    LadderRunSerializer,
)

LadderPagination = Pagination


class LadderPageSerializer(FlatSerializer):
    page = QueryInteger(required=False, min_value=1, max_value=MAX_PAGE, help_text="1 by default.")
    page_size = QueryInteger(
        required=False, min_value=1, max_value=LadderPagination.max_page_size, help_text="20 by default."
    )


def _page_check(request: Request) -> None:
    LadderPageSerializer(data=request.query_params).is_valid(raise_exception=True)


class RunsApi(APIView):
    """``GET``: the caller's past runs; ``POST``: a new run."""

    @extend_schema(
        operation_id="ladder_runs_list",
        summary="The caller's past ladder runs",
        description="The caller's runs that are over, the latest first, paginated (the current one is at "
        "`GET /ladder/runs/current`).",
        parameters=[LadderPageSerializer],
        responses={
            200: LadderRunPageSerializer,
            **problems(400, 401, 404, 429, s404="`not_found`: a page past the last."),
        },
        examples=[RUN_PAGE],
        tags=["ladder"],
    )
    def get(self, request: Request) -> Response:
        _page_check(request)
        paginator = LadderPagination()
        page = paginator.paginate_queryset(selectors.runs_past(player=request.user), request, view=self) or []
        return paginator.get_paginated_response(LadderRunSerializer([run_view(run) for run in page], many=True).data)

    @extend_schema(
        operation_id="ladder_runs_create",
        summary="Start a streak-ladder run",
        description="A run of `dos` matches of one hand against the built-in bots (RULES.md L): the first against "
        "`level-1`, the bot dealing, so you lead. Play each match at `/matches/{id}` as any other; when you win "
        "one, the next is created at once against the next level (`level-4` from the fourth on), the deal "
        "alternating; a lost or tied match ends the run. Starting a run ends your current one, which keeps its "
        "score. A run's score is streak × 10,000 + margin (at most 9,999).",
        request=None,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: LadderRunSerializer, **problems(400, 401, 429)},
        examples=[RUN_STARTED],
        tags=["ladder"],
    )
    def post(self, request: Request) -> Response:
        def start() -> Response:
            run = run_view(services.run_start(player=request.user))
            return created(LadderRunSerializer(run).data, location("ladder-run-current"))

        return respond_once(request, start, location=lambda body: location("ladder-run-current"))


class RunCurrentApi(APIView):
    @extend_schema(
        operation_id="ladder_runs_current",
        summary="The caller's current ladder run",
        description="The run being played, or the caller's last run once it is over (`state`): streak, the "
        "current rival's level, margin, score and the current match.",
        responses={
            200: LadderRunSerializer,
            **problems(401, 404, 429, s404="`no_current_run`: you never started one."),
        },
        examples=[RUN],
        tags=["ladder"],
    )
    def get(self, request: Request) -> Response:
        return Response(LadderRunSerializer(run_view(services.run_current(player=request.user))).data)


class LeaderboardApi(APIView):
    @extend_schema(
        operation_id="ladder_leaderboard",
        summary="The ladder's leaderboard",
        description="Each player's best score (L3), the highest first (the earliest among equals), with its "
        "streak and when it was scored; paginated. A player is listed once they have won a ladder match.",
        parameters=[LadderPageSerializer],
        responses={
            200: LadderLeaderboardPageSerializer,
            **problems(400, 401, 404, 429, s404="`not_found`: a page past the last."),
        },
        examples=[LEADERBOARD_PAGE],
        tags=["ladder"],
    )
    def get(self, request: Request) -> Response:
        _page_check(request)
        paginator = LadderPagination()
        page = paginator.paginate_queryset(selectors.leaderboard(), request, view=self) or []
        first = paginator.page.start_index()  # the rank of the page's first entry
        entries = [LeaderboardEntry(first + n, best) for n, best in enumerate(page)]
        return paginator.get_paginated_response(LadderLeaderboardEntrySerializer(entries, many=True).data)
