"""Play-now's HTTP API: the matchmaking queue, the open tables, the caller's own live channel."""

from __future__ import annotations

from uuid import UUID

from django.conf import settings
from django.http import HttpResponse, HttpResponseBase, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotAcceptable, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.live.apis import EventStreamRenderer
from games.live.deferred import DeferrableApi
from games.live.slots import connection_lifetime, connection_slot
from games.matches import examples
from games.matches.bodies import match_view
from games.matches.serializers import MatchSerializer
from tute_api.created import created as created_response
from tute_api.created import location
from tute_api.parsers import WHOLE_NUMBER, resume_after, whole_number
from tute_api.renderers import JSONRenderer
from tute_api.schema import problems

from . import channel, selectors, services
from .errors import ErrorCode, NotFound
from .messages import notice_body
from .serializers import (
    NOTICES,
    OPEN_TABLES,
    QUEUE_ENTER,
    STANDING,
    TABLE_CREATE,
    NoticeListSerializer,
    NoticeSerializer,
    NoticesQuerySerializer,
    OpenTableSerializer,
    QueueInputSerializer,
    SitInputSerializer,
    StandingSerializer,
    TableInputSerializer,
)

MATCH_ID = OpenApiParameter("match_id", UUID, OpenApiParameter.PATH, description="The open table's match id.")


def _standing(request: Request, status: int = 200) -> Response:
    standing = selectors.queue_standing(player=request.user)
    if standing is None:
        raise NotFound("You wait in no queue.", code=ErrorCode.NOT_QUEUED)
    if status == 201:  # the caller's place in the queue, which GET /queue/ reads
        return created_response(StandingSerializer(standing).data, location("queue"))
    return Response(StandingSerializer(standing).data, status=status)


class QueueApi(APIView):
    @extend_schema(
        operation_id="queue_enter",
        summary="Play now: wait in the matchmaking queue",
        description="The caller waits in the pool of the variant and options (one queue at a time: 409 "
        "`already_queued`). Players of about the caller's rating are seated together in a new match, seat order "
        "drawn (partners too); the range searched widens with the wait, and after `QUEUE_MAX_WAIT_SECONDS` "
        "built-in bots of about the players' strength take the seats nobody took. The caller's channel "
        "(`GET /me/notices`) says `match_ready` with the match; `GET /queue/` shows it too.",
        request=QueueInputSerializer,
        responses={201: StandingSerializer, **problems(400, 401, 409, 422, 429, s409="`already_queued`.")},
        examples=[QUEUE_ENTER, STANDING],
        tags=["play now"],
    )
    def post(self, request: Request) -> Response:
        body = QueueInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.queue_enter(player=request.user, **body.validated_data)
        return _standing(request, 201)

    @extend_schema(
        operation_id="queue_retrieve",
        summary="Where the caller stands in the queue",
        description="Since when they wait, the rating range searched now, when bots fill the table; once seated, "
        "the match. Reading it is a sign of life: a player silent for `QUEUE_GONE_SECONDS` leaves the queue.",
        responses={200: StandingSerializer, **problems(401, 404, 429, s404="`not_queued`.")},
        examples=[STANDING],
        tags=["play now"],
    )
    def get(self, request: Request) -> Response:
        services.queue_touch(player=request.user)
        return _standing(request)

    @extend_schema(
        operation_id="queue_leave",
        summary="Leave the queue",
        responses={204: None, **problems(401, 404, 429, s404="`not_queued`: waiting in no queue.")},
        tags=["play now"],
    )
    def delete(self, request: Request) -> Response:
        services.queue_leave(player=request.user)
        return Response(status=204)


class OpenTablesApi(APIView):
    @extend_schema(
        operation_id="tables_open",
        summary="Open tables: matches and rooms anyone may join",
        description="Matches created with `POST /tables/`, waiting for players, and rooms created `open`, in their "
        f"lobby with room for more, the latest first (at most {selectors.OPEN_TABLES_LISTED}). No invite code: "
        "take a seat of a match with `POST /tables/{id}/seat`, join a room with `POST /rooms/{id}/join`.",
        responses={200: OpenTableSerializer(many=True), **problems(401, 429)},
        examples=[OPEN_TABLES],
        tags=["play now"],
    )
    def get(self, request: Request) -> Response:
        rows = [
            {
                "kind": t.kind,
                "id": t.id,
                "match_id": t.match_id,
                "variant": t.variant,
                "options": t.options,
                "seats": t.seats,
                "seats_free": t.seats_free,
                "host": {"id": t.host.pk, "username": t.host.username, "rating": t.host_rating},
                "created_at": t.created_at,
            }
            for t in selectors.open_tables()
        ]
        return Response(OpenTableSerializer(rows, many=True).data)


class TablesApi(APIView):
    @extend_schema(
        operation_id="tables_create",
        summary="Open a table",
        description="A match as `POST /matches/` makes it, with one open seat at least, listed in "
        "`GET /tables/open` until its last seat is taken; the host's channel says `seat_taken` each time.",
        request=TableInputSerializer,
        responses={201: MatchSerializer, **problems(400, 401, 422, 429)},
        examples=[TABLE_CREATE, examples.MATCH_CREATED],
        tags=["play now"],
    )
    def post(self, request: Request) -> Response:
        body = TableInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        created = services.table_create(player=request.user, **body.validated_data)
        body = MatchSerializer(match_view(created.match, created.seat, created.state)).data
        return created_response(body, location("match", match_id=created.match.pk))


class TableSeatApi(APIView):
    @extend_schema(
        operation_id="tables_sit",
        summary="Take a free seat of an open table",
        description="As `POST /matches/{id}/join`, without the invite code; the match starts with its last seat.",
        request=SitInputSerializer,
        parameters=[MATCH_ID],
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
                s404="`table_not_found`.",
                s409="`already_seated`, `match_not_waiting`, `no_open_seat`, `seat_taken`.",
            ),
        },  # fmt: skip
        examples=[examples.MATCH_VIEW],
        tags=["play now"],
    )
    def post(self, request: Request, match_id: UUID) -> Response:
        body = SitInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        joined = services.table_sit(player=request.user, match_id=match_id, seat=body.validated_data.get("seat"))
        return Response(MatchSerializer(match_view(joined.match, joined.seat, joined.state)).data)


class MyNoticesApi(DeferrableApi):
    @extend_schema(
        operation_id="me_notices",
        summary="The caller's own channel: a long poll",
        description="Messages for the caller after `after` (an id), oldest first: `match_ready` (the queue seated "
        "you), `your_turn` (in `match_id`, at `seq`), `seat_taken` (at your open table), `queue_left`. With "
        "`wait`, answers as soon as there is one. Ids and counts only: read the match for what your seat sees.",
        parameters=[NoticesQuerySerializer],
        responses={200: NoticeListSerializer, **problems(400, 401, 429)},
        examples=[NOTICES, OpenApiExample("Nothing yet", value={"notices": []}, response_only=True)],
        tags=["play now"],
    )
    def get(self, request: Request) -> HttpResponseBase:
        query = NoticesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return channel.notices_long_poll(
            player=request.user,
            after=query.validated_data["after"],
            wait=query.validated_data["wait"],
            answer=lambda found: Response(NoticeListSerializer({"notices": [notice_body(n) for n in found]}).data),
        )


class MyNoticesStreamApi(DeferrableApi):
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    @extend_schema(
        operation_id="me_notices_stream",
        summary="The caller's own channel: server-sent events",
        description="`text/event-stream`: each message as `GET /me/notices` gives it, `id:` its id, `event:` its "
        "kind; `: keep-alive` comments meanwhile. Reconnect with `Last-Event-ID` (or `?after=`) to miss nothing.",
        parameters=[
            OpenApiParameter(
                "after", WHOLE_NUMBER, description="Start after this id (default: `Last-Event-ID`, else 0)."
            ),
            OpenApiParameter(
                "Last-Event-ID", WHOLE_NUMBER, OpenApiParameter.HEADER, description="The last id received."
            ),
            OpenApiParameter("format", exclude=True),
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                OpenApiTypes.STR,
                examples=[
                    OpenApiExample(
                        "A match ready",
                        value='id: 41\nevent: match_ready\ndata: {"id":41,"kind":"match_ready","match_id":'
                        '"3f0c2a1e-8b7d-4c55-9e21-6a4f0d9b7c10","data":{"seat":2,"variant":"clasico"},'
                        '"at":"2026-01-01T12:00:05Z"}\n\n',
                        response_only=True,
                    )
                ],
            ),
            **problems(400, 401, 406, 429),
        },
        tags=["play now"],
    )
    def get(self, request: Request) -> HttpResponse:
        if request.accepted_renderer.media_type != EventStreamRenderer.media_type:
            raise NotAcceptable("This is an event stream: send Accept: text/event-stream (or */*).")
        raw = request.query_params.get("after")
        after = whole_number(raw) if raw is not None else None
        if raw is not None and after is None:
            raise ValidationError({"after": ["A whole number."]})
        after = resume_after(request, after)
        slot = connection_slot(request.user.pk, "stream").acquire()  # 429 beyond the player's cap
        response = StreamingHttpResponse(
            channel.notice_stream(
                player=request.user,
                after=after,
                lifetime=connection_lifetime(),
                keepalive=settings.STREAM_KEEPALIVE_SECONDS,
                slot=slot,
            ),
            content_type="text/event-stream",
        )
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
        return response


__all__ = ["NoticeSerializer"]
