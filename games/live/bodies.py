"""What the live updates show of their own: a public match in play on the TV page (RULES.md M5)."""

from __future__ import annotations

from dataclasses import dataclass

from games.matches.models import Match


@dataclass(frozen=True)
class LiveEntry:
    """A public match in play and how many watch it now: no card (its state is not even read)."""

    match: Match
    spectators: int
