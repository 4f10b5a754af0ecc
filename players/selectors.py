"""Reads of the players app."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db.models import Count, QuerySet

from . import token_cache
from .models import Bot, BotCall, BotCallOutcome, Player
from .tokens import token_digest

#: The stats' latency percentiles are over at most this many of the latest calls.
STATS_WINDOW = 1000
#: The latest fallbacks the stats show, with what went wrong.
RECENT_FALLBACKS = 20


def player_by_token(token: str) -> Player | None:
    """The player a bearer token belongs to, or None: one query, none while the process keeps the
    answer (:mod:`players.token_cache`)."""
    return token_cache.player_by_digest(token_digest(token), Player.objects.by_token_digest)


def bots_of(*, owner: Player) -> QuerySet[Bot]:
    """The owner's bots that are not retired, oldest first."""
    return Bot.objects.filter(owner=owner, retired_at__isnull=True).select_related("player").order_by("created_at")


def bot_owned(*, bot_id: UUID, owner: Player) -> Bot:
    """The bot, if ``owner`` owns it: 404 ``unknown_bot`` (also once retired), or 403 ``not_your_bot``."""
    # Imported here: players.authentication imports this module while DRF's views are loading.
    from .errors import NotYourBot, UnknownBot

    bot = Bot.objects.select_related("player").filter(pk=bot_id, retired_at__isnull=True).first()
    if bot is None:
        raise UnknownBot()
    if bot.owner_id != owner.pk:
        raise NotYourBot("Only the bot's owner may see or change it.")
    return bot


#: Ids of players known to be no registered bot, so that their actions and turns query nothing about
#: bots. Registering a bot always makes a new player, so a player that is no bot never becomes one:
#: the set is never wrong, only incomplete. Per process; emptied when it reaches _NO_BOTS_MAX.
_no_bots: set[str] = set()
_NO_BOTS_MAX = 100_000


def bot_of_player(player_id: object) -> Bot | None:
    """The player's registered bot, or None: one query, none for a player already known to be no bot."""
    if str(player_id) in _no_bots:
        return None
    bot = Bot.objects.filter(pk=player_id).first()
    if bot is None:
        _no_bot(player_id)
    return bot


def _no_bot(player_id: object) -> None:
    if len(_no_bots) >= _NO_BOTS_MAX:
        _no_bots.clear()
    _no_bots.add(str(player_id))


def bot_player_locked(bot_id: str) -> Player | None:
    """The player of the registered bot with that id, if there is one and it is not retired.

    Call it in a transaction: the bot's row stays locked until it commits, so a bot cannot be
    retired while a match seating it is being created (``players.services.bot_retire``).
    """
    try:
        pk = UUID(bot_id)
    except ValueError:
        return None
    found = Bot.objects.select_for_update(of=("self",)).select_related("player")
    bot = found.filter(pk=pk, retired_at__isnull=True).first()
    return bot.player if bot is not None else None


def retired_bot(player_id: object) -> bool:
    """Whether the player is a retired bot; a bot's row is locked, as by :func:`bot_player_locked`, so
    a bot cannot be retired while it takes a seat. A player known to be no bot costs no query."""
    if str(player_id) in _no_bots:
        return False
    rows = list(Bot.objects.select_for_update(of=("self",)).filter(pk=player_id).values_list("retired_at", flat=True))
    if not rows:
        _no_bot(player_id)
        return False
    return rows[0] is not None


def _percentile(ordered: list[int], p: float) -> int | None:
    """The nearest-rank percentile of sorted values."""
    if not ordered:
        return None
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


def bot_stats(*, bot: Bot) -> dict[str, Any]:
    """What the bot's turns came to (webhook calls, or a poll bot's actions and timeouts): counts by
    outcome since it was registered, and latency percentiles over its latest ``STATS_WINDOW`` turns."""
    counts = {outcome: 0 for outcome in BotCallOutcome.values}
    grouped = BotCall.objects.filter(bot=bot).order_by().values("outcome").annotate(n=Count("id"))
    for row in grouped:
        counts[row["outcome"]] = row["n"]
    latest = BotCall.objects.filter(bot=bot).order_by("-created_at", "-id")[:STATS_WINDOW]
    latencies = sorted(latest.values_list("latency_ms", flat=True))
    return {
        "bot_id": str(bot.pk),
        "delivery": bot.delivery,
        "turns": sum(counts.values()),
        "ok": counts[BotCallOutcome.OK],
        "timeouts": counts[BotCallOutcome.TIMEOUT],
        "errors": counts[BotCallOutcome.ERROR],
        "illegal": counts[BotCallOutcome.ILLEGAL],
        "fallbacks": sum(counts.values()) - counts[BotCallOutcome.OK],
        "latency_ms": {
            "p50": _percentile(latencies, 50),
            "p95": _percentile(latencies, 95),
            "p99": _percentile(latencies, 99),
            "samples": len(latencies),
        },
        "recent_fallbacks": [
            {"match_id": str(c.match_id), "seq": c.seq, "outcome": c.outcome, "detail": c.detail, "at": c.created_at}
            for c in BotCall.objects.filter(bot=bot)
            .exclude(outcome=BotCallOutcome.OK)
            .order_by("-created_at", "-id")[:RECENT_FALLBACKS]
        ],
    }
