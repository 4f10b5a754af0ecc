"""The matches' HTTP API: one small view per operation; each validates its input, calls one service or
selector, and builds the body from what it gets (:mod:`.bodies`; HackSoft style). Errors are raised
as ApiError and rendered as problem details by ``tute_api.errors``. The reads that may wait for news
(a match, its events) are the live updates' (:mod:`games.live.apis`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import engine
from tute_api.created import location
from tute_api.fields import QueryChoice, QueryInteger
from tute_api.pagination import MAX_PAGE, Pagination, page_of
from tute_api.renderers import JSONRenderer
from tute_api.schema import problems
from tute_api.serializers import FlatSerializer, InputSerializer

from . import examples, replays, selectors, services
from .bodies import MatchEntry, match_view, record_view
from .idempotency import IDEMPOTENCY_HEADER, respond_once
from .models import Match, MatchStatus
from .serializers import (
    ACTION_REQUEST,
    MAX_SEQ,
    ActionInputSerializer,
    MatchCreateInputSerializer,
    MatchJoinInputSerializer,
    MatchSerializer,
    MatchSummarySerializer,
    RecordSerializer,
    ReplaySerializer,
    VariantSerializer,
)

#: The rules document; the problems' `rule` ids are its.
RULES_PATH = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"
def _match_answer(match: Match, seat: int | None, state: engine.State | None = None, status: int = 200) -> Response:
    """The match as ``seat`` sees it, the answer of every write on a match (``state``: the engine's, if at hand);
    a 201 names the match (``Location``)."""
    headers = {"Location": _match_location(match)} if status == 201 else None
    return Response(MatchSerializer(match_view(match, seat, state)).data, status=status, headers=headers)


def _match_location(match: Any) -> str:
    """The path of a match, or of a match's body."""
    return location("match", match_id=match["id"] if isinstance(match, dict) else match.pk)


MATCH_ID = OpenApiParameter("match_id", UUID, OpenApiParameter.PATH, description="The match's id.")


# -- variants -----------------------------------------------------------------------------------


class VariantListApi(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="variants_list",
        summary="The variants and their options",
        responses={200: VariantSerializer(many=True), **problems(429)},
        examples=examples.VARIANTS,
        tags=["variants"],
    )
    def get(self, request: Request) -> Response:
        return Response(VariantSerializer(engine.VARIANTS.values(), many=True).data)


class MarkdownRenderer(BaseRenderer):
    media_type = "text/markdown"
    format = "md"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return data if isinstance(data, bytes) else JSONRenderer().render(data)


class RulesApi(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    renderer_classes = [MarkdownRenderer, JSONRenderer]  # problems stay JSON

    @extend_schema(
        operation_id="rules",
        summary="The rules of Tute the service applies (docs/RULES.md)",
        description="Markdown. Each rule has an id (`C5`, `C5.a` for a duty of C5, `D4`, `M2`…): the `rule` of "
        "a problem names the one an action broke, and the variants' options name theirs.",
        responses={
            (200, "text/markdown"): OpenApiResponse(
                OpenApiTypes.STR,
                examples=[
                    OpenApiExample(
                        "An excerpt",
                        value="**C5 Playing to a trick.** The leader plays any card. Each following player, in "
                        "seat order: …",
                        response_only=True,
                    )
                ],
            ),
            **problems(429),
        },
        tags=["variants"],
    )
    def get(self, request: Request) -> Response:
        return Response(RULES_PATH.read_bytes(), content_type="text/markdown; charset=utf-8")


# -- matches ------------------------------------------------------------------------------------


MatchPagination = Pagination


MatchPageSerializer = page_of("MatchPageSerializer", MatchSummarySerializer(many=True))


class MatchesApi(APIView):
    """``GET``: the caller's matches; ``POST``: a new match."""

    class FilterSerializer(FlatSerializer):
        status = QueryChoice(choices=MatchStatus.values, required=False)
        variant = QueryChoice(
            choices=sorted(engine.VARIANTS),
            required=False,
            error_messages={
                "invalid_choice": f'No variant "{{input}}": see GET /variants/ ({", ".join(engine.VARIANTS)}).'
            },
        )
        page = QueryInteger(required=False, min_value=1, max_value=MAX_PAGE, help_text="1 by default.")
        page_size = QueryInteger(
            required=False, min_value=1, max_value=MatchPagination.max_page_size, help_text="20 by default."
        )

    @extend_schema(
        operation_id="matches_list",
        summary="The caller's matches",
        description="Matches the caller sits at or created, latest activity first, paginated.",
        parameters=[FilterSerializer],
        responses={200: MatchPageSerializer, **problems(400, 401, 404, 429, s404="`not_found`: a page past the last.")},
        examples=[examples.MATCH_PAGE],
        tags=["matches"],
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        paginator = MatchPagination()
        matches = selectors.match_list(
            player=request.user,
            status=filters.validated_data.get("status"),
            variant=filters.validated_data.get("variant"),
        )
        page = paginator.paginate_queryset(matches, request, view=self) or []
        return paginator.get_paginated_response(MatchSummarySerializer(map(MatchEntry, page), many=True).data)

    @extend_schema(
        operation_id="matches_create",
        summary="Create a match",
        description="One seat spec per seat, in seat order. The match starts (the first hand is dealt) at "
        "once when no seat is open; otherwise it waits, and starts when its last open seat is taken "
        "(`POST /matches/{id}/join` with the `invite_code`). With `public`, any player may watch it (RULES.md "
        "M5): `GET /matches/live` lists it while it is played. A match that starts answers with its table as "
        "dealt; the quick built-in bots' turns that follow (level-1, level-2) are recorded with the deal, so "
        "`GET /events?after=` or `GET /matches/{id}?after=&wait=` answers them at once.",
        request=MatchCreateInputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: MatchSerializer, **problems(400, 401, 422, 429)},
        examples=[
            examples.CREATE_VS_BOTS, examples.CREATE_WITH_FRIENDS, examples.CREATE_PUBLIC, examples.MATCH_CREATED
        ],
        tags=["matches"],
    )
    def post(self, request: Request) -> Response:
        serializer = MatchCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        def create() -> Response:
            created = services.match_create(player=request.user, **serializer.validated_data)
            return _match_answer(created.match, created.seat, created.state, status=201)

        return respond_once(request, create, location=_match_location)


class MatchJoinApi(APIView):
    @extend_schema(
        operation_id="matches_join",
        summary="Take an open seat",
        description="Needs the match's invite code. When the last open seat is taken the match starts.",
        request=MatchJoinInputSerializer,
        parameters=[MATCH_ID, IDEMPOTENCY_HEADER],
        responses={
            200: MatchSerializer,
            **problems(
                400,
                401,
                403,
                404,
                409,
                422,
                429,
                s403="Wrong invite code from a player who may see the match (its creator, a spectator of a public "
                "match: `invalid_invite_code`); a bot retired meanwhile (`unknown_bot`).",
                s404="No such match, or a wrong invite code from a player who may not see it (`not_found`, as a GET "
                "of the match answers: a wrong code does not tell that the match exists).",
                s409="`match_not_waiting`, `already_seated`, `no_open_seat` or `seat_taken`.",
            ),
        },  # fmt: skip
        examples=[examples.JOIN, examples.MATCH_VIEW],
        tags=["matches"],
    )
    def post(self, request: Request, match_id: UUID) -> Response:
        serializer = MatchJoinInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        def join() -> Response:
            joined = services.match_join(player=request.user, match_id=match_id, **serializer.validated_data)
            return _match_answer(joined.match, joined.seat, joined.state)

        return respond_once(request, join)


class MatchActionApi(APIView):
    class QuerySerializer(FlatSerializer):
        show = QueryChoice(
            choices=["move", "latest"],
            required=False,
            default="move",
            help_text="`move` (the default): the caller's view right after the action. `latest`: the view as the "
            "action left the match, with the turns of the quick built-in bots recorded with it: against them, the "
            "caller's turn again (its `legal_actions`), with no long poll; the events in between are those after "
            "the action's `expected_seq`.",
        )

    @extend_schema(
        operation_id="matches_actions_create",
        summary="Play: a card, a bid, a pass or a trump",
        description="One of the caller's `legal_actions`. Answers with the caller's view right after the "
        "action; the bots' turns that follow come after it (follow them with `GET /events?after=` "
        "or `GET /matches/{id}?after=&wait=`): the quick built-in bots' (level-1, level-2) are recorded with "
        "the action, so those answer at once (`?show=latest` answers with them), the others' are played in the "
        "background.",
        request=ACTION_REQUEST,
        parameters=[MATCH_ID, QuerySerializer, IDEMPOTENCY_HEADER],
        responses={
            200: MatchSerializer,
            **problems(
                400,
                401,
                403,
                404,
                409,
                422,
                429,
                s403="The caller watches the match (its creator, or a spectator of a public match) and has no seat "
                "(`not_seated`).",
                s409="`not_your_turn`, `stale_seq` (with the current `seq`) or `match_not_active`.",
                s422="A rule broken: `must_follow_suit`, `must_beat`, `must_trump`, `must_overtrump`, "
                "`bid_too_low`, `invalid_bid`, each with `rule` naming the rule of docs/RULES.md; or an action that "
                "cannot be taken: `card_not_in_hand`, `invalid_suit`, `invalid_action`, `action_not_allowed_now`, "
                "`idempotency_key_reused`.",
            ),
        },  # fmt: skip
        examples=[*examples.ACTIONS, examples.MATCH_VIEW, *examples.ACTION_ERRORS],
        tags=["matches"],
    )
    def post(self, request: Request, match_id: UUID) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        serializer = ActionInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        latest = query.validated_data["show"] == "latest"

        def act() -> Response:
            played = services.match_act(
                player=request.user,
                match_id=match_id,
                action=serializer.action(),
                expected_seq=serializer.validated_data.get("expected_seq"),
            )
            if latest:
                return _match_answer(played.latest, played.seat, played.latest_state)
            return _match_answer(played.match, played.seat, played.state)

        return respond_once(request, act)


class MatchRecordApi(APIView):
    @extend_schema(
        operation_id="matches_record",
        summary="The full record of a match that is over",
        description="Every deal in full, every action and every event, unredacted: enough to replay the match "
        "card by card. Any player may read the record of a match that is over, seated or not. While the match "
        "is waiting or active it is refused: 403 `match_not_over` to its players (and, of a public match, its "
        "spectators), 404 to anyone else.",
        parameters=[MATCH_ID],
        responses={
            200: RecordSerializer,
            **problems(401, 403, 404, 429, s403="`match_not_over`.", s404="No such match, or one still played "
                       "that is not the caller's (`not_found`)."),
        },
        examples=[examples.RECORD],
        tags=["matches"],
    )
    def get(self, request: Request, match_id: UUID) -> Response:
        membership = selectors.match_membership_or_over(match_id=match_id, player=request.user)
        return Response(RecordSerializer(record_view(selectors.match_record(membership=membership))).data)


class MatchCancelApi(APIView):
    @extend_schema(
        operation_id="matches_cancel",
        summary="Call off a match that waits for players",
        description="Only the creator, only while the match waits for players.",
        request=None,
        parameters=[MATCH_ID],
        responses={
            200: MatchSerializer,
            **problems(401, 403, 404, 409, 429, s403="Not the creator (`permission_denied`).",
                       s409="`match_not_waiting`."),
        },
        examples=[examples.MATCH_CANCELLED],
        tags=["matches"],
    )
    def post(self, request: Request, match_id: UUID) -> Response:
        cancelled = services.match_cancel(player=request.user, match_id=match_id)
        return _match_answer(cancelled.match, cancelled.seat)


class MatchReplayApi(APIView):
    class QuerySerializer(InputSerializer):
        seq = QueryInteger(min_value=1, max_value=MAX_SEQ, help_text="1 to the match's last seq.")

    @extend_schema(
        operation_id="matches_replay",
        summary="The whole table after an event of a match that is over",
        description="Every hand face up, as the table stood right after event `seq`: step `seq` from 1 to "
        "`last_seq` to watch the match card by card. Any player may replay a match that is over, seated or "
        "not. While it is waiting or active it is refused: 403 `match_not_over` to its players (and, of a "
        "public match, its spectators), 404 to anyone else.",
        parameters=[MATCH_ID, QuerySerializer],
        responses={
            200: ReplaySerializer,
            **problems(400, 401, 403, 404, 422, 429, s403="`match_not_over`.", s422="`seq_out_of_range`.",
                       s404="No such match, or one still played that is not the caller's (`not_found`)."),
        },
        examples=[examples.REPLAY],
        tags=["matches"],
    )
    def get(self, request: Request, match_id: UUID) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        replay = replays.replay_at(match_id=match_id, seq=query.validated_data["seq"], player=request.user)
        return Response(ReplaySerializer(replay).data)
