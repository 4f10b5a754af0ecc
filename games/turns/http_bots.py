"""Turns of registered bots (docs/http-bots.md): the poll feed, webhook delivery, and timeouts.

A registered bot is a player (``players.models.Bot``), so it acts through the ordinary actions
endpoint. This module tells it when to act:

- **poll**: ``GET /api/v1/me/turns?wait=N`` lists the matches where the caller must act, each with
  its view and ``legal_actions`` (:mod:`games.turns.feed`, waited for by :mod:`games.live.waits`);
  every recorded turn of a player publishes on ``games.live.channels.player_channel``, which wakes
  that wait.
- **webhook**: after a turn of a webhook bot is committed, :func:`turn_deliver` (the Celery task
  ``deliver_turn``) reads the bot's view, POSTs it, signed, to the bot's URL holding no lock
  (:mod:`games.turns.webhooks`), and applies the reply through
  :func:`games.matches.services.match_act` with ``expected_seq``.
  A late, malformed or illegal reply is replaced by the stand-in move (:mod:`games.turns.standin`),
  logged as a ``bot_fallback`` event (the engine's replay skips it) right before the move's own
  events, and counted in the bot's stats.
- **timeouts of poll bots**: a poll bot's turn is timed too. :func:`turn_announce` queues
  ``expire_poll_turn`` with a countdown of the bot's ``timeout_ms`` plus
  :data:`POLL_SLACK_SECONDS`; if the bot has not acted by then, :func:`poll_turn_expire` plays the
  same stand-in move (reason ``timeout``). :func:`poll_turns_sweep` (in the beat task
  ``sweep_webhook_turns``) expires the turns whose task was lost. A poll bot's own action is
  counted ``ok`` in its stats by :func:`poll_action_record`, timed from the start of its turn.

With no broker the tasks run in process, inside the on-commit of the request that made the turn.
A match of bots then plays on turn after turn; the deliveries run one after another in a loop
(:func:`_queue_delivery`) rather than nested in one another, so the stack stays flat. A countdown
cannot wait in process: there, no expiry is queued at all (a poll bot's turn is never cut short at
once), and only a call of :func:`poll_turns_sweep` expires the turns that are overdue.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from datetime import datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from games import engine
from games.matches import records
from games.matches.errors import ErrorCode
from games.matches.models import Event, Match, MatchStatus
from games.matches.news import Mover
from games.matches.serializers import ActionInputSerializer
from games.matches.services import match_act, moves_record
from players.models import Bot, BotCallOutcome, BotDelivery
from players.selectors import bot_of_player
from players.services import bot_call_record
from tute_api.after_response import on_commit_later
from tute_api.errors import ApiError

from . import queue, webhooks
from .feed import Turn
from .serializers import TurnSerializer
from .standin import STAND_IN_LEVEL, stand_in_action

logger = logging.getLogger(__name__)

#: Codes of a refused action that mean the match moved on without the bot: nothing to replace.
_MOVED_ON = {ErrorCode.STALE_SEQ.value, engine.Code.NOT_YOUR_TURN.value, engine.Code.MATCH_NOT_ACTIVE.value}
#: Seconds past a poll bot's ``timeout_ms`` at which its expiry task runs: room for the time between
#: the turn's commit and its announcement, and for a worker's clock a little behind the server's
#: (an expiry that runs early does nothing; the sweep then expires the turn).
POLL_SLACK_SECONDS = 0.5


# -- announcing a turn -------------------------------------------------------------------------------


def turn_announce(match_id: UUID, seq: int, player_id: str) -> None:
    """A player is to act at ``seq`` (committed): queue the webhook call of a webhook bot, or the
    expiry of a poll bot's turn. A player known to be no bot costs no query."""
    bot = bot_of_player(player_id)
    if bot is None:
        return
    if bot.delivery == BotDelivery.WEBHOOK:
        _queue_delivery(match_id, seq)
    elif bot.delivery == BotDelivery.POLL:
        _queue_expiry(match_id, seq, bot.timeout_ms)


def _queue_expiry(match_id: UUID, seq: int, timeout_ms: int) -> None:
    """Queue ``expire_poll_turn`` to run once the poll bot's time is over; nothing in process (no
    broker), where a countdown cannot wait: :func:`poll_turns_sweep` expires such turns when called."""
    if queue.in_process():
        return
    try:
        queue.enqueue(
            queue.EXPIRE_POLL_TURN, str(match_id), seq, countdown=timeout_ms / 1000 + POLL_SLACK_SECONDS
        )
    except BrokerError:  # the sweep expires the turn later
        logger.exception("Could not queue the expiry of the poll turn of match %s at seq %s", match_id, seq)


_chain = threading.local()


def _queue_delivery(match_id: UUID, seq: int) -> None:
    """Queue ``deliver_turn``; in process (no broker), run the deliveries one after another."""
    if not queue.in_process():
        try:
            queue.enqueue(queue.DELIVER_TURN, str(match_id), seq)
        except BrokerError:
            logger.exception("Could not queue the webhook turn of match %s at seq %s", match_id, seq)
        return
    pending: deque[tuple[UUID, int]] | None = getattr(_chain, "pending", None)
    if pending is not None:  # a delivery of this thread is running: it runs this one next
        pending.append((match_id, seq))
        return
    _chain.pending = pending = deque([(match_id, seq)])
    try:
        while pending:
            queued_id, queued_seq = pending.popleft()
            try:
                queue.enqueue(queue.DELIVER_TURN, str(queued_id), queued_seq)
            except Exception:
                logger.exception("The webhook turn of match %s at seq %s failed", queued_id, queued_seq)
    finally:
        _chain.pending = None


def webhook_turns_sweep(*, idle_seconds: float = 30) -> int:
    """Queue again the webhook calls that were lost (a broker down when queuing); returns how many."""
    cutoff = timezone.now() - timedelta(seconds=idle_seconds)
    stuck = Match.objects.filter(status=MatchStatus.ACTIVE, updated_at__lt=cutoff, turn__isnull=False)
    # The registered webhook bots first (a small table), then the seats of the matches in play: a join
    # through ``players_bot`` per match was a nested loop that scanned it once per active match.
    webhook_bots = Bot.objects.filter(delivery=BotDelivery.WEBHOOK).values("player_id")
    stuck = stuck.filter(seats__number=F("turn"), seats__player__in=webhook_bots)
    count = 0
    for match_id, seq in stuck.values_list("id", "seq"):
        _queue_delivery(match_id, seq)
        count += 1
    return count


def poll_turns_sweep(*, now: datetime | None = None) -> int:
    """Expire the turns of poll bots idle past their ``timeout_ms`` whose expiry task was lost (or
    never queued: no broker); returns how many were played. Celery beat runs it (with
    :func:`webhook_turns_sweep`); under ``make run`` call it by hand."""
    now = now or timezone.now()
    idle = Match.objects.filter(status=MatchStatus.ACTIVE, turn__isnull=False, updated_at__lt=now)
    poll_bots = Bot.objects.filter(delivery=BotDelivery.POLL)
    idle = idle.filter(seats__number=F("turn"), seats__player__in=poll_bots.values("player_id"))
    rows = list(idle.values_list("id", "seq", "updated_at", "seats__player_id"))
    timeouts = dict(poll_bots.filter(pk__in={row[3] for row in rows}).values_list("pk", "timeout_ms"))
    count = 0
    for match_id, seq, updated_at, bot_id in rows:
        if updated_at + timedelta(milliseconds=timeouts[bot_id]) <= now:
            count += poll_turn_expire(match_id=match_id, seq=seq, now=now)
    return count


@transaction.atomic
def poll_turn_expire(*, match_id: UUID | str, seq: int, now: datetime | None = None) -> bool:
    """The poll bot to act at ``seq`` has had its ``timeout_ms``: play the stand-in move for it (a
    ``bot_fallback`` event, reason ``timeout``) and count the turn as a timeout in its stats.

    The time runs from the start of the turn (``Match.updated_at``, which dates the latest move).
    Idempotent, and safe to run early: does nothing (False) if the match has moved on since ``seq``
    (service events aside), if the seat to act holds no poll bot, or if the bot's time is not over
    at ``now``.
    """
    now = now or timezone.now()
    match = Match.objects.fetch(match_id, lock=True)
    if match is None or match.turn is None or not _same_turn(match, seq):
        return False
    player_id = records.player_at(match.seating, match.turn)
    bot = bot_of_player(player_id) if player_id else None
    if bot is not None and bot.delivery == BotDelivery.WEBHOOK:
        # It turned to webhook during this turn: its new delivery takes the turn now that its time is over.
        match_id, at = match.pk, match.seq
        on_commit_later(lambda: _queue_delivery(match_id, at))
        return False
    if bot is None or bot.delivery != BotDelivery.POLL:
        return False
    waited_ms = int((now - match.updated_at).total_seconds() * 1000)
    if waited_ms < bot.timeout_ms:
        return False
    at, detail = match.seq, f"no action within {bot.timeout_ms} ms"
    if not turn_fallback(match_id=match.pk, seq=seq, reason=BotCallOutcome.TIMEOUT.value, detail=detail):
        return False
    bot_call_record(
        bot=bot, match_id=match.pk, seq=at, outcome=BotCallOutcome.TIMEOUT, latency_ms=waited_ms, detail=detail
    )
    return True


def poll_action_record(mover: Mover, match_id: UUID) -> None:
    """Count a poll bot's own action in its stats (``ok``), timed from the start of its turn to the
    action. A player known to be no bot costs no query; a webhook bot's replies are counted by
    :func:`turn_deliver`, a stand-in move by whoever made it."""
    bot = bot_of_player(mover.player_id)
    if bot is None or bot.delivery != BotDelivery.POLL:
        return
    latency_ms = int((mover.acted_at - mover.turn_began).total_seconds() * 1000)
    bot_call_record(bot=bot, match_id=match_id, seq=mover.seq, outcome=BotCallOutcome.OK, latency_ms=latency_ms)


# -- webhook delivery --------------------------------------------------------------------------------


def _same_turn(match: Match, seq: int) -> bool:
    """The match is active and has not moved on since ``seq`` but for service events (presence: not
    the engine's), so the seat that was to act at ``seq`` still is, with the same table."""
    if match.status != MatchStatus.ACTIVE or match.turn is None or not 0 < seq <= match.seq:
        return False
    if match.seq == seq:
        return True
    since = Event.objects.filter(match_id=match.pk, seq__gt=seq).order_by("seq")
    return not engine.actions_of([row.as_engine_event() for row in since])


def turn_deliver(*, match_id: UUID | str, seq: int) -> str:
    """Call the webhook bot that must act in the match at ``seq`` and play its reply (or a fallback).

    Idempotent: if the match has moved on since ``seq`` (service events aside), or the seat to act
    holds no webhook bot, it does nothing. Returns what happened: ``ok``, ``timeout``, ``error``,
    ``illegal`` or ``skipped``.
    """
    match = Match.objects.fetch(match_id)
    if match is None or match.turn is None or not _same_turn(match, seq):
        return "skipped"
    seat, seq = match.turn, match.seq
    player_id = records.player_at(match.seating, seat)
    bot = Bot.objects.select_related("player").filter(pk=player_id).first() if player_id else None
    if bot is None or bot.delivery != BotDelivery.WEBHOOK:
        return "skipped"
    payload = TurnSerializer(Turn(match, seat, bot.timeout_ms)).data
    reply = webhooks.post(
        bot.webhook_url,
        payload,
        secret=bot.secret,
        timeout_ms=bot.timeout_ms,
        allow_private=settings.BOT_WEBHOOK_ALLOW_PRIVATE,
    )  # no transaction is open and no row is locked while the bot thinks
    outcome, detail = reply.outcome, reply.detail
    if outcome == BotCallOutcome.OK:
        action = ActionInputSerializer(data=reply.body)
        if not isinstance(reply.body, dict) or not action.is_valid():
            outcome, detail = BotCallOutcome.ERROR, "the reply is not an action"
        else:
            expected = seq
            for _ in range(3):
                try:
                    match_act(
                        player=bot.player, match_id=match.id, action=action.action(), expected_seq=expected,
                        stand_in=True,
                    )  # fmt: skip
                    break
                except ApiError as exc:
                    code = str(exc.get_codes())
                    if code not in _MOVED_ON:
                        outcome, detail = BotCallOutcome.ILLEGAL, f"{code}: {exc.detail}"
                        break
                    now = Match.objects.fetch(match.id)
                    if code != ErrorCode.STALE_SEQ or now is None or not _same_turn(now, seq):
                        return "skipped"  # someone else acted meanwhile: nothing to replace
                    expected = now.seq  # only service events came in between: the reply still holds
            else:
                return "skipped"
    with transaction.atomic():
        if outcome != BotCallOutcome.OK and not turn_fallback(
            match_id=match.id, seq=seq, reason=outcome, detail=detail
        ):
            return "skipped"  # the match moved on while the bot thought: nothing replaced, nothing counted
        bot_call_record(
            bot=bot, match_id=match.id, seq=seq, outcome=outcome, latency_ms=reply.latency_ms, detail=detail
        )
    return str(outcome)


#: What the table is told of a fallback. Never the bot's reply or the call's error: an illegal card
#: is refused for a duty only once it is found in the bot's hand, so the engine's message names a
#: card that seat holds, and a failed call names the owner's addresses. The owner reads those in the
#: bot's stats (``recent_fallbacks``), and the service's log has them.
PUBLIC_DETAIL = {
    "timeout": "The bot did not answer in time.",
    "error": "The bot's answer could not be used.",
    "illegal": "The bot's answer broke a rule.",
}


@transaction.atomic
def turn_fallback(*, match_id: UUID | str, seq: int, reason: str, detail: str = "") -> bool:
    """Play the stand-in move for the seat to act at ``seq``, logged as a ``bot_fallback`` event that
    says only the ``reason`` (:data:`PUBLIC_DETAIL`); ``detail`` goes to the service's log.

    Does nothing (False) if the match has moved on since ``seq`` (service events aside).
    """
    match = Match.objects.fetch(match_id, lock=True)
    if match is None or match.turn is None or not _same_turn(match, seq):
        return False
    state = records.state_of(match)
    seat = match.turn
    marker: engine.Event = {
        "type": "bot_fallback",
        "seat": seat,
        "data": {"reason": reason, "detail": PUBLIC_DETAIL[reason], "level": STAND_IN_LEVEL},
    }
    events = [marker, *engine.push(state, seat, stand_in_action(match, state, seat))]
    moves_record(match, state, events)
    logger.info("Bot fallback in match %s at seq %s, seat %s: %s %s", match_id, seq, seat, reason, detail[:200])
    return True
