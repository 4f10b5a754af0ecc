"""The built-in bots' turns (``games.bots``): played by a Celery task once the move before commits.

The task (``play_bot_turns``) takes the match's id and the ``seq`` it stood at, so a task that runs
late or twice finds the match moved on and does nothing; :func:`bot_turns_sweep` queues again the
turns whose task was lost (a broker away when it was queued).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from uuid import UUID

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from games import engine
from games.bots import choose_action
from games.matches import records
from games.matches.models import Match, MatchStatus
from games.matches.services import moves_record

from . import queue
from .standin import turn_random

logger = logging.getLogger(__name__)

#: Bot actions played in one transaction before the task commits and queues itself again.
BOT_TURNS_PER_TASK = 200


@transaction.atomic
def bot_turns_play(*, match_id: UUID | str, seq: int) -> int:
    """Play the bots' turns from ``seq`` on until a human must act; returns the actions played.

    Idempotent: if the match has moved past ``seq`` (another task played, or a human acted), it
    does nothing. Each bot sees only its own seat's view of the table.
    """
    match = Match.objects.fetch(match_id, lock=True)
    if match is None or match.status != MatchStatus.ACTIVE or match.seq != seq:
        return 0
    state = records.state_of(match)
    events: list[engine.Event] = []
    played = 0
    while (level := records.bot_at(match.seating, engine.current_seat(state))) and played < BOT_TURNS_PER_TASK:
        seat = engine.current_seat(state)
        assert seat is not None
        action = choose_action(level, engine.view(state, seat), turn_random(match, seq, played))
        events += engine.push(state, seat, action)
        played += 1
    if events:
        moves_record(match, state, events)
    return played


def bot_turns_sweep(*, idle_seconds: float = 30) -> int:
    """Queue bot turns that were lost (a broker down at the moment of queuing); returns how many."""
    cutoff = timezone.now() - timedelta(seconds=idle_seconds)
    stuck = Match.objects.filter(status=MatchStatus.ACTIVE, updated_at__lt=cutoff, turn__isnull=False)
    stuck = stuck.filter(seats__number=F("turn"), seats__bot__gt="").values_list("id", "seq")
    count = 0
    for match_id, seq in stuck:
        bot_turns_queue(match_id, seq)
        count += 1
    return count


def bot_turns_queue(match_id: UUID, seq: int) -> None:
    try:
        queue.enqueue(queue.PLAY_BOT_TURNS, str(match_id), seq)
    except BrokerError:  # the sweep (sweep_bot_turns) queues it again later
        logger.exception("Could not queue the bot turns of match %s at seq %s", match_id, seq)
