"""Writes of the players app: create a player, issue and rotate tokens."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from .errors import UsernameTaken
from .models import Player, Token
from .tokens import token_digest, token_new


def _token_issue(*, player: Player) -> str:
    token = token_new()
    Token.objects.create(player=player, digest=token_digest(token))
    return token


@transaction.atomic
def player_create(*, username: str) -> tuple[Player, str]:
    """A new player and its first token (returned once, never stored in the clear)."""
    if Player.objects.filter(username__iexact=username).exists():
        raise UsernameTaken(f"The username {username!r} is taken.", username=username)
    try:
        with transaction.atomic():  # a concurrent request may take the name between the check and here
            player = Player.objects.create(username=username)
    except IntegrityError:
        raise UsernameTaken(f"The username {username!r} is taken.", username=username) from None
    return player, _token_issue(player=player)


@transaction.atomic
def player_token_rotate(*, player: Player) -> str:
    """A new token for the player; every earlier token stops working at once."""
    Token.objects.filter(player=player).delete()
    return _token_issue(player=player)
