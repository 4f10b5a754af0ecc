"""Writes of the players app: create a player, issue and rotate tokens; register, change and retire bots."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Value
from django.db.models.functions import Lower
from django.utils import timezone

from .errors import BotInPlay, InvalidWebhookUrl, NotYourBot, TooManyBots, UnknownBot, UsernameTaken
from .models import Bot, BotCall, BotDelivery, Player, Token
from .tokens import token_digest, token_new
from .webhook_urls import webhook_target

#: Bots a player may own at once (retired ones aside): each is a player with its own rate limit,
#: so without a cap one client could make players without the limit on creating them.
MAX_BOTS_PER_OWNER = 20


def _token_issue(*, player: Player) -> str:
    token = token_new()
    Token.objects.create(player=player, digest=token_digest(token))
    return token


@transaction.atomic
def player_create(*, username: str) -> tuple[Player, str]:
    """A new player and its first token (returned once, never stored in the clear)."""
    # LOWER(username), as the unique index is (``iexact`` would be UPPER(), a scan of every player).
    if Player.objects.alias(lower=Lower("username")).filter(lower=Lower(Value(username))).exists():
        raise UsernameTaken(f"The username {username!r} is taken.", username=username)
    try:
        with transaction.atomic():  # a concurrent request may take the name between the check and here
            player = Player.objects.create(username=username)
    except IntegrityError:
        raise UsernameTaken(f"The username {username!r} is taken.", username=username) from None
    return player, _token_issue(player=player)


@transaction.atomic
def player_token_rotate(*, player: Player) -> str:
    """A new token for the player; every earlier token stops working at once. A bot's token is its
    owner's to rotate, with its signing secret (:func:`bot_credentials_rotate`): 403 ``not_your_bot``."""
    if Bot.objects.filter(pk=player.pk).exists():
        raise NotYourBot("A bot's credentials are rotated by its owner: POST /api/v1/bots/{id}/token.")
    return _token_replace(player)


def _token_replace(player: Player) -> str:
    """Delete the player's tokens and issue one, with the player's row locked: two rotations at once
    would otherwise each delete what they saw and leave both new tokens working."""
    Player.objects.lock(player.pk)
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
    if Bot.objects.filter(pk=owner.pk).exists():  # else the cap below would hold per generation of bots
        raise NotYourBot("A bot owns no bots: register bots with its owner's token.")
    _delivery_check(delivery, webhook_url)
    Player.objects.lock(owner.pk)  # registrations of one owner are counted one at a time
    if Bot.objects.filter(owner=owner, retired_at__isnull=True).count() >= MAX_BOTS_PER_OWNER:
        raise TooManyBots(
            f"A player owns at most {MAX_BOTS_PER_OWNER} bots; retire one (DELETE /api/v1/bots/{{id}}) first.",
            limit=MAX_BOTS_PER_OWNER,
        )
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


def _delivery_check(delivery: str, webhook_url: str) -> None:
    """422 ``invalid_webhook_url`` / ``webhook_address_not_allowed`` unless the pair makes a bot: a
    webhook bot has a URL that passes :func:`webhook_target`, a poll bot has none."""
    if delivery == BotDelivery.WEBHOOK:
        if not webhook_url:
            raise InvalidWebhookUrl("A webhook bot needs a webhook_url.", field="webhook_url")
        webhook_target(webhook_url, allow_private=settings.BOT_WEBHOOK_ALLOW_PRIVATE)
    elif webhook_url:
        raise InvalidWebhookUrl("A poll bot takes no webhook_url.", field="webhook_url")


_UNSET: Any = object()


@transaction.atomic
def bot_update(
    *, bot: Bot, delivery: str = _UNSET, webhook_url: str | None = _UNSET, timeout_ms: int = _UNSET
) -> Bot:
    """Change how the bot gets its turns; the arguments left out keep their values.

    The result is checked as at registration (:func:`bot_register`), and nothing changes if it is
    refused. A bot that turns to ``poll`` without a ``webhook_url`` given drops its URL; a
    ``webhook_url`` of None (or "") means none. The URL is checked again whenever ``delivery`` or
    ``webhook_url`` is given.
    """
    new_delivery = bot.delivery if delivery is _UNSET else delivery
    if webhook_url is _UNSET:
        new_url = "" if new_delivery == BotDelivery.POLL else bot.webhook_url
    else:
        new_url = webhook_url or ""
    if delivery is not _UNSET or webhook_url is not _UNSET:
        _delivery_check(new_delivery, new_url)
    bot.delivery, bot.webhook_url = new_delivery, new_url
    if timeout_ms is not _UNSET:
        bot.timeout_ms = timeout_ms
    bot.save(update_fields=["delivery", "webhook_url", "timeout_ms"])
    return bot


@transaction.atomic
def bot_retire(*, bot: Bot) -> None:
    """Retire the bot: refused (409 ``bot_in_play``) while it sits in a waiting or active match.

    Its tokens are deleted, so they stop working at once; it is no longer listed, and a match can no
    longer seat it. Its player stays, with its seats in finished matches, its records and its stats
    (the username stays taken).
    """
    # The lock orders this against a match being created with the bot (players.selectors.bot_player_locked
    # locks the same row): either that match is seen below, or it finds the bot retired.
    locked = Bot.objects.select_for_update().filter(pk=bot.pk, retired_at__isnull=True).first()
    if locked is None:
        raise UnknownBot()
    # ``seats`` is games.Seat's relation to the player; the statuses are games.models.MatchStatus'.
    playing = Player.objects.filter(pk=locked.pk, seats__match__status__in=("waiting", "active"))
    if match_id := playing.values_list("seats__match_id", flat=True).first():
        raise BotInPlay(
            "The bot sits in a match that is waiting or active; retire it once that match is over.",
            match_id=str(match_id),
        )
    locked.retired_at = timezone.now()
    locked.save(update_fields=["retired_at"])
    Token.objects.filter(player_id=locked.pk).delete()
    bot.retired_at = locked.retired_at


@transaction.atomic
def bot_credentials_rotate(*, bot: Bot) -> str:
    """A new token and a new signing secret for the bot; the old ones stop working at once. 404
    ``unknown_bot`` if it was retired meanwhile (a retired bot has no token)."""
    if not list(Bot.objects.select_for_update().filter(pk=bot.pk, retired_at__isnull=True).values_list("pk")):
        raise UnknownBot()
    bot.secret = _secret_new()
    bot.save(update_fields=["secret"])
    return _token_replace(bot.player)


def bot_call_record(*, bot: Bot, match_id: object, seq: int, outcome: str, latency_ms: int, detail: str = "") -> None:
    """Count one turn of the bot (a webhook call, or a poll bot's action or timeout) in its stats."""
    BotCall.objects.create(
        bot=bot, match_id=match_id, seq=seq, outcome=outcome, latency_ms=max(0, latency_ms), detail=detail[:200]
    )
