"""The ``your_turn`` message is written in the move's own transaction (settings.MATCH_RECORDERS)."""

from __future__ import annotations

from unittest import mock

import pytest

from games.live import channels
from games.lobby.models import Notice, QueueEntry
from games.matches import news
from tests.games.helpers import new_player

pytestmark = pytest.mark.django_db

AGAINST_A_BOT = {"variant": "dos", "options": {"games_to_win": 1}, "seats": [{"player": "me"}, {"bot": "level-1"}]}


def my_turn_again(api, match_id: str) -> dict:
    """The caller's first legal action played; the view once the bot has answered and it is their turn."""
    view = api.get(f"/api/v1/matches/{match_id}").json()
    answer = api.post(f"/api/v1/matches/{match_id}/actions", view["legal_actions"][0])
    assert answer.status_code == 200, answer.json()
    return api.get(f"/api/v1/matches/{match_id}").json()


def test_the_message_commits_with_the_move_even_if_no_listener_is_ever_told():
    """A process that stops between the move's commit and its listeners (which run after the answer)
    used to lose the message: it was written by a listener, in a transaction of its own."""
    ana = new_player("ana")
    for _ in range(5):  # until an action whose bots' answer comes in its transaction (nearly every one)
        match = ana.post("/api/v1/matches/", AGAINST_A_BOT).json()
        if not match["legal_actions"]:  # the bot leads: its answer has come before any listener
            match = ana.get(f"/api/v1/matches/{match['id']}").json()
        with mock.patch.object(news, "tell", lambda news: None):  # the listeners are never told
            after = my_turn_again(ana, match["id"])
        if after["legal_actions"]:
            break
    else:
        raise AssertionError(f"the bot never answered in the action's transaction: {after}")
    mine = Notice.objects.filter(player_id=ana.player.pk, kind="your_turn", match_id=match["id"])
    assert {"seq": after["seq"]} in [n.data for n in mine]


def test_a_move_wakes_the_next_players_channel_once():
    """The move's news wakes the player's channel; the message that goes with it publishes nothing more."""
    ana = new_player("ana")
    match = ana.post("/api/v1/matches/", AGAINST_A_BOT).json()
    if not match["legal_actions"]:
        match = ana.get(f"/api/v1/matches/{match['id']}").json()
    mine = channels.player_channel(ana.player.pk)
    published: list[str] = []
    real = channels.publish
    with mock.patch.object(channels, "publish", lambda *names, **kw: published.extend(names) or real(*names, **kw)):
        my_turn_again(ana, match["id"])
    assert Notice.objects.filter(player_id=ana.player.pk, kind="your_turn", match_id=match["id"]).exists()
    assert published.count(mine) == 1, published


def kinds(api, match_id: str) -> list[str]:
    return [n["kind"] for n in api.get("/api/v1/me/notices").json()["notices"] if n["match_id"] == match_id]


def test_the_host_hears_the_seat_taken_before_the_turn_at_the_table_it_starts():
    """The sit that fills an open table starts its match in the same transaction: the host's first
    ``your_turn`` is written there too, and must not come before the ``seat_taken`` that explains it."""
    host, guest = new_player("host"), new_player("guest")
    heard = []
    for _ in range(20):  # who acts first is drawn: until the host does, at one table at least
        table = {"variant": "dos", "options": {"games_to_win": 1}, "seats": [{"player": "me"}, {"open": True}]}
        match_id = host.post("/api/v1/tables/", table).json()["id"]
        assert guest.post(f"/api/v1/tables/{match_id}/seat", {}).status_code == 200
        heard.append(kinds(host, match_id))
        if "your_turn" in heard[-1]:
            break
    assert ["seat_taken", "your_turn"] in heard, heard
    assert all(k in (["seat_taken"], ["seat_taken", "your_turn"]) for k in heard), heard


def test_the_queue_says_match_ready_before_your_turn():
    ana, bea = new_player("ana"), new_player("bea")
    for api in (ana, bea):
        assert api.post("/api/v1/queue/", {"variant": "dos", "options": {"games_to_win": 1}}).status_code == 201
    match_id = str(QueueEntry.objects.get(player_id=ana.player.pk).match_id)
    heard = [kinds(ana, match_id), kinds(bea, match_id)]  # one of them leads
    assert sorted(heard) == [["match_ready"], ["match_ready", "your_turn"]], heard
