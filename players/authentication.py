"""``Authorization: Bearer <token>`` for DRF, and its OpenAPI security scheme."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from .models import Player
from .selectors import player_by_token

MAX_TOKEN_LENGTH = 200


class BearerAuthentication(BaseAuthentication):
    """Authenticates a player by the token that ``POST /api/v1/players/`` issued."""

    keyword = b"bearer"

    def authenticate(self, request: Request) -> tuple[Player, str] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword:
            return None  # no credentials: IsAuthenticated answers 401 not_authenticated
        if len(parts) != 2 or len(parts[1]) > MAX_TOKEN_LENGTH:
            raise exceptions.AuthenticationFailed("The Authorization header must be 'Bearer <token>'.")
        try:
            token = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("The token is not valid.") from None
        player = player_by_token(token)
        if player is None:
            raise exceptions.AuthenticationFailed("The token is not valid (it may have been rotated).")
        return player, token

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'  # makes DRF answer 401, not 403, to a missing token


class BearerAuthenticationScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "players.authentication.BearerAuthentication"
    name = "bearer"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "The token that POST /api/v1/players/ returned."}
