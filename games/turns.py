"""Turns of registered bots (docs/http-bots.md): the poll feed, webhook delivery, and timeouts.

A registered bot is a player (``players.models.Bot``), so it acts through the ordinary actions
endpoint. This module tells it when to act:

- **poll**: ``GET /api/v1/me/turns?wait=N`` lists the matches where the caller must act, each with
  its view and ``legal_actions`` (:func:`turns_of`, :func:`turns_wait`); every recorded turn of a
  player publishes on :func:`games.live.player_channel`, which wakes that wait.
- **webhook**: after a turn of a webhook bot is committed, :func:`turn_deliver` (the Celery task
  ``games.tasks.deliver_turn``) reads the bot's view, POSTs it, signed, to the bot's URL holding
  no lock, and applies the reply through :func:`games.services.match_act` with ``expected_seq``.
  A late, malformed or illegal reply is replaced by a level-2 move, logged as a ``bot_fallback``
  event (the engine's replay skips it) right before the move's own events, and counted in the
  bot's stats.
- **timeouts of poll bots**: a poll bot's turn is timed too. :func:`turn_announce` queues
  ``games.tasks.expire_poll_turn`` with a countdown of the bot's ``timeout_ms`` plus
  :data:`POLL_SLACK_SECONDS`; if the bot has not acted by then, :func:`poll_turn_expire` plays the
  same level-2 fallback (reason ``timeout``). :func:`poll_turns_sweep` (in the beat task
  ``games.tasks.sweep_webhook_turns``) expires the turns whose task was lost. A poll bot's own
  action is counted ``ok`` in its stats by :func:`poll_action_record`, timed from the start of its
  turn.

With no broker the tasks run in process, inside the on-commit of the request that made the turn.
A match of bots then plays on turn after turn; the deliveries run one after another in a loop
(:func:`_queue_delivery`) rather than nested in one another, so the stack stays flat. A countdown
cannot wait in process: there, no expiry is queued at all (a poll bot's turn is never cut short at
once), and only a call of :func:`poll_turns_sweep` expires the turns that are overdue.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import deque
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from games import engine, live
from games.bots import choose_action
from players import webhooks
from players.models import Bot, BotCallOutcome, BotDelivery, Player
from players.services import bot_call_record
from tute_api.after_response import on_commit_later
from tute_api.errors import ApiError

from . import adapter, services, tasks
from .errors import ErrorCode
from .models import Event, Match, MatchStatus
from .serializers import ActionInputSerializer

logger = logging.getLogger(__name__)

#: The level that plays for a bot whose reply is late, malformed or illegal.
FALLBACK_LEVEL = "level-2"
#: The most turns one poll answers with.
MAX_TURNS = 50
#: Codes of a refused action that mean the match moved on without the bot: nothing to replace.
_MOVED_ON = {ErrorCode.STALE_SEQ.value, engine.Code.NOT_YOUR_TURN.value, engine.Code.MATCH_NOT_ACTIVE.value}
#: Seconds past a poll bot's ``timeout_ms`` at which its expiry task runs: room for the time between
#: the turn's commit and its announcement, and for a worker's clock a little behind the server's
#: (an expiry that runs early does nothing; the sweep then expires the turn).
POLL_SLACK_SECONDS = 0.5

#: Ids of players known to be no registered bot, so that their actions and turns query nothing about
#: bots. Registering a bot always makes a new player, so a player that is no bot never becomes one:
#: the set is never wrong, only incomplete. Per process; emptied when it reaches _NO_BOTS_MAX.
_no_bots: set[str] = set()
_NO_BOTS_MAX = 100_000


def _bot_of(player_id: object) -> Bot | None:
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


def registered_bot(bot_id: str) -> Player | None:
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
    """Whether the player is a retired bot; a bot's row is locked, as by :func:`registered_bot`, so a
    bot cannot be retired while it takes a seat. A player known to be no bot costs no query."""
    if str(player_id) in _no_bots:
        return False
    rows = list(Bot.objects.select_for_update(of=("self",)).filter(pk=player_id).values_list("retired_at", flat=True))
    if not rows:
        _no_bot(player_id)
        return False
    return rows[0] is not None


# -- announcing a turn -------------------------------------------------------------------------------


def after_record(match: Match) -> None:
    """Called as a match's new state is saved: once it commits, tell the player to act, if one must."""
    seat = match.turn
    if seat is None or match.status != MatchStatus.ACTIVE:
        return
    player = match.seating[seat]["player"]
    if not player:
        return
    match_id, seq, player_id = match.id, match.seq, player["id"]
    on_commit_later(lambda: turn_announce(match_id, seq, player_id))


def turn_announce(match_id: UUID, seq: int, player_id: str) -> None:
    """Wake the player's ``/me/turns`` polls; queue the webhook call of a webhook bot, or the expiry
    of a poll bot's turn."""
    try:
        live.publish(live.player_channel(player_id))
    except Exception:  # a poll times out and reads again; the turn is in the database
        logger.exception("Could not announce a turn to player %s", player_id)
    bot = _bot_of(player_id)
    if bot is None:
        return
    if bot.delivery == BotDelivery.WEBHOOK:
        _queue_delivery(match_id, seq)
    elif bot.delivery == BotDelivery.POLL:
        _queue_expiry(match_id, seq, bot.timeout_ms)


def _queue_expiry(match_id: UUID, seq: int, timeout_ms: int) -> None:
    """Queue ``expire_poll_turn`` to run once the poll bot's time is over; nothing in process (no
    broker), where a countdown cannot wait: :func:`poll_turns_sweep` expires such turns when called."""
    if current_app.conf.task_always_eager:
        return
    try:
        tasks.expire_poll_turn.apply_async((str(match_id), seq), countdown=timeout_ms / 1000 + POLL_SLACK_SECONDS)
    except BrokerError:  # the sweep expires the turn later
        logger.exception("Could not queue the expiry of the poll turn of match %s at seq %s", match_id, seq)


_chain = threading.local()


def _queue_delivery(match_id: UUID, seq: int) -> None:
    """Queue ``deliver_turn``; in process (no broker), run the deliveries one after another."""
    if not current_app.conf.task_always_eager:
        try:
            tasks.deliver_turn.delay(str(match_id), seq)
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
                tasks.deliver_turn.delay(str(queued_id), queued_seq)
            except Exception:
                logger.exception("The webhook turn of match %s at seq %s failed", queued_id, queued_seq)
    finally:
        _chain.pending = None


def webhook_turns_sweep(*, idle_seconds: float = 30) -> int:
    """Queue again the webhook calls that were lost (a broker down when queuing); returns how many."""
    cutoff = timezone.now() - timedelta(seconds=idle_seconds)
    stuck = Match.objects.filter(status=MatchStatus.ACTIVE, updated_at__lt=cutoff, turn__isnull=False)
    stuck = stuck.filter(seats__number=F("turn"), seats__player__bot__delivery=BotDelivery.WEBHOOK)
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
    idle = idle.filter(seats__number=F("turn"), seats__player__bot__delivery=BotDelivery.POLL)
    count = 0
    for match_id, seq, updated_at, timeout_ms in idle.values_list(
        "id", "seq", "updated_at", "seats__player__bot__timeout_ms"
    ):
        if updated_at + timedelta(milliseconds=timeout_ms) <= now:
            count += poll_turn_expire(match_id=match_id, seq=seq, now=now)
    return count


@transaction.atomic
def poll_turn_expire(*, match_id: UUID | str, seq: int, now: datetime | None = None) -> bool:
    """The poll bot to act at ``seq`` has had its ``timeout_ms``: play a level-2 move for it (a
    ``bot_fallback`` event, reason ``timeout``) and count the turn as a timeout in its stats.

    The time runs from the start of the turn (``Match.updated_at``, which dates the latest move).
    Idempotent, and safe to run early: does nothing (False) if the match has moved on since ``seq``
    (service events aside), if the seat to act holds no poll bot, or if the bot's time is not over
    at ``now``.
    """
    now = now or timezone.now()
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None or match.turn is None or not _same_turn(match, seq):
        return False
    player = match.seating[match.turn]["player"]
    bot = _bot_of(player["id"]) if player else None
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


def poll_action_record(*, player: Player, match: Match) -> None:
    """Count a poll bot's own action in its stats (``ok``), timed from the start of its turn.

    :func:`games.services.match_act` calls it with the match locked, as it is about to record a
    legal action: ``match.updated_at`` still dates the latest move, that is the ``created_at`` of
    the events with which the turn began (service events such as presence do not move it). A player
    known to be no bot costs no query; a webhook bot's replies are counted by :func:`turn_deliver`.
    """
    bot = _bot_of(player.pk)
    if bot is None or bot.delivery != BotDelivery.POLL:
        return
    latency_ms = int((timezone.now() - match.updated_at).total_seconds() * 1000)
    bot_call_record(bot=bot, match_id=match.pk, seq=match.seq, outcome=BotCallOutcome.OK, latency_ms=latency_ms)


# -- the poll feed -----------------------------------------------------------------------------------


def _turn_body(match: Match, seat: int, deadline_ms: int | None) -> dict[str, Any]:
    view = adapter.match_body(match, seat)
    return {
        "match_id": str(match.id),
        "seq": match.seq,
        "seat": seat,
        "deadline_ms": deadline_ms,
        "view": view,
        "legal_actions": view["legal_actions"],
    }


def _poll_timeout_ms(player: Player) -> int | None:
    """The player's ``timeout_ms`` if it is a poll bot, else None (no query for a known non-bot)."""
    bot = _bot_of(player.pk)
    return bot.timeout_ms if bot is not None and bot.delivery == BotDelivery.POLL else None


def turns_of(*, player: Player) -> list[dict[str, Any]]:
    """The matches where the player must act now, oldest turn first, each with its view; for a poll
    bot, ``deadline_ms`` is the time left before a level-2 move is played for it (0: any moment)."""
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

    return [_turn_body(m, m.turn, left(m)) for m in matches if m.turn is not None]


def turns_wait(*, player: Player, timeout: float) -> list[dict[str, Any]]:
    """:func:`turns_of`, waiting up to ``timeout`` seconds for a turn when there is none.

    Subscribes first and reads second, so a turn announced in between is not missed; holds no
    database connection while it waits (outside a transaction, it closes it).
    """
    with live.subscribe(live.player_channel(player.pk)) as subscription:
        found = turns_of(player=player)
        deadline = time.monotonic() + timeout
        while not found and (left := deadline - time.monotonic()) > 0:
            if not connection.in_atomic_block:
                connection.close()
            if subscription.wait(left):
                found = turns_of(player=player)
    return found


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
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.turn is None or not _same_turn(match, seq):
        return "skipped"
    seat, seq = match.turn, match.seq
    player = match.seating[seat]["player"]
    bot = Bot.objects.select_related("player").filter(pk=player["id"]).first() if player else None
    if bot is None or bot.delivery != BotDelivery.WEBHOOK:
        return "skipped"
    payload = _turn_body(match, seat, bot.timeout_ms)
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
                    services.match_act(
                        player=bot.player,
                        match_id=match.id,
                        action=action.action(),
                        expected_seq=expected,
                        own_move=False,
                    )
                    break
                except ApiError as exc:
                    code = str(exc.get_codes())
                    if code not in _MOVED_ON:
                        outcome, detail = BotCallOutcome.ILLEGAL, f"{code}: {exc.detail}"
                        break
                    now = Match.objects.filter(pk=match.id).first()
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
def turn_fallback(*, match_id: UUID, seq: int, reason: str, detail: str = "") -> bool:
    """Play a level-2 move for the seat to act at ``seq``, logged as a ``bot_fallback`` event that
    says only the ``reason`` (:data:`PUBLIC_DETAIL`); ``detail`` goes to the service's log.

    Does nothing (False) if the match has moved on since ``seq`` (service events aside).
    """
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None or match.turn is None or not _same_turn(match, seq):
        return False
    state = adapter.state_of(match)
    seat = match.turn
    rng = random.Random(f"{match.seed}:{seq}:fallback") if match.seed is not None else random.Random()
    action = choose_action(FALLBACK_LEVEL, engine.view(state, seat), rng)
    marker: engine.Event = {
        "type": "bot_fallback",
        "seat": seat,
        "data": {"reason": reason, "detail": PUBLIC_DETAIL[reason], "level": FALLBACK_LEVEL},
    }
    events = [marker, *engine.push(state, seat, action)]
    services._record(match, state, events)
    logger.info("Bot fallback in match %s at seq %s, seat %s: %s %s", match_id, seq, seat, reason, detail[:200])
    return True
