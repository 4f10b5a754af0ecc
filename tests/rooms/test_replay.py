"""Replays: at every seq of a finished match, the table equals the engine's after that many engine events."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.test import TestCase
from django.utils import timezone

from games import engine
from games.matches import services
from games.matches.models import Event, Match
from games.turns import presence
from tests.games.helpers import choose, human_table, new_player

pytestmark = pytest.mark.django_db


def play_to_the_end(api, match_id: str, seed: int = 1) -> dict:
    rng = random.Random(seed)
    url = f"/api/v1/matches/{match_id}"
    view = api.get(url).json()
    while view["status"] == "active":
        if not view["legal_actions"]:  # the answer to an action comes before the bots play (in process)
            view = api.get(url).json()
            assert view["legal_actions"] or view["status"] != "active"
            continue
        view = api.post(f"{url}/actions", choose(rng, view["legal_actions"])).json()
    return view


SERVICE_EVENTS = {
    "seat_reconnected": {"type": "seat_reconnected", "seat": 0, "data": {"away_seconds": 1.0}},
    "bot_fallback": {"type": "bot_fallback", "seat": 1,
                     "data": {"reason": "timeout", "detail": "The bot did not answer in time.", "level": "level-2"}},
}


@pytest.mark.parametrize("kind", SERVICE_EVENTS)
def test_replay_at_every_seq_equals_the_engine_state_after_that_many_events(kind):
    me = new_player()
    seats = [{"player": "me"}, {"bot": "level-1"}]
    created = me.post("/api/v1/matches/", {"variant": "dos", "options": {"games_to_win": 1, "hand_size": 6},
                                           "seed": 5, "seats": seats}).json()  # fmt: skip
    match_id = created["id"]
    url = f"/api/v1/matches/{match_id}"
    # A service event in the middle of the log (presence, a bot's fallback), which the engine does not count.
    match = Match.objects.get(pk=match_id)
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.event_append(match, SERVICE_EVENTS[kind], match.updated_at)
    assert me.get(f"{url}/replay", {"seq": 1}).json()["code"] == "match_not_over"
    final = play_to_the_end(me, match_id)
    assert final["status"] == "finished"
    rows = list(Event.objects.filter(match_id=match_id).order_by("seq"))
    log = [r.as_engine_event() for r in rows if r.type != kind]
    stranger = new_player("stranger")
    engine_seen = 0
    for row in rows:
        answer = stranger.get(f"{url}/replay", {"seq": row.seq})
        assert answer.status_code == 200, answer.content
        body = answer.json()
        if row.type != kind:
            engine_seen += 1
        assert body["engine_events"] == engine_seen and body["event"]["seq"] == row.seq
        assert body["table"] == engine.table_after("dos", match.options, log, engine_seen)
    assert body["table"]["status"] == "finished" and body["last_seq"] == len(rows)
    assert stranger.get(f"{url}/replay", {"seq": len(rows) + 1}).json()["code"] == "seq_out_of_range"
    assert stranger.get(f"{url}/replay").status_code == 400


def test_the_record_of_a_match_that_is_over_is_readable_by_anyone_and_an_active_one_by_its_players_only():
    me = new_player()
    options = {"games_to_win": 1, "hand_size": 6}
    seats = [{"player": "me"}, {"bot": "level-1"}]
    created = me.post("/api/v1/matches/", {"variant": "dos", "options": options, "seed": 7, "seats": seats}).json()
    url = f"/api/v1/matches/{created['id']}"
    stranger = new_player("stranger")
    assert stranger.get(f"{url}/record").status_code == 404, "an active match stays private"
    assert stranger.get(f"{url}/replay", {"seq": 1}).status_code == 404, "as the record"
    assert me.get(f"{url}/record").json()["code"] == "match_not_over"
    assert me.get(f"{url}/replay", {"seq": 1}).json()["code"] == "match_not_over"
    play_to_the_end(me, created["id"])
    record = stranger.get(f"{url}/record")
    assert record.status_code == 200 and record.json()["status"] == "finished"
    assert stranger.get(url).status_code == 404, "the record and replays are public, not the match's live view"


def test_a_match_cancelled_while_played_replays_as_cancelled_from_its_cancellation_on():
    table = human_table("dos", {})
    now = timezone.now()
    presence.presences_create(now=now)
    timings = presence.timings_of(table.match_id)
    gone = now + timedelta(seconds=timings.presence_timeout + 1)
    assert presence.seat_disconnect(match_id=table.match_id, seat=1, now=gone)
    seq = Match.objects.get(pk=table.match_id).seq
    later = gone + timedelta(seconds=timings.reconnect_grace + 1)
    assert presence.grace_expire(match_id=table.match_id, seat=1, seq=seq, now=later)
    stranger = new_player("stranger")
    url = f"/api/v1/matches/{table.match_id}/replay"
    before, last = stranger.get(url, {"seq": seq}).json(), stranger.get(url, {"seq": seq + 1}).json()
    assert last["event"]["type"] == "match_cancelled" and last["last_seq"] == seq + 1
    assert before["table"]["status"] == "active" and last["table"]["status"] == "cancelled"
