"""The ladder's service rules over HTTP: starting a run ends the current one (L2), a lost advance is
made later, the best scores and their leaderboard, and ladder matches are ordinary matches."""

from __future__ import annotations

import threading
from datetime import timedelta
from unittest import mock

import pytest
from django.conf import settings
from django.db import connection, connections
from django.test import TestCase, override_settings
from django.utils import timezone

from games.engine import ladder as rules
from games.ladder import selectors, services, tasks
from games.ladder.models import LadderBest, LadderMatch, LadderRun
from games.matches.models import Match
from games.matches.services import match_cancel_record
from games.turns.models import Presence, Table
from tests import services as tests_services
from tests.games.helpers import new_player
from tests.games.openapi import validate
from tests.http_bots.helpers import register

from .helpers import MARGINS, SEEDS, current, play_match, seeded, start

pytestmark = pytest.mark.django_db

WITHOUT_THE_LADDER = [name for name in settings.MATCH_LISTENERS if not name.startswith("games.ladder.")]


def test_L2_starting_a_new_run_ends_the_current_one_which_keeps_its_score():
    me = new_player()
    with seeded(SEEDS):
        first = start(me)
        play_match(me, first["match"]["id"])  # won: the run is at its second match
        second_match = current(me)["match"]["id"]
        again = start(me)
    assert again["id"] != first["id"] and (again["streak"], again["level"], again["state"]) == (0, "level-1", "active")
    old = LadderRun.objects.get(pk=first["id"])
    assert (old.state, old.ended_by, old.streak, old.score) == ("over", "abandoned", 1, 10_000 + MARGINS[0])
    assert LadderRun.objects.filter(player=me.player, state="active").count() == 1
    # The abandoned run's match is still an ordinary match: it may be played out, and changes no run.
    with seeded(SEEDS):
        play_match(me, second_match)
    assert LadderMatch.objects.get(match_id=second_match).result == "won"
    old.refresh_from_db()
    assert (old.state, old.streak, old.match_id) == ("over", 1, old.match_id)
    assert str(old.match_id) == second_match and current(me)["id"] == again["id"]
    past = me.get("/api/v1/ladder/runs/").json()
    assert [run["id"] for run in past["results"]] == [first["id"]]


def test_a_run_start_with_an_idempotency_key_starts_one_run():
    me = new_player()
    key = {"Idempotency-Key": "ladder-start-1"}
    assert start(me, key) == start(me, key)
    assert LadderRun.objects.filter(player=me.player).count() == 1


def test_no_run_yet_is_a_404_no_current_run():
    response = new_player().get("/api/v1/ladder/runs/current")
    assert response.status_code == 404 and response.json()["code"] == "no_current_run"
    validate("Problem", response.json())


def test_a_ladder_match_is_an_ordinary_match_of_one_human_against_a_bot_never_timed_out():
    me = new_player()
    run = start(me)
    match_id = run["match"]["id"]
    view = me.get(f"/api/v1/matches/{match_id}").json()
    assert view["status"] == "active" and view["legal_actions"], "the bot deals: the player leads (L1)"
    assert [s["kind"] for s in view["seats"]] == ["player", "bot"]
    listed = me.get("/api/v1/matches/").json()
    assert [m["id"] for m in listed["results"]] == [match_id]
    events = me.get(f"/api/v1/matches/{match_id}/events")
    assert events.status_code == 200 and "hand_started" in [e["type"] for e in events.json()]
    # M3: no turn clock and no presence.
    assert not Table.objects.filter(match_id=match_id).exists()
    assert not Presence.objects.filter(match_id=match_id).exists()


def test_a_lost_advance_is_made_by_the_next_read_of_the_current_run():
    me = new_player()
    with seeded(SEEDS):
        run = start(me)
        with override_settings(MATCH_LISTENERS=WITHOUT_THE_LADDER):
            play_match(me, run["match"]["id"])
        stuck = LadderRun.objects.get(pk=run["id"])
        assert stuck.streak == 0 and str(stuck.match_id) == run["match"]["id"]
        healed = current(me)
    assert (healed["streak"], healed["margin"], healed["match"]["number"]) == (1, MARGINS[0], 2)
    assert healed["match"]["status"] == "active"


def test_the_beat_sweep_advances_runs_whose_advance_was_lost_and_advancing_twice_changes_nothing():
    me = new_player()
    with seeded(SEEDS):
        run = start(me)
        with override_settings(MATCH_LISTENERS=WITHOUT_THE_LADDER):
            play_match(me, run["match"]["id"])
        with TestCase.captureOnCommitCallbacks(execute=True):
            assert tasks.sweep_runs() == 1
            assert tasks.sweep_runs() == 0
            services.run_advance(match_id=run["match"]["id"])
    advanced = LadderRun.objects.get(pk=run["id"])
    assert (advanced.streak, advanced.score) == (1, 10_000 + MARGINS[0])
    assert LadderMatch.objects.filter(run=advanced).count() == 2
    assert "sweep-ladder-runs" in settings.CELERY_BEAT_SCHEDULE


def test_a_cancelled_ladder_match_ends_its_run():
    me = new_player()
    run = start(me)
    match = Match.objects.get(pk=run["match"]["id"])
    with TestCase.captureOnCommitCallbacks(execute=True):
        match_cancel_record(match=match, data={"reason": "cancelled_by_creator"}, now=timezone.now())
    over = current(me)
    assert (over["state"], over["ended_by"], over["match"]["result"]) == ("over", "cancelled", "cancelled")


def test_a_registered_http_bot_runs_the_ladder_with_its_token():
    bot = register("poll").bot
    with seeded(SEEDS):
        run = start(bot)
        play_match(bot, run["match"]["id"])
        after = current(bot)
    assert (after["streak"], after["margin"], after["level"]) == (1, MARGINS[0], "level-2")
    board = bot.get("/api/v1/ladder/leaderboard").json()
    assert board["results"][0]["player"]["username"] == bot.username


def _best(username: str, score: int, minutes: int) -> LadderBest:
    player = new_player(username).player
    match = Match.objects.create(variant="dos", options={}, created_by=player, seating=[])
    run = LadderRun.objects.create(player=player, level="level-1", match=match, state="over", score=score)
    at = timezone.now() - timedelta(minutes=minutes)
    return LadderBest.objects.create(player=player, score=score, streak=score // 10_000, margin=score % 10_000,
                                     run=run, achieved_at=at)  # fmt: skip


def test_L3_the_leaderboard_ranks_best_scores_the_earliest_first_among_equals_page_by_page():
    me = new_player()
    low, late, early, top = (
        _best("low", 10_010, 1),
        _best("late", 20_050, 1),
        _best("early", 20_050, 9),
        _best("top", 30_001, 5),
    )
    board = me.get("/api/v1/ladder/leaderboard", {"page_size": 3}).json()
    validate("LadderLeaderboardPage", board)
    assert board["count"] == 4
    assert [(e["rank"], e["player"]["id"]) for e in board["results"]] == [
        (1, str(top.player_id)), (2, str(early.player_id)), (3, str(late.player_id)),
    ]  # fmt: skip
    second = me.get("/api/v1/ladder/leaderboard", {"page_size": 3, "page": 2}).json()
    assert [(e["rank"], e["score"]) for e in second["results"]] == [(4, 10_010)]
    assert me.get("/api/v1/ladder/leaderboard", {"page_size": 0}).status_code == 400
    assert me.get("/api/v1/ladder/leaderboard", {"page": 9}).status_code == 404
    assert selectors.best_of(player_id=low.player_id) == low


def test_L3_the_leaderboard_is_read_from_its_index():
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL enable_seqscan = off")  # a tiny table is scanned otherwise
        plan = selectors.leaderboard()[:20].explain()
    assert "ladder_best_rank" in plan


def test_L3_a_players_best_score_is_not_lowered_by_a_later_run():
    me = new_player()
    with seeded(SEEDS):
        run = start(me)
        play_match(me, run["match"]["id"])  # won: 10,012
    with seeded((0,)):  # a first deal the player loses
        again = start(me)
        play_match(me, again["match"]["id"])
    lost = current(me)
    assert (lost["id"], lost["state"], lost["ended_by"], lost["score"]) == (again["id"], "over", "lost", 0)
    best = LadderBest.objects.get(player=me.player)
    assert (best.score, str(best.run_id)) == (10_000 + MARGINS[0], run["id"])


def test_L2_a_tied_match_ends_the_run():
    me = new_player()
    with seeded(SEEDS), mock.patch.object(services.rules, "outcome", return_value=rules.Outcome("tied", 0)):
        run = start(me)
        play_match(me, run["match"]["id"])
    over = current(me)
    assert (over["state"], over["ended_by"], over["streak"], over["score"]) == ("over", "tied", 0, 0)
    assert over["match"]["result"] == "tied" and len(over["matches"]) == 1


@pytest.mark.django_db(transaction=True)
def test_two_starts_at_once_leave_one_run_active():
    if connection.vendor != "postgresql":
        tests_services.missing("row locks need PostgreSQL (DATABASE_URL); .ci/run sets it")
    player = new_player().player
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def start_one() -> None:
        try:
            barrier.wait(10)
            services.run_start(player=player)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=start_one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors
    runs = LadderRun.objects.filter(player=player)
    assert sorted(runs.values_list("state", "ended_by")) == [("active", ""), ("over", "abandoned")]


@pytest.mark.django_db(transaction=True)
def test_a_match_that_is_no_ladder_match_ends_with_one_read_and_no_transaction() -> None:
    """Every match that ends asks the ladder (games.ladder.news): most are no ladder match."""
    import uuid

    from tests.wire import wire

    if connection.vendor != "postgresql":
        pytest.skip("read on PostgreSQL's wire")
    with wire() as sent:
        assert services.run_advance(match_id=uuid.uuid4()) is None
    assert len(sent) == 1 and sent[0].startswith("SELECT"), sent
    # In plain SQL: the ORM's first() ordered it (the model's ordering), and spent more CPU building it
    # than the database answering it.
    assert "ORDER BY" not in sent[0] and "LIMIT" not in sent[0], sent


def test_the_ladder_entry_of_a_match_is_found_by_its_id_and_none_for_another_match() -> None:
    import uuid

    me = new_player()
    run = start(me)
    match_id = run["match"]["id"]
    entry = selectors.ladder_match_of(match_id=match_id)
    assert entry is not None and entry == LadderMatch.objects.get(match_id=match_id)
    assert (entry.number, str(entry.run_id), entry.result) == (1, run["id"], "")
    assert selectors.ladder_match_of(match_id=uuid.UUID(match_id)) == entry
    assert selectors.ladder_match_of(match_id=uuid.uuid4()) is None
