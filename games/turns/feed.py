"""The turns a player must play now: ``GET /api/v1/me/turns`` (waited for by :mod:`games.live.waits`)
and, one at a time, a webhook bot's call (both rendered by ``TurnSerializer``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from django.db.models import F
from django.utils import timezone

from games.matches.bodies import MatchView, match_view
from games.matches.models import Match, MatchStatus
from players.models import BotDelivery, Player
from players.selectors import bot_of_player

#: The most turns one poll answers with.
MAX_TURNS = 50


@dataclass(frozen=True)
class Turn:
    """A match where ``seat`` is to act; for a bot, ``deadline_ms`` is the time it has left (a poll
    bot) or its whole ``timeout_ms`` (a webhook call); None for anyone else."""

    match: Match
    seat: int
    deadline_ms: int | None

    @cached_property
    def view(self) -> MatchView:
        return match_view(self.match, self.seat)


def _poll_timeout_ms(player: Player) -> int | None:
    """The player's ``timeout_ms`` if it is a poll bot, else None (no query for a known non-bot)."""
    bot = bot_of_player(player.pk)
    return bot.timeout_ms if bot is not None and bot.delivery == BotDelivery.POLL else None


def turns_of(*, player: Player) -> list[Turn]:
    """The matches where the player must act now, oldest turn first; for a poll bot, ``deadline_ms``
    is the time left before the stand-in move is played for it (0: any moment)."""
    matches = (
        Match.objects.filter(status=MatchStatus.ACTIVE, seats__player=player, seats__number=F("turn"))
        .order_by("updated_at")
        .distinct()[:MAX_TURNS]
    )
    timeout_ms = _poll_timeout_ms(player)
    now = timezone.now()

    def left(match: Match) -> int | None:
        if timeout_ms is None:
            return None
        return max(0, timeout_ms - int((now - match.updated_at).total_seconds() * 1000))

    return [Turn(m, m.turn, left(m)) for m in matches if m.turn is not None]
