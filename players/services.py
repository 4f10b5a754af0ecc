"""Writes of the players app: create a player, issue and rotate tokens; register bots."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import IntegrityError, transaction

from .errors import InvalidWebhookUrl, UsernameTaken
from .models import Bot, BotCall, BotDelivery, Player, Token
from .tokens import token_digest, token_new
from .webhooks import webhook_target


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


# -- bots ---------------------------------------------------------------------------------------


def _secret_new() -> str:
    return secrets.token_hex(32)


@transaction.atomic
def bot_register(
    *, owner: Player, name: str, delivery: str, webhook_url: str = "", timeout_ms: int = 2000
) -> tuple[Bot, str]:
    """A new bot (a player named ``name``, owned by ``owner``) and its first token (returned once).

    A webhook bot's URL is checked now (http(s), every address public unless
    ``BOT_WEBHOOK_ALLOW_PRIVATE``), and again on every call.
    """
    if delivery == BotDelivery.WEBHOOK:
        if not webhook_url:
            raise InvalidWebhookUrl("A webhook bot needs a webhook_url.", field="webhook_url")
        webhook_target(webhook_url, allow_private=settings.BOT_WEBHOOK_ALLOW_PRIVATE)
    elif webhook_url:
        raise InvalidWebhookUrl("A poll bot takes no webhook_url.", field="webhook_url")
    player, token = player_create(username=name)
    bot = Bot.objects.create(
        player=player,
        owner=owner,
        delivery=delivery,
        webhook_url=webhook_url,
        timeout_ms=timeout_ms,
        secret=_secret_new(),
    )
    return bot, token


@transaction.atomic
def bot_credentials_rotate(*, bot: Bot) -> str:
    """A new token and a new signing secret for the bot; the old ones stop working at once."""
    bot.secret = _secret_new()
    bot.save(update_fields=["secret"])
    return player_token_rotate(player=bot.player)


def bot_call_record(*, bot: Bot, match_id: object, seq: int, outcome: str, latency_ms: int, detail: str = "") -> None:
    """Count one webhook call in the bot's stats."""
    BotCall.objects.create(
        bot=bot, match_id=match_id, seq=seq, outcome=outcome, latency_ms=max(0, latency_ms), detail=detail[:200]
    )
