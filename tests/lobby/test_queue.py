"""The matchmaking queue over HTTP: enter, stand, leave, be seated (and told), bots after the wait."""

from __future__ import annotations

from collections import Counter
from unittest import mock

import pytest
from django.test import override_settings
from django.utils import timezone

from games.lobby import services
from games.lobby.models import Notice, QueueEntry
from games.matches.errors import Forbidden
from games.matches.models import Match, Seat
from players.services import bot_register
from tests.games.helpers import CARD, Api, new_player

pytestmark = pytest.mark.django_db

DOS = {"variant": "dos", "options": {"games_to_win": 1}}


def notices(api, after=0):
    response = api.get("/api/v1/me/notices", {"after": after})
    assert response.status_code == 200
    return response.json()["notices"]


def test_two_players_queued_for_dos_are_seated_together_and_told():
    ana, bea = new_player("ana"), new_player("bea")
    first = ana.post("/api/v1/queue/", DOS)
    assert first.status_code == 201, first.json()
    assert first.json()["match_id"] is None and first.json()["rating_min"] < 1500 < first.json()["rating_max"]
    assert bea.post("/api/v1/queue/", DOS).status_code == 201
    match_id = ana.get("/api/v1/queue/").json()["match_id"]
    assert match_id and bea.get("/api/v1/queue/").json()["match_id"] == match_id
    match = Match.objects.get(pk=match_id)
    assert match.status == "active"
    assert {s.player_id for s in Seat.objects.filter(match=match)} == {ana.player.pk, bea.player.pk}
    ready = [n for n in notices(ana) if n["kind"] == "match_ready"]
    assert [n["match_id"] for n in ready] == [match_id]
    seats = {ready[0]["data"]["seat"], next(n for n in notices(bea) if n["kind"] == "match_ready")["data"]["seat"]}
    assert seats == {0, 1}
    view = ana.get(f"/api/v1/matches/{match_id}").json()
    assert view["my_seat"] == ready[0]["data"]["seat"]


def test_the_friendly_pool_seats_its_players_in_unrated_matches_apart_from_the_rated_pool():
    ana, bea, cid, dee = (new_player(name) for name in ("ana", "bea", "cid", "dee"))
    assert ana.post("/api/v1/queue/", {**DOS, "rated": False}).status_code == 201
    assert bea.post("/api/v1/queue/", DOS).status_code == 201  # another pool: not seated with ana
    assert ana.get("/api/v1/queue/").json()["match_id"] is None
    assert cid.post("/api/v1/queue/", {**DOS, "rated": False}).status_code == 201
    assert dee.post("/api/v1/queue/", DOS).status_code == 201
    friendly, rated = ana.get("/api/v1/queue/").json()["match_id"], bea.get("/api/v1/queue/").json()["match_id"]
    assert friendly == cid.get("/api/v1/queue/").json()["match_id"]
    assert rated == dee.get("/api/v1/queue/").json()["match_id"]
    assert ana.get(f"/api/v1/matches/{friendly}").json()["rated"] is False
    assert bea.get(f"/api/v1/matches/{rated}").json()["rated"] is True


def test_one_queue_at_a_time_and_leaving():
    ana = new_player("ana")
    assert ana.post("/api/v1/queue/", DOS).status_code == 201
    again = ana.post("/api/v1/queue/", {"variant": "clasico"})
    assert again.status_code == 409 and again.json()["code"] == "already_queued"
    assert QueueEntry.objects.filter(player=ana.player).count() == 1
    assert ana.client.delete("/api/v1/queue/").status_code == 204
    gone = ana.client.delete("/api/v1/queue/")
    assert gone.status_code == 404 and gone.json()["code"] == "not_queued"
    assert ana.get("/api/v1/queue/").status_code == 404
    bad = ana.post("/api/v1/queue/", {"variant": "nope"})
    assert bad.status_code in (400, 422) and not QueueEntry.objects.exists()


def test_a_player_who_left_is_not_seated():
    ana, bea = new_player("ana"), new_player("bea")
    ana.post("/api/v1/queue/", DOS)
    ana.client.delete("/api/v1/queue/")
    bea.post("/api/v1/queue/", DOS)
    assert bea.get("/api/v1/queue/").json()["match_id"] is None
    assert not Match.objects.exists()


@override_settings(QUEUE_MAX_WAIT_SECONDS=0)
def test_bots_of_about_the_players_strength_fill_the_seats_after_the_wait():
    ana = new_player("ana")
    ana.post("/api/v1/queue/", {"variant": "clasico", "options": {"games_to_win": 1}})
    services.queue_sweep()
    match_id = ana.get("/api/v1/queue/").json()["match_id"]
    assert match_id
    bots = Counter(Seat.objects.filter(match_id=match_id).exclude(bot="").values_list("bot", flat=True))
    assert bots == {"level-2": 3}  # a newcomer's 1500 is level-2's anchor


def test_bots_wait_for_the_maximum_wait():
    ana = new_player("ana")
    ana.post("/api/v1/queue/", {"variant": "clasico"})
    services.queue_sweep()
    assert ana.get("/api/v1/queue/").json()["match_id"] is None


def test_a_silent_player_leaves_the_queue():
    ana = new_player("ana")
    ana.post("/api/v1/queue/", DOS)
    with override_settings(QUEUE_GONE_SECONDS=0):
        services.queue_sweep(now=timezone.now() + timezone.timedelta(seconds=1))
    assert not QueueEntry.objects.exists()
    assert [n["data"] for n in notices(ana) if n["kind"] == "queue_left"] == [{"reason": "gone"}]


def test_a_registered_bot_queues_unless_humans_only():
    owner, ana, bea = new_player("owner"), new_player("ana"), new_player("bea")
    _, token = bot_register(owner=owner.player, name="robo", delivery="poll")
    robo = Api(token, "robo")
    assert robo.post("/api/v1/queue/", DOS).status_code == 201
    ana.post("/api/v1/queue/", {**DOS, "humans_only": True})
    assert ana.get("/api/v1/queue/").json()["match_id"] is None  # not with the bot
    bea.post("/api/v1/queue/", DOS)
    match_id = bea.get("/api/v1/queue/").json()["match_id"]
    assert match_id and robo.get("/api/v1/queue/").json()["match_id"] == match_id


def test_a_table_that_cannot_start_goes_back_to_the_queue_for_the_others():
    ana, bea, cid = new_player("ana"), new_player("bea"), new_player("cid")
    ana.post("/api/v1/queue/", DOS)
    with mock.patch("games.lobby.services.match_join", side_effect=Forbidden("gone", code="unknown_bot")):
        bea.post("/api/v1/queue/", DOS)
    assert not Match.objects.filter(status="active").exists()
    waiting = list(QueueEntry.objects.filter(match__isnull=True).values_list("player_id", flat=True))
    assert len(waiting) == 1  # the one who could not sit left; the other waits on
    gone = ana if waiting[0] == bea.player.pk else bea
    assert [n["data"] for n in notices(gone) if n["kind"] == "queue_left"] == [{"reason": "cannot_sit"}]
    cid.post("/api/v1/queue/", DOS)
    assert cid.get("/api/v1/queue/").json()["match_id"]


def test_seated_once_when_the_pairing_runs_again():
    players = [new_player("p") for _ in range(12)]
    for api in players:
        QueueEntry.objects.create(
            player=api.player, variant="dos", options={"games_to_win": 1, "hand_size": 8, "declarations": "auto"},
            pool="dos-test", rating=1500.0,
        )  # fmt: skip
    first = services.queue_pair(pool="dos-test")
    again = services.queue_pair(pool="dos-test")
    assert len(first) == 6 and again == []
    seats = Counter(Seat.objects.filter(player__isnull=False).values_list("player_id", flat=True))
    assert set(seats.values()) == {1} and len(seats) == 12


def test_no_message_shows_a_card():
    ana, bea = new_player("ana"), new_player("bea")
    ana.post("/api/v1/queue/", DOS)
    bea.post("/api/v1/queue/", DOS)
    match_id = ana.get("/api/v1/queue/").json()["match_id"]
    for _ in range(6):  # a few moves: your_turn messages
        for api in (ana, bea):
            view = api.get(f"/api/v1/matches/{match_id}").json()
            if view["legal_actions"]:
                api.post(f"/api/v1/matches/{match_id}/actions", view["legal_actions"][0])
    bodies = notices(ana) + notices(bea)
    assert {"match_ready", "your_turn"} <= {n["kind"] for n in bodies}
    assert all(n["match_id"] == match_id for n in bodies)
    assert not CARD.search(str(bodies)), bodies
    assert Notice.objects.filter(kind="your_turn").exists()
