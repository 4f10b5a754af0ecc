"""The built-in bots' turns (``games.bots``, played by :func:`games.matches.moves.bots_play`).

A bot whose decision costs microseconds (``settings.BOT_LEVELS_IN_PROCESS``: level-1 and level-2) plays
where the move before it was made: inside a player's action or a match's start, in its transaction
(:func:`games.matches.services.match_act`, ``_match_start``); after any other move (a service's event, a
play inside that failed), in the process that committed it, once its answer is sent
(:func:`bot_turns_next`). No message to a broker, no wait for a worker. The others (level-3's exact
endings and level-4's search take milliseconds to a second a decision) are played by a Celery task, as is
every turn the in-process play could not take. The task (``play_bot_turns``) takes the match's id and the
``seq`` it stood at, so a task that runs late or twice finds the match moved on and does nothing;
:func:`bot_turns_sweep` queues again the turns whose task was lost: a broker away when it was queued, a
worker killed while it held the message, or a process that stopped between a move's commit and its bots'
turns. Celery beat runs it every ``BOT_TURNS_SWEEP_SECONDS`` (1) for the turns idle
``BOT_TURNS_IDLE_SECONDS`` (2), and every worker once as it starts (docs/reliability.md: why a sweep and
not the broker's redelivery).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection
from datetime import timedelta
from uuid import UUID

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from games.matches import moves, records
from games.matches.models import Match, MatchStatus
from games.matches.services import moves_record

from . import queue

logger = logging.getLogger(__name__)

#: Bot actions played in one transaction before the task commits and queues itself again.
BOT_TURNS_PER_TASK = moves.BOTS_PER_RUN


@transaction.atomic
def bot_turns_play(*, match_id: UUID | str, seq: int, levels: Collection[str] | None = None) -> int:
    """Play the bots' turns from ``seq`` on until a human must act; returns the actions played.

    ``levels``: play only the bots of these levels, stopping at the first seat of another (whose turn the
    news of this commit hands on). Idempotent: if the match has moved past ``seq`` (another task played,
    or a human acted), it does nothing. Each bot sees only its own seat's view of the table.
    """
    match = Match.objects.fetch(match_id, lock=True)
    if match is None or match.status != MatchStatus.ACTIVE or match.seq != seq:
        return 0
    state = records.state_of(match)
    events, played = moves.bots_play(match, state, seq=seq, levels=levels, limit=BOT_TURNS_PER_TASK)
    if events:
        moves_record(match, state, events)
    return played


# Set while this thread plays bots' turns in process: the news of that play queues what follows.
_playing = threading.local()


def bot_turns_next(match_id: UUID, seq: int, level: str) -> None:
    """Hand on the turn of a built-in bot of ``level`` in a match standing at ``seq`` (a move that was neither a
    player's action nor a match's start, whose quick bots played inside them, or one the quick bots' play inside
    those could not follow): played here and now if the level is quick (``settings.BOT_LEVELS_IN_PROCESS``),
    else queued for a worker.

    Called once the move before has committed (after its answer, in a request). In-process play takes
    the quick bots' turns in a row and commits them; the news of that commit queues whatever follows
    (a slower bot, or the 200th turn) for a worker rather than playing on here. A play that fails (the
    database away) is queued instead, whose task retries; a process stopped in between leaves the turn to
    :func:`bot_turns_sweep`."""
    quick = settings.BOT_LEVELS_IN_PROCESS
    if level in quick and not getattr(_playing, "now", False):
        _playing.now = True
        try:
            bot_turns_play(match_id=match_id, seq=seq, levels=quick)
            return
        except Exception:  # noqa: BLE001 - a worker's task tries it again (and retries a database away)
            logger.warning("The bots' turns of match %s at seq %s failed in process; queued", match_id, seq,
                           exc_info=True)  # fmt: skip
        finally:
            _playing.now = False
    bot_turns_queue(match_id, seq)


def bot_turns_sweep(*, idle_seconds: float | None = None, again: bool = False) -> int:
    """Queue the bot turns idle ``idle_seconds`` (``BOT_TURNS_IDLE_SECONDS``), whose task was lost
    (a broker down at the moment of queuing, a worker killed with the message); returns how many.

    A turn queued again by an earlier sweep is queued once more only after twice the time it had been
    idle then (at most a minute), so that a turn whose message waits behind a backlog, or for a worker
    that is down, is not queued every second; ``again`` (a worker's start) queues them all.
    """
    idle = settings.BOT_TURNS_IDLE_SECONDS if idle_seconds is None else idle_seconds
    now = timezone.now()
    stuck = Match.objects.filter(status=MatchStatus.ACTIVE, updated_at__lt=now - timedelta(seconds=idle))
    stuck = stuck.filter(turn__isnull=False, seats__number=F("turn"), seats__bot__gt="")
    count = 0
    for match_id, seq, updated_at in stuck.values_list("id", "seq", "updated_at"):
        if again or _first_sweep_for_a_while(match_id, seq, (now - updated_at).total_seconds()):
            bot_turns_queue(match_id, seq)
            count += 1
    return count


def _first_sweep_for_a_while(match_id: UUID, seq: int, idle: float) -> bool:
    try:
        return bool(cache.add(f"bot-turn-swept:{match_id}:{seq}", True, timeout=min(60.0, 2 * max(idle, 1.0))))
    except Exception:  # noqa: BLE001 - the cache away: queue it (a duplicate does nothing), log why
        logger.warning("The bot turns sweep could not read the cache; queuing the turn anyway", exc_info=True)
        return True


def bot_turns_queue(match_id: UUID, seq: int) -> None:
    try:
        queue.enqueue(queue.PLAY_BOT_TURNS, str(match_id), seq)
    except BrokerError:  # the sweep (sweep_bot_turns) queues it again later
        logger.exception("Could not queue the bot turns of match %s at seq %s", match_id, seq)
