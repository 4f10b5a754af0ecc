"""The moves the service makes for seats, on an engine state in memory: the built-in bots' turns, and the
random source of every move it makes (a bot's, a stand-in's).

Where the bots' turns are played (``games.turns.builtin`` says when): inside a player's action, for the
quick levels (:func:`games.matches.services.match_act`); once a move's answer is sent; or by a worker.
"""

from __future__ import annotations

import os
import random
from collections.abc import Collection

from games import engine
from games.bots import choose_action

from . import records
from .models import Match

#: The most bot turns played in one go (one transaction) before the match is saved and handed on.
BOTS_PER_RUN = 200


#: The random source of the moves in a match that is not seeded: one per process, seeded from the system's
#: entropy, and again in a child forked from it (a server's workers), so that no two processes draw alike.
#: A generator seeded anew for each move read 2.5 KB from the system and built its state each time: 12 of
#: the 15 µs a level-1 bot's draws cost.
_unseeded = random.Random()
os.register_at_fork(after_in_child=_unseeded.seed)


def turn_random(match: Match, seq: int, salt: object) -> random.Random:
    """The random source of a move the service makes at ``seq``: reproducible in a seeded match (C12),
    so that its replays play the same moves; the process's, seeded from the system's entropy, otherwise."""
    return random.Random(f"{match.seed}:{seq}:{salt}") if match.seed is not None else _unseeded


def next_bot(match: Match, state: engine.State) -> str | None:
    """The level of the built-in bot to act in ``state``, or None (a human, a registered bot, nobody)."""
    return records.bot_at(match.seating, engine.current_seat(state))


def bots_play(
    match: Match, state: engine.State, *, seq: int, levels: Collection[str] | None = None, limit: int = BOTS_PER_RUN
) -> tuple[list[engine.Event], int]:
    """Play the built-in bots' turns on ``state`` (changed in place) until someone else must act: a human,
    a registered bot, a bot of a level not in ``levels`` (None: any), or ``limit`` turns; their events
    and how many turns they played.

    ``seq``: where the match stood when the bots' run began (their random source's). Each bot sees only
    its own seat's view of the table."""
    events: list[engine.Event] = []
    played = 0
    while (level := next_bot(match, state)) and played < limit and (levels is None or level in levels):
        seat = engine.current_seat(state)
        assert seat is not None
        action = choose_action(level, engine.view(state, seat), turn_random(match, seq, played))
        events += engine.push(state, seat, action)
        played += 1
    return events, played
