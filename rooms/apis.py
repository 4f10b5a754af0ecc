"""The rooms app's HTTP API: rooms, the heartbeat, the event stream and replays.

One small view per operation (HackSoft style); errors are ApiErrors rendered as problem details.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAcceptable
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors as game_selectors
from games.apis import IDEMPOTENCY_HEADER, idempotency_of, reply_response
from games.serializers import MAX_SEQ
from tute_api.fields import QueryInteger
from tute_api.parsers import whole_number
from tute_api.schema import problems

from . import presence, replays, selectors, services
from .serializers import (
    HEARTBEAT,
    REPLAY,
    ROOM,
    ROOM_CREATE,
    ROOM_JOIN,
    STREAM,
    HeartbeatSerializer,
    ReplaySerializer,
    RoomInputSerializer,
    RoomJoinInputSerializer,
    RoomSerializer,
)

ROOM_ID = OpenApiParameter("room_id", UUID, OpenApiParameter.PATH, description="The room's id.")
MATCH_ID = OpenApiParameter("match_id", UUID, OpenApiParameter.PATH, description="The match's id.")


def _room(room: Any, status: int = 200) -> Response:
    return Response(selectors.room_body(room), status=status)


def _room_input(request: Request) -> dict[str, Any]:
    serializer = RoomInputSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


# -- rooms --------------------------------------------------------------------------------------


class RoomsApi(APIView):
    @extend_schema(
        operation_id="rooms_list",
        summary="The caller's rooms",
        description="The open rooms the caller is a member of, latest activity first.",
        responses={200: RoomSerializer(many=True), **problems(401, 429)},
        examples=[ROOM],
        tags=["rooms"],
    )
    def get(self, request: Request) -> Response:
        return Response([selectors.room_body(room) for room in selectors.rooms_of(player=request.user)])

    @extend_schema(
        operation_id="rooms_create",
        summary="Create a room",
        description="The caller hosts the room; friends join with its `code`. Table options are the service's "
        "(seconds): `presence_timeout` (default 20), `reconnect_grace` (default 60), `turn_seconds` (off).",
        request=RoomInputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: RoomSerializer, **problems(400, 401, 422, 429)},
        examples=[ROOM_CREATE, ROOM],
        tags=["rooms"],
    )
    def post(self, request: Request) -> Response:
        config = _room_input(request)
        reply = services.room_create_once(player=request.user, idempotency=idempotency_of(request), **config)
        return reply_response(reply)


class RoomJoinApi(APIView):
    @extend_schema(
        operation_id="rooms_join",
        summary="Join a room by its invite code",
        request=RoomJoinInputSerializer,
        responses={200: RoomSerializer, **problems(400, 401, 404, 429, s404="`room_not_found`.")},
        examples=[ROOM_JOIN, ROOM],
        tags=["rooms"],
    )
    def post(self, request: Request) -> Response:
        serializer = RoomJoinInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return _room(services.room_join(player=request.user, code=serializer.validated_data["code"]))


class RoomDetailApi(APIView):
    @extend_schema(
        operation_id="rooms_retrieve",
        summary="The room: members, settings, its latest match",
        description="`state` is `lobby` when there is no match or the latest is over (finished or cancelled).",
        parameters=[ROOM_ID],
        responses={200: RoomSerializer, **problems(401, 404, 429)},
        examples=[ROOM],
        tags=["rooms"],
    )
    def get(self, request: Request, room_id: UUID) -> Response:
        return _room(selectors.room_of_member(room_id=room_id, player=request.user))

    @extend_schema(
        operation_id="rooms_update",
        summary="Change the next match's variant, options, bot or table options (host, in the lobby)",
        request=RoomInputSerializer,
        parameters=[ROOM_ID],
        responses={
            200: RoomSerializer,
            **problems(400, 401, 403, 404, 409, 422, 429, s403="`not_host`.", s409="`room_playing`."),
        },
        examples=[ROOM_CREATE, ROOM],
        tags=["rooms"],
    )
    def patch(self, request: Request, room_id: UUID) -> Response:
        return _room(services.room_update(player=request.user, room_id=room_id, **_room_input(request)))


class RoomStartApi(APIView):
    @extend_schema(
        operation_id="rooms_start",
        summary="Start a match (host, in the lobby)",
        description="Members sit in the order they joined (the host first); bots fill the other seats. When the "
        "match ends or is cancelled the room is back in its lobby.",
        request=None,
        parameters=[ROOM_ID],
        responses={
            200: RoomSerializer,
            **problems(401, 403, 404, 409, 429, s403="`not_host`.", s409="`room_playing` or `too_many_players`."),
        },
        examples=[ROOM],
        tags=["rooms"],
    )
    def post(self, request: Request, room_id: UUID) -> Response:
        return _room(services.room_start(player=request.user, room_id=room_id))


class RoomLeaveApi(APIView):
    @extend_schema(
        operation_id="rooms_leave",
        summary="Leave the room",
        description="A host who leaves hands the room to the next member; the last member closes it. A seat in "
        "a match being played is held for the grace, as any disconnection.",
        request=None,
        parameters=[ROOM_ID],
        responses={200: RoomSerializer, **problems(401, 404, 429)},
        examples=[ROOM],
        tags=["rooms"],
    )
    def post(self, request: Request, room_id: UUID) -> Response:
        return _room(services.room_leave(player=request.user, room_id=room_id))


class RoomMemberApi(APIView):
    @extend_schema(
        operation_id="rooms_members_remove",
        summary="Remove a member (host, in the lobby)",
        request=None,
        parameters=[ROOM_ID, OpenApiParameter("player_id", UUID, OpenApiParameter.PATH)],
        responses={
            200: RoomSerializer,
            **problems(
                401, 403, 404, 409, 422, 429,
                s403="`not_host`.",
                s404="`room_not_found`, or `not_a_member`: the player is not in the room.",
                s409="`room_playing`: members are removed in the lobby, between matches.",
                s422="`host_removes_self`: the host leaves with `POST /rooms/{id}/leave`.",
            ),
        },  # fmt: skip
        examples=[ROOM],
        tags=["rooms"],
    )
    def delete(self, request: Request, room_id: UUID, player_id: UUID) -> Response:
        return _room(services.room_member_remove(player=request.user, room_id=room_id, member_id=player_id))


# -- presence, stream, replay -------------------------------------------------------------------


class HeartbeatApi(APIView):
    @extend_schema(
        operation_id="matches_heartbeat",
        summary="I am here",
        description="Keeps the caller's seat connected (any authenticated call on the match does too). A seat "
        f"silent for `presence_timeout` seconds (default {settings.PRESENCE_TIMEOUT}) is disconnected and "
        f"held for `reconnect_grace` seconds (default {settings.RECONNECT_GRACE}); a call within the grace "
        "reconnects it (`seat_reconnected`), after it the match is cancelled (M2). Answers with every human "
        "seat's presence and the caller's full view.",
        request=None,
        parameters=[MATCH_ID],
        responses={200: HeartbeatSerializer, **problems(401, 404, 429)},
        examples=[HEARTBEAT],
        tags=["matches"],
    )
    def post(self, request: Request, match_id: UUID) -> Response:
        game_selectors.match_membership(match_id=match_id, player=request.user)
        presence.touch(match_id=match_id, player_id=request.user.pk)
        membership = game_selectors.match_membership(match_id=match_id, player=request.user)
        return Response(
            {
                "presence": selectors.presence_of(match_id=match_id),
                "match": game_selectors.match_view(membership=membership),
            }
        )


class EventStreamRenderer(BaseRenderer):
    """Lets ``Accept: text/event-stream`` through content negotiation; errors are still JSON problems."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return JSONRenderer().render(data)


class MatchStreamApi(APIView):
    # An event stream for any Accept that admits one (none, */*, text/*); problems are JSON either way.
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    class QuerySerializer(serializers.Serializer):
        after = QueryInteger(
            required=False,
            min_value=0,
            max_value=MAX_SEQ,
            help_text="Start after this seq (default: `Last-Event-ID`, else 0).",
        )

    @extend_schema(
        operation_id="matches_stream",
        summary="Server-sent events: the match's events as they happen",
        description="`text/event-stream`: each event of the log, redacted for the caller, with `id:` its seq and "
        "`event:` its type; `: keep-alive` comments while nothing happens. A connection lasts a few minutes; "
        "reconnect with `Last-Event-ID` (or `?after=`) to resume without losing or repeating an event. The "
        "stream ends once the match is over and every event is sent; 204 if there is nothing more to send. An "
        "`Accept` header that admits no `text/event-stream` gets 406.",
        parameters=[
            MATCH_ID,
            QuerySerializer,
            OpenApiParameter("Last-Event-ID", int, OpenApiParameter.HEADER, description="The last seq received."),
            OpenApiParameter("format", exclude=True),  # DRF's ?format= names renderers: JSON here is for problems
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(OpenApiTypes.STR, examples=[STREAM]),
            204: OpenApiResponse(description="The match is over and every event was sent."),
            **problems(400, 401, 404, 406, 429),
        },
        tags=["matches"],
    )
    def get(self, request: Request, match_id: UUID) -> HttpResponse:
        if request.accepted_renderer.media_type != EventStreamRenderer.media_type:
            raise NotAcceptable("This is an event stream: send Accept: text/event-stream (or */*).")
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after = query.validated_data.get("after")
        if after is None:
            after = whole_number(request.headers.get("Last-Event-ID", "0").strip()) or 0
        membership = game_selectors.match_membership(match_id=match_id, player=request.user)
        match = membership.match
        if match.status in ("finished", "cancelled") and after >= match.seq:
            return HttpResponse(status=204)
        from .stream import event_stream

        response = StreamingHttpResponse(
            event_stream(
                match_id=match.id,
                seat=membership.seat,
                player_id=request.user.pk,
                after=after,
                lifetime=settings.STREAM_MAX_SECONDS,
                # A seated viewer's stream keeps the seat connected: it wakes well within the timeout.
                keepalive=min(settings.STREAM_KEEPALIVE_SECONDS, presence.timings_of(match.id).presence_timeout / 2),
            ),
            content_type="text/event-stream",
        )
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
        return response


class MatchReplayApi(APIView):
    class QuerySerializer(serializers.Serializer):
        seq = QueryInteger(min_value=1, max_value=MAX_SEQ, help_text="1 to the match's last seq.")

    @extend_schema(
        operation_id="matches_replay",
        summary="The whole table after an event of a match that is over",
        description="Every hand face up, as the table stood right after event `seq`: step `seq` from 1 to "
        "`last_seq` to watch the match card by card. Any player may replay a match that is over, seated or "
        "not. While it is waiting or active it is refused: 403 `match_not_over` to its players, 404 to "
        "anyone else.",
        parameters=[MATCH_ID, QuerySerializer],
        responses={
            200: ReplaySerializer,
            **problems(400, 401, 403, 404, 422, 429, s403="`match_not_over`.", s422="`seq_out_of_range`.",
                       s404="No such match, or one still played that is not the caller's (`not_found`)."),
        },
        examples=[REPLAY],
        tags=["matches"],
    )
    def get(self, request: Request, match_id: UUID) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(replays.replay_at(match_id=match_id, seq=query.validated_data["seq"], player=request.user))
