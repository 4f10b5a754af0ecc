"""The players' HTTP API: one small view per operation, no logic (HackSoft style)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tute_api.schema import problems

from .services import player_create, player_token_rotate

USERNAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{2,29}$"


class PlayerOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    username = serializers.CharField()
    created_at = serializers.DateTimeField()


class PlayerWithTokenOutputSerializer(PlayerOutputSerializer):
    token = serializers.CharField(help_text="Send it as `Authorization: Bearer <token>`. Shown only now.")


_PLAYER_EXAMPLE = {
    "id": "5f0c8a9e-3d1b-4c55-9a3e-0f6f2a1b7c11",
    "username": "ana",
    "created_at": "2026-01-01T12:00:00Z",
}
_TOKEN_EXAMPLE = {**_PLAYER_EXAMPLE, "token": "kq3oV1p6l2Rk5cE0nqCwK1m7d3nVt2b6Zr0mQe8uYxA"}


class PlayerCreateApi(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.RegexField(
            USERNAME_PATTERN,
            help_text="3–30 letters, digits, `_`, `.` or `-`, starting with a letter or digit; unique "
            "regardless of case.",
        )

    @extend_schema(
        operation_id="players_create",
        summary="Create a player",
        description="Creates a player and returns its bearer token, once. Tokens are stored hashed.",
        request=InputSerializer,
        responses={201: PlayerWithTokenOutputSerializer, **problems(400, 409, 429)},
        examples=[
            OpenApiExample("A new player", value={"username": "ana"}, request_only=True),
            OpenApiExample("Created", value=_TOKEN_EXAMPLE, response_only=True, status_codes=["201"]),
        ],
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        player, token = player_create(**serializer.validated_data)
        data = PlayerWithTokenOutputSerializer({**_fields(player), "token": token}).data
        return Response(data, status=status.HTTP_201_CREATED)


class PlayerMeApi(APIView):
    @extend_schema(
        operation_id="players_me",
        summary="The calling player",
        responses={200: PlayerOutputSerializer, **problems(401, 429)},
        examples=[OpenApiExample("Me", value=_PLAYER_EXAMPLE, response_only=True)],
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        return Response(PlayerOutputSerializer(_fields(request.user)).data)


class PlayerTokenRotateApi(APIView):
    @extend_schema(
        operation_id="players_me_token_rotate",
        summary="Rotate the calling player's token",
        description="Issues a new token and revokes the one used for this call (and any other).",
        request=None,
        responses={201: PlayerWithTokenOutputSerializer, **problems(401, 429)},
        examples=[OpenApiExample("Rotated", value=_TOKEN_EXAMPLE, response_only=True, status_codes=["201"])],
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        token = player_token_rotate(player=request.user)
        data = PlayerWithTokenOutputSerializer({**_fields(request.user), "token": token}).data
        return Response(data, status=status.HTTP_201_CREATED)


def _fields(player: object) -> dict[str, object]:
    return {name: getattr(player, name) for name in ("id", "username", "created_at")}
