"""The streak ladder's rules (RULES.md L1–L3), pure: the rival of each match, who deals, what a match
scores and where the run stands after it.

A run is a series of ``dos`` matches of one hand each with default options, the player in seat 0
against a built-in bot in seat 1 (L1). The service (``games.ladder``) stores the run; this module
only computes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

#: L1: the variant and options of every ladder match (one hand: ``games_to_win`` is 1 by default).
VARIANT = "dos"
OPTIONS: dict[str, Any] = {}
#: The seats: the player's and the bot's.
PLAYER_SEAT, BOT_SEAT = 0, 1
#: L2: the rival of the first, second, third and (from then on) every later match.
LEVELS = ("level-1", "level-2", "level-3", "level-4")
#: L3: a hand won by tute counts so much to the rival's 0.
TUTE_POINTS = 130
#: L3: the run's margin is at most this.
MARGIN_CAP = 9_999
#: L3: what each match of the streak is worth in the score.
STREAK_POINTS = 10_000

Result = Literal["won", "lost", "tied"]


def rival_level(number: int) -> str:
    """L2: the level of the bot in match ``number`` of a run (1 for the first)."""
    if number < 1:
        raise ValueError("matches of a run are numbered from 1")
    return LEVELS[min(number, len(LEVELS)) - 1]


def first_dealer(number: int) -> int:
    """L1: the seat that deals match ``number`` (1 for the first): the bot first, then alternating."""
    if number < 1:
        raise ValueError("matches of a run are numbered from 1")
    return BOT_SEAT if number % 2 == 1 else PLAYER_SEAT


@dataclass(frozen=True)
class Outcome:
    """A finished ladder match for the player: its result and its margin (the player's total minus
    the rival's, negative when the rival scored more)."""

    result: Result
    margin: int


def outcome(hand: Mapping[str, Any], seat: int = PLAYER_SEAT) -> Outcome:
    """L2, L3: the outcome for ``seat`` of a ladder match from its one hand's result (the engine's
    ``hand_finished`` data: ``points`` per side, and ``tute`` when a tute won it).

    A tute counts 130 to 0, for its holder. Otherwise the totals decide, and equal totals are a tie,
    which ends the run, although the engine gives the hand to the last trick's winner (C13)."""
    tute = hand.get("tute")
    if tute is not None:
        won = tute["seat"] == seat
        return Outcome("won" if won else "lost", TUTE_POINTS if won else -TUTE_POINTS)
    points: Sequence[int] = hand["points"]
    margin = points[seat] - points[1 - seat]
    return Outcome("won" if margin > 0 else "lost" if margin < 0 else "tied", margin)


def score(streak: int, margin: int) -> int:
    """L3: a run's score."""
    return streak * STREAK_POINTS + min(margin, MARGIN_CAP)


@dataclass(frozen=True)
class Run:
    """Where a run stands: its streak (matches won), its margin (capped), whether it is over."""

    streak: int = 0
    margin: int = 0
    over: bool = False

    @property
    def score(self) -> int:
        return score(self.streak, self.margin)

    @property
    def level(self) -> str:
        """The rival of the run's next (or current) match."""
        return rival_level(self.streak + 1)

    @property
    def next_match(self) -> int:
        """The number of the run's current match, 1 for the first."""
        return self.streak + 1

    def after(self, match: Outcome) -> Run:
        """L2, L3: the run after its current match: a win adds one to the streak and its margin to
        the run's (at most 9,999); a loss or a tie ends the run, its figures kept."""
        if self.over:
            raise ValueError("the run is over")
        if match.result != "won":
            return Run(self.streak, self.margin, over=True)
        return Run(self.streak + 1, min(self.margin + match.margin, MARGIN_CAP))

    def ended(self) -> Run:
        """L2: the run ended by starting a new one, its figures kept."""
        return Run(self.streak, self.margin, over=True)
