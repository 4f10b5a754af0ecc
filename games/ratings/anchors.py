"""The built-in bots' fixed ratings, derived from the arena's measured results (docs/bots.md, "Measured"):
pure, no Django. docs/ratings.md gives the derivation and the figures.

Each step of the ladder is the rating difference at which the stronger level wins the share of hands it
won in the arena, 2,000 duplicate deals a pairing (:func:`games.ratings.glicko.elo_difference`); level-2,
who plays simple sound rules, sits at 1500, where a newcomer starts. ``dos`` and ``clasico`` were measured;
the other variants take clásico's steps, the smaller (a fixed anchor too far apart would give a player who
beats level-4 more than the measures support).
"""

from __future__ import annotations

from .glicko import BASE, Glicko, elo_difference

#: Hands won by the stronger level of each step, level-2 over level-1, level-3 over level-2, level-4 over
#: level-3 (docs/bots.md, "Strength: 2,000 duplicate deals").
MEASURED_WIN_RATES: dict[str, tuple[float, float, float]] = {
    "dos": (3455 / 4000, 2888 / 4000, 2401 / 4000),
    "clasico": (2587 / 4000, 2125 / 4000, 2257 / 4000),
}
#: The variants the arena has not measured, and the measured variant whose steps they take.
STAND_IN = {"individual": "clasico", "cabron": "clasico", "subastado": "clasico", "subastado_parejas": "clasico"}
#: The anchors' deviation: about the width, in rating points, of the measures' 95% intervals summed up the ladder.
ANCHOR_DEVIATION = 30.0


def _ladder(rates: tuple[float, float, float]) -> dict[str, float]:
    up_2, up_3, up_4 = (elo_difference(p) for p in rates)
    return {"level-1": BASE - up_2, "level-2": BASE, "level-3": BASE + up_3, "level-4": BASE + up_3 + up_4}


def anchor_ratings(variant: str) -> dict[str, float]:
    """The fixed rating of each built-in level in ``variant``, rounded to the point."""
    measured = STAND_IN.get(variant, variant)
    return {level: round(r) for level, r in _ladder(MEASURED_WIN_RATES[measured]).items()}


def anchor(variant: str, level: str) -> Glicko:
    """A built-in level as an opponent: its fixed rating, never updated."""
    return Glicko(anchor_ratings(variant)[level], ANCHOR_DEVIATION, 0.0)
