"""The Glicko-2 arithmetic (games.ratings.glicko), against Glickman's worked example."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from games.ratings.glicko import Game, Glicko, composite, elo_difference, update


def test_glickman_worked_example() -> None:
    """ "Example of the Glicko-2 system": 1500/200/0.06, tau 0.5, against 1400/30 (won), 1550/100 (lost),
    1700/300 (lost) gives r' = 1464.06, RD' = 151.52, sigma' = 0.05999."""
    player = Glicko(1500, 200, 0.06)
    games = [Game(Glicko(1400, 30), 1), Game(Glicko(1550, 100), 0), Game(Glicko(1700, 300), 0)]
    after = update(player, games, tau=0.5)
    assert math.isclose(after.rating, 1464.06, abs_tol=0.01)
    assert math.isclose(after.deviation, 151.52, abs_tol=0.01)
    assert math.isclose(after.volatility, 0.05999, abs_tol=0.00001)


def test_no_game_only_grows_the_deviation() -> None:
    after = update(Glicko(1600, 100, 0.06), [])
    assert after.rating == 1600
    assert math.isclose(after.deviation, math.sqrt((100 / 173.7178) ** 2 + 0.06**2) * 173.7178)


def test_deviation_bounds() -> None:
    assert update(Glicko(1500, 350, 0.06), [], max_deviation=350).deviation == 350
    beaten = [Game(Glicko(1500, 30), 1)] * 50
    assert update(Glicko(1500, 50, 0.06), beaten, min_deviation=45).deviation == 45


@given(st.floats(0.01, 0.99))
def test_elo_difference_inverts_the_expected_score(p: float) -> None:
    d = elo_difference(p)
    assert math.isclose(1 / (1 + 10 ** (-d / 400)), p, rel_tol=1e-9)


def test_elo_difference_figures() -> None:
    assert elo_difference(0.5) == 0
    assert round(elo_difference(0.75)) == 191


@given(st.floats(800, 2400), st.floats(30, 350), st.floats(800, 2400), st.floats(30, 350))
def test_a_win_raises_a_loss_lowers(r: float, rd: float, r_j: float, rd_j: float) -> None:
    me, them = Glicko(r, rd), Glicko(r_j, rd_j)
    assert update(me, [Game(them, 1)]).rating > r > update(me, [Game(them, 0)]).rating


def test_composite_is_the_mean_and_the_rms_deviation() -> None:
    side = composite([Glicko(1400, 30), Glicko(1600, 90)])
    assert side.rating == 1500
    assert math.isclose(side.deviation, math.sqrt((30**2 + 90**2) / 2))
