"""Spectators of public matches (RULES.md M5): what they see, what they may not do, presence, the cap
on watchers, and the TV page ``GET /matches/live``.

A spectator's every answer, at every step of a whole match of each variant, is checked with the
seats' leak checker (tests/games/helpers.py) for seat None: what the table shows everyone.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.core.cache import cache
from django.test import override_settings

from games.live import channels, watchers
from games.matches import kept
from games.matches.models import Match
from games.turns import presence
from games.turns.models import Presence
from tests.problems import problem

from .helpers import (
    SHORT_MATCHES,
    Api,
    Visibility,
    assert_events_no_leak,
    assert_no_leak,
    cards_in,
    choose,
    new_player,
    seats_of,
    short_id,
)
from .openapi import validate
from .test_play_http import MAX_STEPS

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_spectators_counted():
    """The counters live in the cache (process-local in the tests): every test starts from none."""
    cache.clear()
    yield
    cache.clear()


def parse_sse(text: str) -> list[dict[str, Any]]:
    events = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "id" in fields:
            events.append(json.loads(fields["data"]))
    return events


def public_vs_bots(variant: str = "dos", options: dict[str, Any] | None = None, seed: int = 11) -> tuple[Api, dict]:
    """A public match: its creator at seat 0, bots in the others."""
    options = options or {}
    me = new_player("host")
    seats: list[dict[str, Any]] = [{"player": "me"}] + [{"bot": "level-2"}] * (seats_of(variant, options) - 1)
    created = me.post("/api/v1/matches/", {"variant": variant, "options": options, "seed": seed,
                                           "seats": seats, "public": True})  # fmt: skip
    assert created.status_code == 201, created.content
    return me, created.json()


def friends_match(public: bool) -> tuple[dict, list[Api]]:
    """A match of two humans started from a room (presence is tracked: M2)."""
    host, friend = new_player("host"), new_player("friend")
    room = host.post("/api/v1/rooms/", {"variant": "dos", "public": public}).json()
    assert room["public"] is public
    friend.post("/api/v1/rooms/join", {"code": room["code"]})
    started = host.post(f"/api/v1/rooms/{room['id']}/start").json()
    return started, [host, friend]


# -- what a spectator sees ----------------------------------------------------------------------


@pytest.mark.parametrize("variant, options", SHORT_MATCHES, ids=[short_id(*m) for m in SHORT_MATCHES])
def test_M5_a_spectator_sees_no_hidden_card_at_any_step_of_a_whole_match(variant, options):
    """At every step of a public match played to its end, a spectator's view, events and long poll
    show only what the table shows everyone: no hand, no stock."""
    n = seats_of(variant, options)
    levels = ["level-2", "level-2"] if variant == "subastado_parejas" else ["level-1", "level-2"]
    seats: list[dict[str, Any]] = [{"bot": levels[s % 2]} for s in range(n)]
    seats[0] = {"player": "me"}
    me, spectator = new_player(), new_player("spectator")
    body = {"variant": variant, "options": options, "seed": 11, "seats": seats, "public": True}
    created = me.post("/api/v1/matches/", body)
    assert created.status_code == 201, created.content
    match = created.json()
    assert match["public"] is True
    url = f"/api/v1/matches/{match['id']}"
    rng = random.Random(5)
    seen = 0
    vis = Visibility(match["id"], n)
    for _ in range(MAX_STEPS):
        view = spectator.get(url).json()
        validate("Match", view)
        polled = spectator.get(url, {"after": max(view["seq"] - 1, 0), "wait": 5}).json()  # at once: it moved
        events = spectator.get(f"{url}/events", {"after": seen}).json()
        validate("Event", events, many=True)
        vis.refresh()
        for shown, what in ((view, "the view"), (polled, "the long poll")):
            assert shown["my_seat"] is None and shown["my_hand"] == [] and shown["legal_actions"] == []
            assert shown["invite_code"] is None
            assert_no_leak(vis, None, shown, shown["seq"], what)
        assert_events_no_leak(vis, None, events)
        seen = events[-1]["seq"] if events else seen
        if view["status"] == "finished":
            break
        mine = me.get(url).json()
        acted = me.post(f"{url}/actions", {**choose(rng, mine["legal_actions"]), "expected_seq": mine["seq"]})
        assert acted.status_code == 200, acted.content
    else:
        pytest.fail("the match did not end")


@pytest.mark.django_db(transaction=True)  # a stream's reads close the connection: no test transaction around
@pytest.mark.parametrize("variant, options", SHORT_MATCHES, ids=[short_id(*m) for m in SHORT_MATCHES])
def test_M5_a_spectator_streams_a_whole_match_and_sees_no_hidden_card(variant, options):
    """Bots alone play a public match to its end; a spectator's stream gives the whole log, each event
    as the table shows it to everyone."""
    n = seats_of(variant, options)
    creator, spectator = new_player("creator"), new_player("spectator")
    body = {"variant": variant, "options": options, "seed": 5, "public": True, "seats": [{"bot": "level-2"}] * n}
    match = creator.post("/api/v1/matches/", body).json()
    url = f"/api/v1/matches/{match['id']}"
    assert spectator.get(url).json()["status"] == "finished"
    response = spectator.client.get(f"{url}/stream", headers={"Accept": "text/event-stream"})
    assert response.status_code == 200
    streamed = parse_sse(b"".join(response.streaming_content).decode())
    seq = Match.objects.get(pk=match["id"]).seq
    assert [e["seq"] for e in streamed] == list(range(1, seq + 1)), "the whole log, once"
    validate("Event", streamed, many=True)
    assert_events_no_leak(Visibility(match["id"], n), None, streamed)
    assert watchers.counts([match["id"]]) == {match["id"]: 0}, "the stream's lease went back"


def test_M5_a_spectator_of_a_waiting_public_match_is_shown_no_invite_code():
    host, stranger = new_player("host"), new_player("stranger")
    body = {"variant": "dos", "seats": [{"player": "me"}, {"open": True}], "public": True}
    match = host.post("/api/v1/matches/", body).json()
    assert match["invite_code"]
    seen = stranger.get(f"/api/v1/matches/{match['id']}").json()
    assert seen["status"] == "waiting" and seen["invite_code"] is None and seen["my_seat"] is None
    assert host.get(f"/api/v1/matches/{match['id']}").json()["invite_code"] == match["invite_code"]


def test_M5_a_match_is_private_by_default_and_stays_404_to_strangers():
    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]})
    match = created.json()
    assert match["public"] is False and Match.objects.get(pk=match["id"]).public is False
    url = f"/api/v1/matches/{match['id']}"
    stranger = new_player("stranger")
    for response in (
        stranger.get(url),
        stranger.get(url, {"after": 0, "wait": 1}),
        stranger.get(f"{url}/events"),
        stranger.client.get(f"{url}/stream", headers={"Accept": "text/event-stream"}),
        stranger.post(f"{url}/actions", {"type": "pass"}),
        stranger.post(f"{url}/heartbeat"),
        stranger.post(f"{url}/cancel"),
        stranger.get(f"{url}/record"),
    ):
        problem(response, 404, "not_found")
    live = stranger.get("/api/v1/matches/live").json()
    assert live["count"] == 0


def test_M5_public_must_be_a_boolean():
    me = new_player()
    seats = [{"player": "me"}, {"bot": "level-1"}]
    for value in ("yes", 1, None):
        response = me.post("/api/v1/matches/", {"variant": "dos", "seats": seats, "public": value})
        assert response.status_code == 400, response.content
    assert not Match.objects.exists()


# -- what a spectator may not do -----------------------------------------------------------------


def test_M5_a_spectator_cannot_act_and_is_not_seated():
    me, match = public_vs_bots()
    url = f"/api/v1/matches/{match['id']}"
    spectator = new_player("spectator")
    view = spectator.get(url).json()
    assert view["my_seat"] is None
    assert all(s["player"] is None or s["player"]["id"] != str(spectator.player.pk) for s in view["seats"])
    legal = me.get(url).json()["legal_actions"]
    problem(spectator.post(f"{url}/actions", legal[0]), 403, "not_seated")
    problem(spectator.post(f"{url}/cancel"), 403, "permission_denied")
    problem(spectator.get(f"{url}/record"), 403, "match_not_over")
    problem(spectator.get(f"{url}/replay", {"seq": 1}), 403, "match_not_over")
    assert spectator.get("/api/v1/me/turns").json() == {"turns": []}
    listed = spectator.get("/api/v1/matches/").json()
    assert listed["count"] == 0, "a match watched is not among the spectator's"
    assert Match.objects.get(pk=match["id"]).seq == view["seq"], "nothing changed"


# -- presence ------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_M5_a_spectator_never_counts_for_presence(monkeypatch):
    started, (host, friend) = friends_match(public=True)
    match_id = started["match"]["id"]
    assert Match.objects.get(pk=match_id).public is True, "the room's setting"
    url = f"/api/v1/matches/{match_id}"
    before = {p.seat: (p.last_seen, p.player_id) for p in Presence.objects.filter(match_id=match_id)}
    assert len(before) == 2
    spectator = new_player("spectator")
    touched: list[object] = []
    touch = presence.touch
    monkeypatch.setattr(presence, "touch", lambda **kw: touched.append(kw["player_id"]) or touch(**kw))
    monkeypatch.setattr(channels._LocalSubscription, "wait", lambda self, timeout: False)  # no real wait
    seq = spectator.get(url).json()["seq"]
    spectator.get(url, {"after": seq, "wait": 3})
    spectator.get(f"{url}/events", {"after": seq, "wait": 3})
    beat = spectator.post(f"{url}/heartbeat")
    assert beat.status_code == 200
    validate("Heartbeat", beat.json())
    assert beat.json()["match"]["my_seat"] is None and beat.json()["match"]["my_hand"] == []
    assert_no_leak(Visibility(match_id, 2), None, beat.json(), beat.json()["match"]["seq"], "the heartbeat")
    response = spectator.client.get(f"{url}/stream", {"after": seq}, headers={"Accept": "text/event-stream"})
    next(iter(response.streaming_content)), next(iter(response.streaming_content))  # one pass of its loop
    response.close()
    assert spectator.player.pk not in touched, "no call of a spectator's touched presence"
    after = {p.seat: (p.last_seen, p.player_id) for p in Presence.objects.filter(match_id=match_id)}
    assert after == before and not Presence.objects.filter(player=spectator.player).exists()
    assert spectator.player.pk not in {p.player_id for p in presence.presence_of(match_id=match_id)}
    assert str(spectator.player.pk) not in presence.tracked_players(match_id)
    host.get(url)
    assert host.player.pk in touched, "a seated player's call still does"


def test_M5_tracked_players_are_the_seated_humans_only():
    started, (host, friend) = friends_match(public=True)
    assert presence.tracked_players(started["match"]["id"]) == {str(host.player.pk), str(friend.player.pk)}
    _, alone = public_vs_bots()
    assert presence.tracked_players(alone["id"]) == frozenset(), "one human against bots (M3)"


def test_M3_a_match_of_one_human_that_this_process_kept_is_known_untracked_without_a_query(
    django_assert_num_queries: Any,
) -> None:
    """The row a process saved or read (``games.matches.kept``) says a started match has one human: nobody is
    tracked, with no query; with two humans the process reads whom to track once, as before."""
    _, alone = public_vs_bots()
    kept.keep_read(Match.objects.get(pk=alone["id"]), kept.listened())
    with django_assert_num_queries(0):
        assert presence.tracked_players(alone["id"]) == frozenset()
        assert presence.tracked_players_known(alone["id"]) == frozenset()  # as the event loop asks
    started, (host, friend) = friends_match(public=True)
    match_id = started["match"]["id"]
    kept.keep_read(Match.objects.get(pk=match_id), kept.listened())
    assert presence.tracked_players_known(match_id) is None
    with django_assert_num_queries(1):
        assert presence.tracked_players(match_id) == {str(host.player.pk), str(friend.player.pk)}


# -- the cap on spectators ----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@override_settings(SPECTATORS_PER_MATCH=1)
def test_M5_spectators_beyond_the_cap_get_429_and_the_seats_never_do(monkeypatch):
    me, match = public_vs_bots()
    url = f"/api/v1/matches/{match['id']}"
    first, second = new_player("first"), new_player("second")
    stream = first.client.get(f"{url}/stream", headers={"Accept": "text/event-stream"})
    assert stream.status_code == 200
    assert watchers.counts([match["id"]]) == {match["id"]: 1}, "an open stream watches"
    response = second.client.get(f"{url}/stream", headers={"Accept": "text/event-stream"})
    refused = problem(response, 429, "too_many_spectators")
    assert refused["retry_after"] == watchers.RETRY_SECONDS and response["Retry-After"] == "10"
    validate("Problem", refused)
    seq = second.get(url).json()["seq"]
    problem(second.get(url, {"after": seq, "wait": 5}), 429, "too_many_spectators")
    problem(second.get(f"{url}/events", {"after": seq, "wait": 5}), 429, "too_many_spectators")
    assert second.get(url).status_code == 200, "a read that does not wait is not watching"
    monkeypatch.setattr(channels._LocalSubscription, "wait", lambda self, timeout: False)  # no real wait
    assert me.get(url, {"after": seq, "wait": 5}).status_code == 200, "a seat is never a spectator"
    stream.close()
    assert watchers.counts([match["id"]]) == {match["id"]: 0}, "a closed stream gives its lease back"
    assert second.get(url, {"after": seq, "wait": 5}).status_code == 200


def test_M5_a_long_poll_watches_while_it_waits(monkeypatch):
    _, match = public_vs_bots()
    url = f"/api/v1/matches/{match['id']}"
    during: list[dict[str, int]] = []
    monkeypatch.setattr(
        channels._LocalSubscription, "wait", lambda self, timeout: during.append(watchers.counts([match["id"]]))
    )
    spectator = new_player("spectator")
    seq = spectator.get(url).json()["seq"]
    assert spectator.get(f"{url}/events", {"after": seq, "wait": 2}).json() == []
    assert during == [{match["id"]: 1}]
    assert watchers.counts([match["id"]]) == {match["id"]: 0}


def test_M5_a_lost_watcher_stops_counting_within_two_epochs(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(watchers.time, "time", lambda: now[0])
    lost, renewed = watchers.Watch("m"), watchers.Watch("m")
    lost.enter()
    renewed.enter()
    assert watchers.counts(["m"]) == {"m": 2}
    now[0] += watchers.EPOCH_SECONDS
    renewed.renew()
    assert watchers.counts(["m"]) == {"m": 2}, "the one before still counts for an epoch"
    now[0] += watchers.EPOCH_SECONDS
    renewed.renew()
    assert watchers.counts(["m"]) == {"m": 1}, "the lost one no longer counts; the renewed one does"
    renewed.leave()
    renewed.leave()
    assert watchers.counts(["m"]) == {"m": 0}, "one leave counts once"


# -- the TV page ---------------------------------------------------------------------------------


def test_M5_live_lists_public_matches_in_play_most_watched_first_and_no_card():
    _, quiet = public_vs_bots(seed=1)
    _, busy = public_vs_bots(seed=2)
    _, some = public_vs_bots(seed=3)
    me = new_player()
    me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]})  # private
    me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"bot": "level-1"}, {"bot": "level-2"}],
                                 "public": True})  # fmt: skip  # bots alone: over at once
    for match_id, watching in ((busy["id"], 3), (some["id"], 1)):
        for _ in range(watching):
            watchers.Watch(match_id).enter()
    viewer = new_player("viewer")
    page = viewer.get("/api/v1/matches/live").json()
    validate("LiveMatchPage", page)
    assert [m["id"] for m in page["results"]] == [busy["id"], some["id"], quiet["id"]]
    assert [m["spectators"] for m in page["results"]] == [3, 1, 0]
    assert page["count"] == 3 and all(m["status"] == "active" for m in page["results"])
    assert cards_in(page) == set(), "no card on the TV page"
    second = viewer.get("/api/v1/matches/live", {"page_size": 2, "page": 2}).json()
    assert [m["id"] for m in second["results"]] == [quiet["id"]]
    problem(viewer.get("/api/v1/matches/live", {"page": 9}), 404, "not_found")
    problem(viewer.get("/api/v1/matches/live", {"page_size": 0}), 400, "invalid")
    assert Api().get("/api/v1/matches/live").status_code == 401


def test_M5_a_room_may_choose_public_matches():
    host = new_player("host")
    room = host.post("/api/v1/rooms/", {"variant": "dos"}).json()
    assert room["public"] is False
    changed = host.client.patch(f"/api/v1/rooms/{room['id']}", {"public": True}, format="json")
    assert changed.status_code == 200 and changed.json()["public"] is True
    validate("Room", changed.json())
    started = host.post(f"/api/v1/rooms/{room['id']}/start").json()
    assert Match.objects.get(pk=started["match"]["id"]).public is True
    bad = host.client.patch(f"/api/v1/rooms/{room['id']}", {"public": "yes"}, format="json")
    assert bad.status_code in (400, 409)
