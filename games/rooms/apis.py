"""The lobby's HTTP API: rooms of friends.

One small view per operation (HackSoft style); errors are ApiErrors rendered as problem details.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.matches.idempotency import IDEMPOTENCY_HEADER, respond_once
from tute_api.created import location
from tute_api.schema import problems

from . import selectors, services
from .bodies import room_view
from .serializers import (
    ROOM,
    ROOM_CREATE,
    ROOM_JOIN,
    RoomInputSerializer,
    RoomJoinInputSerializer,
    RoomSerializer,
)

ROOM_ID = OpenApiParameter("room_id", UUID, OpenApiParameter.PATH, description="The room's id.")


def _room(room: Any, status: int = 200) -> Response:
    headers = {"Location": _room_location(room)} if status == 201 else None
    return Response(RoomSerializer(room_view(room)).data, status=status, headers=headers)


def _room_location(room: Any) -> str:
    """The path of a room, or of a room's body."""
    return location("room", room_id=room["id"] if isinstance(room, dict) else room.pk)


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
        rooms = [room_view(room) for room in selectors.rooms_of(player=request.user)]
        return Response(RoomSerializer(rooms, many=True).data)

    @extend_schema(
        operation_id="rooms_create",
        summary="Create a room",
        description="The caller hosts the room; friends join with its `invite_code`. Table options are the service's "
        "(seconds): `presence_timeout` (default 20), `reconnect_grace` (default 60), `turn_seconds` (off).",
        request=RoomInputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: RoomSerializer, **problems(400, 401, 422, 429)},
        examples=[ROOM_CREATE, ROOM],
        tags=["rooms"],
    )
    def post(self, request: Request) -> Response:
        config = _room_input(request)
        create = lambda: _room(services.room_create(player=request.user, **config), 201)  # noqa: E731
        return respond_once(request, create, location=_room_location)


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
        return _room(services.room_join(player=request.user, code=serializer.validated_data["invite_code"]))


class RoomJoinOpenApi(APIView):
    @extend_schema(
        operation_id="rooms_join_open",
        summary="Join an open room, without its code",
        description="A room created `open` (listed in `GET /tables/open`); any other room is 404 to anyone "
        "but its members, as a wrong invite code is. Joining again changes nothing (a member of a private room "
        "too).",
        request=None,
        parameters=[ROOM_ID],
        responses={200: RoomSerializer, **problems(401, 404, 429, s404="`room_not_found`.")},
        examples=[ROOM],
        tags=["rooms"],
    )
    def post(self, request: Request, room_id: UUID) -> Response:
        return _room(services.room_join_open(player=request.user, room_id=room_id))


class RoomDetailApi(APIView):
    @extend_schema(
        operation_id="rooms_retrieve",
        summary="The room: members, settings, its latest match",
        description="`status` is `lobby` when there is no match or the latest is over (finished or cancelled).",
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
