"""``Authorization: Bearer <token>``: the one authentication of the API, and its OpenAPI security scheme.

:func:`bearer_player` reads the header once per request and keeps what it found on the request:
DRF's :class:`BearerAuthentication` and the presence middleware (``games.turns.middleware``, which
must know the caller before the view runs) both ask it, and the token is looked up once.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from .models import Player
from .selectors import player_by_token

MAX_TOKEN_LENGTH = 200
_FOUND = "_bearer_player"  # where a request keeps what bearer_player found


def bearer_player(request: HttpRequest) -> tuple[Player, str] | None:
    """The player and token of the request's ``Authorization: Bearer`` header; None without one.

    Raises DRF's ``AuthenticationFailed`` for a malformed header or a token that is not (or no
    longer) valid. Looked up once per request."""
    found: tuple[Player, str] | None | exceptions.AuthenticationFailed
    if _FOUND in request.__dict__:
        found = request.__dict__[_FOUND]
    else:
        try:
            found = _authenticate(request)
        except exceptions.AuthenticationFailed as exc:
            found = exc
        request.__dict__[_FOUND] = found
    if isinstance(found, exceptions.AuthenticationFailed):
        raise found
    return found


def _authenticate(request: HttpRequest) -> tuple[Player, str] | None:
    parts = get_authorization_header(request).split()
    if not parts or parts[0].lower() != BearerAuthentication.keyword:
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


class BearerAuthentication(BaseAuthentication):
    """Authenticates a player by the token that ``POST /api/v1/players/`` issued."""

    keyword = b"bearer"

    def authenticate(self, request: Request) -> tuple[Player, str] | None:
        return bearer_player(request._request)

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'  # makes DRF answer 401, not 403, to a missing token


class BearerAuthenticationScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "players.authentication.BearerAuthentication"
    name = "bearer"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "The token that POST /api/v1/players/ returned."}
