"""Writes of the streak ladder (RULES.md L): start a run, and advance it when its match is over.

A run's match is an ordinary match, made by :func:`games.matches.services.match_create` with the
player in seat 0, a built-in bot in seat 1 and the dealer of L1. When it ends, the matches tell the
layers above (``settings.MATCH_LISTENERS``, :func:`games.ladder.news.match_ended`) after the commit;
:func:`run_advance` then records the result and, on a win, creates the next match, in its own
transaction that locks the run. It is idempotent (a match's result is recorded once) and it is
called again by whoever finds a run whose match is over (:func:`run_current`, the beat's
:func:`runs_sweep`), so an advance lost between the commit and the listener is made later.
"""

from __future__ import annotations

import logging
from datetime import datetime
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from games.engine import ladder as rules
from games.matches import records
from games.matches.models import Match, MatchStatus
from games.matches.services import match_create
from players.models import Player

from . import selectors
from .errors import ErrorCode, NotFound
from .models import LadderBest, LadderMatch, LadderRun, MatchResult, RunEnd, RunState

logger = logging.getLogger(__name__)

#: The statuses of a match that is over.
OVER = (MatchStatus.FINISHED, MatchStatus.CANCELLED)


def match_seed(run: LadderRun, number: int) -> int | None:
    """The seed of a ladder match: none (the system's entropy, C12). Tests replace it."""
    return None


@transaction.atomic
def run_start(*, player: Player) -> LadderRun:
    """A new run with its first match against level-1, the bot dealing (L1); it ends the player's
    current run, which keeps its score (L2)."""
    Player.objects.select_for_update().filter(pk=player.pk).first()  # one start of a player at a time
    now = timezone.now()
    for current in LadderRun.objects.select_for_update().filter(player=player, state=RunState.ACTIVE):
        _end(current, RunEnd.ABANDONED, now)
    first = rules.Run()
    run = LadderRun(player=player, level=first.level, started_at=now)
    _match_next(run, first.next_match)
    return run


def run_advance(*, match_id: UUID | str) -> LadderRun | None:
    """Record the result of a ladder match that is over and move its run on: on a win the next
    match at once, against the next level, the deal alternating; a loss, a tie or a cancelled match
    ends the run (L2, L3). None if the match is no ladder match. Idempotent: a match already
    recorded, or one still being played, changes nothing.

    Every match that ends asks (``games.ladder.news``): one that is no ladder match costs one read, and
    no transaction."""
    entry = selectors.ladder_match_of(match_id=match_id)
    return None if entry is None else _run_advance(entry)


@transaction.atomic
def _run_advance(entry: LadderMatch) -> LadderRun:
    match_id = entry.match_id
    run = LadderRun.objects.select_for_update().get(pk=entry.run_id)
    entry = LadderMatch.objects.get(pk=entry.pk)  # read again under the run's lock
    match = Match.objects.fetch(match_id)
    if entry.result or match is None or match.status not in OVER:
        return run
    now = timezone.now()
    if match.status == MatchStatus.CANCELLED:
        entry.result = MatchResult.CANCELLED
        entry.save(update_fields=["result"])
        if run.state == RunState.ACTIVE and run.match_id == match.id:
            _end(run, RunEnd.CANCELLED, now)
        return run
    state = records.state_of(match)
    outcome = rules.outcome(state.results[-1], rules.PLAYER_SEAT)
    entry.result, entry.margin = MatchResult(outcome.result), outcome.margin
    entry.save(update_fields=["result", "margin"])
    if run.state != RunState.ACTIVE or run.match_id != match.id:  # a run ended by a new one (L2)
        return run
    after = rules.Run(run.streak, run.margin).after(outcome)
    run.streak, run.margin, run.score = after.streak, after.margin, after.score
    if after.over:
        _end(run, RunEnd(outcome.result), now)
        return run
    _best_record(run, now)
    run.level = after.level
    _match_next(run, after.next_match)
    return run


@transaction.atomic
def run_current(*, player: Player) -> LadderRun:
    """The player's latest run (being played, or the last one over); 404 if they never ran. A run
    whose match is over but was not advanced (its news lost) is advanced first."""
    run = LadderRun.objects.filter(player=player).select_related("match").order_by("-started_at").first()
    if run is None:
        raise NotFound("You have no ladder run: start one with POST /ladder/runs/.", code=ErrorCode.NO_CURRENT_RUN)
    if run.state == RunState.ACTIVE and run.match.status in OVER:
        run_advance(match_id=run.match_id)
        run = LadderRun.objects.select_related("match").get(pk=run.pk)
    return run


def runs_sweep() -> int:
    """Advance the runs whose match is over but that were not advanced (Celery beat); returns how many."""
    stuck = LadderRun.objects.filter(state=RunState.ACTIVE, match__status__in=OVER).values_list("match_id", flat=True)
    count = 0
    for match_id in list(stuck):
        try:
            run_advance(match_id=match_id)
            count += 1
        except Exception:  # the next sweep tries again
            logger.exception("Could not advance the ladder run of match %s", match_id)
    return count


# -- helpers ------------------------------------------------------------------------------------


def _match_next(run: LadderRun, number: int) -> None:
    """Create the run's match ``number`` (the player against the bot of its level, L1–L2) and save the
    run pointing at it."""
    level = rules.rival_level(number)
    dealer = rules.first_dealer(number)
    seats: list[object] = [None, None]
    seats[rules.PLAYER_SEAT], seats[rules.BOT_SEAT] = {"player": "me"}, {"bot": level}
    created = match_create(
        player=run.player,
        variant=rules.VARIANT,
        options=dict(rules.OPTIONS),
        seed=match_seed(run, number),
        seats=seats,
        first_dealer=dealer,
    ).match
    run.match, run.level = created, level
    run.save()
    LadderMatch.objects.create(run=run, number=number, match=created, level=level, dealer=dealer)


def _end(run: LadderRun, why: RunEnd, now: datetime) -> None:
    """The run is over, its figures kept (L2)."""
    run.state, run.ended_by, run.ended_at = RunState.OVER, why, now
    run.save()


def _best_record(run: LadderRun, now: datetime) -> None:
    """Keep the run's score as the player's best if it is higher (L3)."""
    best = LadderBest.objects.select_for_update().filter(player_id=run.player_id).first()
    if best is not None and best.score >= run.score:
        return
    LadderBest.objects.update_or_create(
        player_id=run.player_id,
        defaults={"score": run.score, "streak": run.streak, "margin": run.margin, "run": run, "achieved_at": now},
    )
