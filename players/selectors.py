"""Reads of the players app."""

from __future__ import annotations

from .models import Player, Token
from .tokens import token_digest


def player_by_token(token: str) -> Player | None:
    """The player a bearer token belongs to, or None (one query)."""
    found = Token.objects.select_related("player").filter(digest=token_digest(token)).first()
    return found.player if found is not None else None
