"""How a finished match decomposes into the games of each seat's rating period (docs/ratings.md)."""

from __future__ import annotations

from games import engine
from games.ratings.anchors import ANCHOR_DEVIATION, MEASURED_WIN_RATES, anchor, anchor_ratings
from games.ratings.glicko import elo_difference
from games.ratings.pairings import Pairing, pairings


def _options(variant: str, **given: object) -> dict[str, object]:
    return dict(engine.validate_options(variant, given))


def test_pairs_play_the_opposing_side() -> None:
    """Clásico 2 games to 1: seats 0 and 2 each beat the side of 1 and 3, who each lose to 0 and 2."""
    games = pairings("clasico", _options("clasico"), [2, 1])
    assert games == [
        Pairing(0, (1, 3), 1.0),
        Pairing(1, (0, 2), 0.0),
        Pairing(2, (1, 3), 1.0),
        Pairing(3, (0, 2), 0.0),
    ]


def test_subastado_in_pairs_by_points_and_a_tie_is_a_draw() -> None:
    games = pairings("subastado_parejas", _options("subastado_parejas"), [510, 510])
    assert {g.score for g in games} == {0.5}
    assert [g.opponents for g in games] == [(1, 3), (0, 2), (1, 3), (0, 2)]


def test_each_for_themselves_every_pair_by_order() -> None:
    """Individual of 3, games won 2, 0, 1: seat 0 beats 1 and 2, seat 2 beats 1."""
    games = pairings("individual", _options("individual", players=3), [2, 0, 1])
    assert games == [
        Pairing(0, (1,), 1.0),
        Pairing(0, (2,), 1.0),
        Pairing(1, (0,), 0.0),
        Pairing(1, (2,), 0.0),
        Pairing(2, (0,), 0.0),
        Pairing(2, (1,), 1.0),
    ]


def test_cabron_fewer_letters_is_better() -> None:
    """Cabrón of 4, letters 1, 3, 0, 3: seat 2 first, then 0, then 1 and 3 level."""
    scores = {
        (g.seat, g.opponents[0]): g.score for g in pairings("cabron", _options("cabron", players=4), [1, 3, 0, 3])
    }
    assert scores[(2, 0)] == scores[(2, 1)] == scores[(2, 3)] == 1.0
    assert scores[(0, 1)] == scores[(0, 3)] == 1.0 and scores[(0, 2)] == 0.0
    assert scores[(1, 3)] == scores[(3, 1)] == 0.5
    assert len(scores) == 12


def test_subastado_more_points_is_better_and_dos_is_one_game_each() -> None:
    assert pairings("subastado", _options("subastado"), [300, 520, 120])[0:2] == [
        Pairing(0, (1,), 0.0),
        Pairing(0, (2,), 1.0),
    ]
    assert pairings("dos", _options("dos"), [0, 3]) == [Pairing(0, (1,), 0.0), Pairing(1, (0,), 1.0)]


def test_anchors_are_the_measured_steps() -> None:
    """docs/ratings.md's figures: level-2 at 1500 and each step the Elo difference of its measured win rate."""
    assert anchor_ratings("dos") == {"level-1": 1179, "level-2": 1500, "level-3": 1666, "level-4": 1736}
    assert anchor_ratings("clasico") == {"level-1": 1395, "level-2": 1500, "level-3": 1522, "level-4": 1567}
    for variant in ("individual", "cabron", "subastado", "subastado_parejas"):
        assert anchor_ratings(variant) == anchor_ratings("clasico")
    up_2, _, _ = MEASURED_WIN_RATES["dos"]
    assert round(1500 - elo_difference(up_2)) == 1179
    assert anchor("dos", "level-4").deviation == ANCHOR_DEVIATION
