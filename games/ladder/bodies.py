"""What the API shows of the ladder: the views its output serializers render."""

from __future__ import annotations

from dataclasses import dataclass

from .models import LadderBest, LadderMatch, LadderRun


@dataclass(frozen=True)
class RunView:
    """A run and its matches, in order; ``match`` is the current (or last) one's entry."""

    run: LadderRun
    matches: list[LadderMatch]

    @property
    def match(self) -> LadderMatch:
        return self.matches[-1]

    @property
    def ended_by(self) -> str | None:
        return self.run.ended_by or None


def run_view(run: LadderRun) -> RunView:
    """The run's view; its matches are read with theirs (prefetched by the list of runs)."""
    cache = getattr(run, "_prefetched_objects_cache", {})
    matches = cache["matches"] if "matches" in cache else run.matches.select_related("match")
    return RunView(run, sorted(matches, key=lambda entry: entry.number))


@dataclass(frozen=True)
class LeaderboardEntry:
    """A player's best score and their place in the leaderboard (1 for the first)."""

    rank: int
    best: LadderBest
