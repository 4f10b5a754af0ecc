"""games.ratings.services.ratings_record on worked examples (docs/ratings.md)."""

from __future__ import annotations

import math

import pytest

from games import engine
from games.ratings import anchors, glicko
from games.ratings.models import Rating
from games.ratings.services import MIN_DEVIATION, TAU, Sitter, is_rated, ratings_record
from players.models import Player

pytestmark = pytest.mark.django_db


def _player(name: str, rating: float = 1500.0, deviation: float = 350.0, variant: str = "clasico") -> str:
    player = Player.objects.create(username=name)
    if rating != 1500.0 or deviation != 350.0:
        Rating.objects.create(player=player, variant=variant, rating=rating, deviation=deviation)
    return str(player.pk)


def _update(me: glicko.Glicko, *games: tuple[glicko.Glicko, float]) -> glicko.Glicko:
    return glicko.update(me, [glicko.Game(o, s) for o, s in games], tau=TAU, min_deviation=MIN_DEVIATION)


def test_pairs_each_player_against_the_opposing_side_as_one() -> None:
    """Clásico: ana (1600/80) and a level-3 bot beat bea (1500/350) and carl (1400/100), 2 games to 1."""
    ana, bea, carl = _player("ana", 1600, 80), _player("bea"), _player("carl", 1400, 100)
    sitters = [Sitter(player=ana), Sitter(player=bea), Sitter(bot="level-3"), Sitter(player=carl)]
    options = engine.validate_options("clasico", {})
    changes = ratings_record(
        variant="clasico", options=options, sitters=sitters, scoreboard=[2, 1], winners=[0], rated=True
    )
    assert changes is not None
    ana_r, bea_r, carl_r = glicko.Glicko(1600, 80), glicko.Glicko(1500, 350), glicko.Glicko(1400, 100)
    level_3 = anchors.anchor("clasico", "level-3")
    want = {
        0: _update(ana_r, (glicko.composite([bea_r, carl_r]), 1.0)),
        1: _update(bea_r, (glicko.composite([ana_r, level_3]), 0.0)),
        3: _update(carl_r, (glicko.composite([ana_r, level_3]), 0.0)),
    }
    for seat, expected in want.items():
        assert math.isclose(changes[seat]["rating"], expected.rating, abs_tol=0.05)
        assert math.isclose(changes[seat]["deviation"], expected.deviation, abs_tol=0.05)
    assert changes[2] == {
        "seat": 2, "player": None, "bot": "level-3", "rating_before": 1522.0, "rating": 1522.0, "change": 0.0,
        "deviation": anchors.ANCHOR_DEVIATION,
    }  # fmt: skip
    rows = {str(r.player_id): r for r in Rating.objects.filter(variant="clasico")}
    assert (rows[ana].won, rows[bea].won, rows[carl].won) == (1, 0, 0)
    assert all(r.games == 1 and r.played == 1 for r in rows.values())
    assert math.isclose(rows[ana].rating, want[0].rating)


def test_each_for_themselves_every_pair_of_seats() -> None:
    """Cabrón of 3, letters 0, 2, 1: ana first, the level-1 bot third, bea second."""
    ana, bea = _player("ana2", 1550, 120, "cabron"), _player("bea2", 1450, 200, "cabron")
    sitters = [Sitter(player=ana), Sitter(bot="level-1"), Sitter(player=bea)]
    options = engine.validate_options("cabron", {"players": 3})
    changes = ratings_record(
        variant="cabron", options=options, sitters=sitters, scoreboard=[0, 2, 1], winners=[0], rated=True
    )
    assert changes is not None
    ana_r, bea_r, level_1 = glicko.Glicko(1550, 120), glicko.Glicko(1450, 200), anchors.anchor("cabron", "level-1")
    assert math.isclose(changes[0]["rating"], _update(ana_r, (level_1, 1.0), (bea_r, 1.0)).rating, abs_tol=0.05)
    assert math.isclose(changes[2]["rating"], _update(bea_r, (ana_r, 0.0), (level_1, 1.0)).rating, abs_tol=0.05)


def test_an_unrated_match_counts_played_and_won_only() -> None:
    ana = _player("ana3")
    options = engine.validate_options("dos", {})
    changes = ratings_record(
        variant="dos", options=options, sitters=[Sitter(player=ana), Sitter(bot="level-1")],
        scoreboard=[3, 1], winners=[0], rated=False,
    )  # fmt: skip
    assert changes is None
    row = Rating.objects.get(player_id=ana, variant="dos")
    assert (row.rating, row.deviation, row.games, row.played, row.won) == (1500.0, 350.0, 0, 1, 1)


def test_which_matches_are_rated() -> None:
    seats = [Sitter(player="p"), Sitter(bot="level-4")]
    assert is_rated(seeded=False, cancelled=False, sitters=seats)
    assert not is_rated(seeded=True, cancelled=False, sitters=seats)
    assert not is_rated(seeded=False, cancelled=True, sitters=seats)
    assert not is_rated(seeded=False, cancelled=False, sitters=[Sitter(player="p"), Sitter()])  # an open seat


def test_a_finished_match_takes_three_queries_for_its_ratings(django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    players = [_player(f"q{n}") for n in range(4)]
    options = engine.validate_options("individual", {"players": 4})
    with django_assert_max_num_queries(3):
        ratings_record(
            variant="individual", options=options, sitters=[Sitter(player=p) for p in players],
            scoreboard=[1, 0, 0, 0], winners=[0], rated=True,
        )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_the_missing_rows_are_inserted_in_the_message_that_locks_them() -> None:
    """On PostgreSQL's wire: the players' rows, created where missing, go with their lock (one round trip),
    then the writes; the rows read are the ones written (a player's first match and a later one)."""
    from django.db import connection, transaction

    from tests.wire import wire

    if connection.vendor != "postgresql":
        pytest.skip("read on PostgreSQL's wire")
    old, new = _player("wire-old", 1600, 80, "dos"), _player("wire-new")
    options = engine.validate_options("dos", {})
    with wire() as sent, transaction.atomic():
        ratings_record(
            variant="dos", options=options, sitters=[Sitter(player=old), Sitter(player=new)],
            scoreboard=[1, 0], winners=[0], rated=True,
        )  # fmt: skip
    inserts = [message for message in sent if 'INSERT INTO "ratings_rating"' in message]
    assert len(inserts) == 1 and "ON CONFLICT DO NOTHING" in inserts[0] and inserts[0].endswith("FOR UPDATE"), sent
    assert inserts[0].startswith("BEGIN") and sent.index(inserts[0]) == 0, sent
    after = {str(r.player_id): r for r in Rating.objects.filter(variant="dos")}
    assert (after[old].played, after[old].won, after[old].games) == (1, 1, 1)
    assert (after[new].played, after[new].won, after[new].games) == (1, 0, 1)
    assert after[old].rating > 1600 and after[new].rating < 1500
