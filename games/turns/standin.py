"""The one stand-in move: what the service plays for a seat whose player did not (RULES.md M2, M3;
docs/http-bots.md): a registered bot's late, malformed or illegal reply, a poll bot's timeout, a
human's turn clock. The built-in bot of :data:`STAND_IN_LEVEL` chooses it from the seat's own view,
with :func:`turn_random`'s recipe, the one the built-in bots' turns use too.
"""

from __future__ import annotations

from typing import Any

from games import engine
from games.bots import choose_action
from games.matches.models import Match
from games.matches.moves import turn_random

#: The built-in bot that plays for a seat whose player did not.
STAND_IN_LEVEL = "level-2"


def stand_in_action(match: Match, state: engine.State, seat: int) -> dict[str, Any]:
    """The move played for ``seat``, which is to act at ``match.seq`` (in a declaration turn, C10m, the
    built-in bot declares as the table would)."""
    return choose_action(STAND_IN_LEVEL, engine.view(state, seat), turn_random(match, match.seq, "stand-in"))


#: What a turn clock that runs out on a declaration plays (RULES.md C10m).
DECLARATION_TIMED_OUT: dict[str, Any] = {"type": "pass"}


def timed_out_action(match: Match, state: engine.State, seat: int) -> dict[str, Any]:
    """The move played for a human whose turn clock ran out: a pass in a declaration turn (C10m: the
    player declares nothing more), the stand-in move otherwise."""
    if state.phase == "declare":
        return dict(DECLARATION_TIMED_OUT)
    return stand_in_action(match, state, seat)
