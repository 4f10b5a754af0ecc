"""A match's WebSocket (games/live/sockets.py, docs/clients.md "Transports"): authentication, resume,
the same events and redaction as ``GET …/events``, actions with the answers of ``POST …/actions``,
presence, the caps, pings and the lifetime.

Each test is sync (pytest-django's database) and runs its socket conversation in an event loop with
asgiref's ``async_to_sync``; the consumer's database calls run back on the test's thread."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone

from games.live import slots, sockets, watchers
from games.turns import presence
from games.turns.models import Presence
from players.models import Player
from tests import services
from tute_api.asgi import application

from .helpers import Api, Visibility, assert_events_no_leak, assert_no_leak, human_table, new_player, seats_of
from .openapi import validate
from .test_spectators import friends_match

pytestmark = pytest.mark.django_db(transaction=True)  # the consumer reads and commits as a server does


@pytest.fixture(autouse=True)
def no_leases_counted():
    cache.clear()  # the caps' counters live in the cache
    yield
    cache.clear()


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    async_to_sync(scenario)()


async def open_socket(match_id: str, token: str | None = None, query: str = "") -> WebsocketCommunicator:
    headers = [(b"authorization", f"Bearer {token}".encode())] if token is not None else []
    socket = WebsocketCommunicator(application, f"/api/v1/matches/{match_id}/ws{query}", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def frames_until_close(socket: WebsocketCommunicator, timeout: float = 5) -> tuple[list[Any], int, str]:
    """Every frame until the server closes: (the JSON frames, the close code, its reason)."""
    frames: list[Any] = []
    while True:
        message = await socket.receive_output(timeout)
        if message["type"] == "websocket.close":
            return frames, message.get("code", 1000), message.get("reason", "")
        frames.append(json.loads(message["text"]))


async def ready(socket: WebsocketCommunicator) -> dict[str, Any]:
    frame: dict[str, Any] = await socket.receive_json_from(5)
    assert frame["type"] == "ready", frame
    return frame


async def events(socket: WebsocketCommunicator, until_seq: int) -> list[dict[str, Any]]:
    """The events the socket sends, up to and with ``until_seq`` (pings skipped)."""
    got: list[dict[str, Any]] = []
    while not got or got[-1]["seq"] < until_seq:
        frame = await socket.receive_json_from(5)
        if frame["type"] == "event":
            got.append(frame["event"])
    return got


async def reply(socket: WebsocketCommunicator) -> dict[str, Any]:
    """The next frame that is not news pushed to the socket (an event, the view at the caller's turn)."""
    frame: dict[str, Any] = await socket.receive_json_from(5)
    while frame["type"] in ("event", "turn"):
        frame = await socket.receive_json_from(5)
    return frame


def http_events(api: Api, match_id: str, after: int = 0) -> list[dict[str, Any]]:
    response = api.get(f"/api/v1/matches/{match_id}/events", {"after": after})
    assert response.status_code == 200
    body: list[dict[str, Any]] = response.json()
    return body


def two_humans() -> tuple[str, list[Api]]:
    table = human_table("dos", {"games_to_win": 1})
    return table.match_id, table.seats


# -- authentication -------------------------------------------------------------------------------


def test_the_header_or_a_first_auth_frame_authenticates_and_nothing_else_does(monkeypatch):
    match_id, (host, guest) = two_humans()
    monkeypatch.setattr(sockets, "AUTH_SECONDS", 0.3)

    async def scenario() -> None:
        by_header = await open_socket(match_id, host.token)
        assert (await ready(by_header))["seat"] == 0
        await by_header.disconnect()

        by_frame = await open_socket(match_id)
        await by_frame.send_json_to({"type": "auth", "token": guest.token})
        hello = await ready(by_frame)
        assert (hello["seat"], hello["spectator"], hello["match_id"]) == (1, False, match_id)
        await by_frame.disconnect()

        bad = await open_socket(match_id, "not-a-token")
        frames, code, reason = await frames_until_close(bad)
        assert (code, reason) == (4401, "authentication_failed")
        assert frames[0]["problem"]["code"] == "authentication_failed" and frames[0]["status"] == 401

        too_long = await open_socket(match_id, host.token + "x" * 200)
        _, code, reason = await frames_until_close(too_long)
        assert (code, reason) == (4401, "authentication_failed"), "a token longer than any the HTTP API reads"

        silent = await open_socket(match_id)
        frames, code, reason = await frames_until_close(silent)
        assert (code, reason) == (4401, "not_authenticated"), "no auth frame within AUTH_SECONDS"

        wrong_first = await open_socket(match_id)
        await wrong_first.send_json_to({"type": "action", "action": {"type": "pass"}})
        _, code, _ = await frames_until_close(wrong_first)
        assert code == 4401, "an action before authenticating is refused"

    run(scenario)


def test_a_match_the_caller_may_not_see_closes_with_4404():
    match_id, _ = two_humans()
    stranger = new_player("stranger")

    async def scenario() -> None:
        socket = await open_socket(match_id, stranger.token)
        frames, code, reason = await frames_until_close(socket)
        assert (code, reason) == (4404, "not_found")
        assert frames == [{"type": "error", "status": 404, "problem": frames[0]["problem"]}]
        assert frames[0]["problem"]["code"] == "not_found"

    run(scenario)


def test_a_malformed_after_closes_with_4400():
    match_id, (host, _) = two_humans()

    async def scenario() -> None:
        socket = await open_socket(match_id, host.token, "?after=-1")
        _, code, reason = await frames_until_close(socket)
        assert (code, reason) == (4400, "invalid")

    run(scenario)


# -- events, resume and redaction --------------------------------------------------------------------


def test_each_seat_gets_the_events_of_GET_events_redacted_for_it_and_resumes_after_a_seq():
    match_id, seats = two_humans()
    view = seats[0].get(f"/api/v1/matches/{match_id}").json()
    mover = seats[view["hand"]["turn"]]
    mine = mover.get(f"/api/v1/matches/{match_id}").json()
    assert mover.post(f"/api/v1/matches/{match_id}/actions", mine["legal_actions"][0]).status_code == 200
    vis = Visibility(match_id, 2).refresh()
    assert vis.seq >= 2

    async def scenario() -> None:
        for seat, api in enumerate(seats):
            expected = await sync_to_async(http_events)(api, match_id)
            socket = await open_socket(match_id, api.token)
            hello = await ready(socket)
            assert hello["seq"] == expected[-1]["seq"]
            got = await events(socket, expected[-1]["seq"])
            assert got == expected, "the same bodies as GET /events, redacted for the seat"
            validate("Event", got, many=True)
            assert_events_no_leak(vis, seat, got)
            await socket.disconnect()
        resumed = await open_socket(match_id, seats[0].token, "?after=1")
        await ready(resumed)
        first = await resumed.receive_json_from(5)
        assert first["event"]["seq"] == 2, "resumed after seq 1"
        await resumed.disconnect()

    run(scenario)


def test_a_spectator_gets_what_the_table_shows_everyone_and_a_finished_match_closes_with_1000():
    """Bots alone play a public match to its end: a spectator's socket and a finished match's socket."""
    creator, spectator = new_player("creator"), new_player("spectator")
    body = {"variant": "dos", "options": {"games_to_win": 1}, "seed": 5, "public": True,
            "seats": [{"bot": "level-2"}] * 2}  # fmt: skip
    match = creator.post("/api/v1/matches/", body).json()
    match_id = match["id"]
    expected = http_events(spectator, match_id)
    assert spectator.get(f"/api/v1/matches/{match_id}").json()["status"] == "finished"

    async def scenario() -> None:
        socket = await open_socket(match_id, spectator.token)
        frames, code, reason = await frames_until_close(socket)
        assert (code, reason) == (1000, "match_over")
        assert frames[0]["type"] == "ready" and frames[0]["spectator"] is True and frames[0]["seat"] is None
        got = [f["event"] for f in frames[1:]]
        assert got == expected and [e["seq"] for e in got] == list(range(1, len(got) + 1))
        assert_events_no_leak(await sync_to_async(Visibility)(match_id, 2), None, got)
        counts = await sync_to_async(watchers.counts)([match_id])
        assert counts == {match_id: 0}, "the spectator's lease went back"

        done = await open_socket(match_id, spectator.token, f"?after={got[-1]['seq']}")
        frames, code, _ = await frames_until_close(done)
        assert code == 1000 and [f["type"] for f in frames] == ["ready"], "nothing more to send"

    run(scenario)


def test_a_player_of_a_finished_match_gets_its_events_redacted_for_their_seat():
    me = new_player()
    body = {"variant": "dos", "options": {"games_to_win": 1}, "seed": 3,
            "seats": [{"player": "me"}, {"bot": "level-1"}]}  # fmt: skip
    match_id = me.post("/api/v1/matches/", body).json()["id"]
    url = f"/api/v1/matches/{match_id}"
    for _ in range(200):  # play to the end
        view = me.get(url).json()
        if view["status"] == "finished":
            break
        me.post(f"{url}/actions", {**view["legal_actions"][0], "expected_seq": view["seq"]})
    assert me.get(url).json()["status"] == "finished"
    expected = http_events(me, match_id)

    async def scenario() -> None:
        socket = await open_socket(match_id, me.token)
        frames, code, _ = await frames_until_close(socket)
        assert code == 1000
        got = [f["event"] for f in frames if f["type"] == "event"]
        assert got == expected
        assert_events_no_leak(await sync_to_async(Visibility)(match_id, 2), 0, got)

    run(scenario)


# -- actions --------------------------------------------------------------------------------------


def test_actions_have_the_meaning_codes_and_idempotency_of_POST_actions():
    match_id, seats = two_humans()
    url = f"/api/v1/matches/{match_id}"

    async def scenario() -> None:
        view = await sync_to_async(seats[0].get)(url)
        view = view.json()
        turn = view["hand"]["turn"]
        mover, other = seats[turn], seats[1 - turn]
        mover_view = (await sync_to_async(mover.get)(url)).json()
        me = await open_socket(match_id, mover.token)
        them = await open_socket(match_id, other.token)
        await ready(me)
        await ready(them)
        await events(me, mover_view["seq"])
        await events(them, mover_view["seq"])
        prompt = await me.receive_json_from(5)
        assert prompt == {"type": "turn", "match": mover_view}, "the mover's turn: its view, with no GET"

        # Not the other's turn: the same problem as over HTTP.
        action = {**mover_view["legal_actions"][0], "expected_seq": mover_view["seq"]}
        await them.send_json_to({"type": "action", "action": action, "ref": "t1"})
        refused = await them.receive_json_from(5)
        assert (refused["type"], refused["ref"], refused["status"]) == ("error", "t1", 409)
        http = await sync_to_async(other.post)(f"{url}/actions", action)
        assert refused["problem"] == http.json() and refused["problem"]["code"] == "not_your_turn"

        # A stale seq, and a malformed action.
        await me.send_json_to({"type": "action", "action": {**action, "expected_seq": 0}})
        stale = await me.receive_json_from(5)
        assert (stale["status"], stale["problem"]["code"], stale["ref"]) == (409, "stale_seq", None)
        await me.send_json_to({"type": "action", "action": {"type": "fly"}, "ref": 2**70})
        bad = await me.receive_json_from(5)
        assert (bad["status"], bad["problem"]["code"], bad["ref"]) == (400, "invalid", 2**70), "any ref echoed"

        # The legal action, with a key: the caller's view; the other seat hears the event.
        frame = {"type": "action", "action": action, "idempotency_key": "k-1", "ref": 7}
        await me.send_json_to(frame)
        result = await reply(me)
        assert (result["type"], result["ref"], result["status"]) == ("result", 7, 200)
        validate("Match", result["match"])
        assert result["match"]["seq"] > mover_view["seq"] and result["match"]["my_seat"] == turn
        heard = (await events(them, mover_view["seq"] + 1))[0]
        assert heard["type"] in ("card_played", "bid", "pass") and heard["seat"] == turn

        # The same key again: the first answer, nothing played twice; over HTTP too.
        seq_after = (await sync_to_async(mover.get)(url)).json()["seq"]
        await me.send_json_to(frame)
        again = await reply(me)
        assert again == result
        replayed = await sync_to_async(mover.post)(f"{url}/actions", action, {"Idempotency-Key": "k-1"})
        assert replayed.status_code == 200 and replayed["Idempotent-Replayed"] == "true"
        assert replayed.json() == result["match"]
        await me.send_json_to({**frame, "action": {"type": "pass"}})
        reused = await reply(me)
        assert (reused["status"], reused["problem"]["code"]) == (422, "idempotency_key_reused")
        assert (await sync_to_async(mover.get)(url)).json()["seq"] == seq_after, "the repeats changed nothing"

        await me.send_json_to({"type": "ping"})
        pong = await reply(me)
        assert pong == {"type": "pong"}
        await me.disconnect()
        await them.disconnect()

    run(scenario)


@pytest.mark.parametrize("slow_answer", [False, True])
def test_a_match_against_a_bot_is_played_to_its_end_over_the_socket_alone(monkeypatch, slow_answer):
    """The socket shows the seat its view each time the events leave the match at its turn (after the
    bots' turns, and on connecting): enough to play with no HTTP read. Once a seq, at the seq of the last
    event sent, equal to ``GET /matches/{id}`` then, and no card the seat could not see. ``slow_answer``:
    the action's answer is handed back well after its news went out; the answer still comes first, and a
    turn it shows (the player won the trick) is not shown again."""
    if slow_answer:
        acted = sockets.act

        def act_then_pause(**kwargs: Any) -> Any:
            answer = acted(**kwargs)
            time.sleep(0.1)  # the news of the action, out at its commit, is read meanwhile
            return answer

        monkeypatch.setattr(sockets, "act", act_then_pause)
    me = new_player()
    body = {"variant": "dos", "options": {"games_to_win": 1}, "seed": 11,
            "seats": [{"player": "me"}, {"bot": "level-1"}]}  # fmt: skip
    match = me.post("/api/v1/matches/", body).json()
    match_id, url = match["id"], f"/api/v1/matches/{match['id']}"

    async def scenario() -> None:
        socket = await open_socket(match_id, me.token)
        await ready(socket)
        last_event, shown, answered, sent = 0, [], [], 0
        pending = None  # the seq an action awaiting its answer was sent at
        while True:
            message = await socket.receive_output(5)
            if message["type"] == "websocket.close":
                assert message["code"] == 1000
                break
            frame = json.loads(message["text"])
            if frame["type"] == "event":
                assert pending is None or frame["event"]["seq"] <= pending, "an action's answer before its events"
                last_event = frame["event"]["seq"]
                continue
            assert frame["type"] in ("turn", "result"), frame
            view = frame["match"]
            if frame["type"] == "turn":
                assert view["seq"] == last_event and view["legal_actions"], "at the last event sent, the seat's turn"
                assert view["seq"] not in shown, "once a seq"
                assert view["seq"] not in answered, "not a turn that the action's answer showed"
                shown.append(view["seq"])
                if len(shown) == 1:
                    assert view == (await sync_to_async(me.get)(url)).json(), "the view GET shows"
                validate("Match", view)
                vis = await sync_to_async(Visibility)(match_id, 2)
                assert_no_leak(vis, 0, view, view["seq"], "the turn frame")
            if frame["type"] == "result":
                pending = None
            if frame["type"] == "result" and view["legal_actions"]:
                answered.append(view["seq"])  # the action won a trick: still the seat's turn
            if view["legal_actions"]:
                action = {**view["legal_actions"][0], "expected_seq": view["seq"]}
                await socket.send_json_to({"type": "action", "action": action, "ref": sent})
                sent, pending = sent + 1, view["seq"]
        assert (await sync_to_async(me.get)(url)).json()["status"] == "finished"
        assert sent == len(shown) + len(answered) and len(shown) >= 5 and answered, (sent, shown, answered)

    run(scenario)


def test_a_spectator_may_not_act_over_the_socket():
    creator, spectator = new_player("creator"), new_player("spectator")
    body = {"variant": "dos", "options": {"games_to_win": 1}, "public": True,
            "seats": [{"player": "me"}, {"bot": "level-1"}]}  # fmt: skip
    match = creator.post("/api/v1/matches/", body).json()

    async def scenario() -> None:
        socket = await open_socket(match["id"], spectator.token)
        await ready(socket)
        await socket.send_json_to({"type": "action", "action": {"type": "pass"}, "ref": "s"})
        frame = await reply(socket)
        assert (frame["status"], frame["problem"]["code"]) == (403, "not_seated")
        await socket.disconnect()

    run(scenario)


# -- presence, pings, lifetime, caps ---------------------------------------------------------------


@override_settings(STREAM_KEEPALIVE_SECONDS=0.2)
def test_an_open_socket_keeps_its_seat_present_and_pings_while_idle():
    started, (host, _) = friends_match(public=False)
    match_id = started["match"]["id"]
    long_ago = timezone.now() - timedelta(hours=1)
    row = Presence.objects.get(match_id=match_id, player=host.player)

    async def scenario() -> None:
        await sync_to_async(Presence.objects.filter(pk=row.pk).update)(last_seen=long_ago)
        socket = await open_socket(match_id, host.token)
        await ready(socket)
        for _ in range(50):  # its first read, right after the ready frame, runs in a thread of the pool
            seen = (await sync_to_async(Presence.objects.get)(pk=row.pk)).last_seen
            if seen > long_ago + timedelta(minutes=59):
                break
            await asyncio.sleep(0.05)
        assert seen > long_ago + timedelta(minutes=59), "the socket's opening is a call on the match"
        await sync_to_async(Presence.objects.filter(pk=row.pk).update)(last_seen=long_ago)
        frame = await reply(socket)
        assert frame == {"type": "ping"}, "an idle socket is pinged"
        seen = (await sync_to_async(Presence.objects.get)(pk=row.pk)).last_seen
        assert seen > long_ago + timedelta(minutes=59), "an idle open socket keeps the seat present"
        await socket.disconnect()

    run(scenario)


@override_settings(STREAM_MAX_SECONDS=0.5)
def test_a_socket_lives_STREAM_MAX_SECONDS_and_says_where_to_resume():
    match_id, (host, _) = two_humans()

    async def scenario() -> None:
        socket = await open_socket(match_id, host.token)
        frames, code, reason = await frames_until_close(socket)
        last = [f for f in frames if f["type"] == "event"][-1]["event"]["seq"]
        assert (code, reason) == (4000, f"lifetime: reconnect with ?after={last}")

    run(scenario)


@override_settings(LIVE_CONNECTIONS_PER_PLAYER=3)
def test_a_player_s_sockets_streams_and_long_polls_share_one_cap():
    match_id, (host, guest) = two_humans()
    host_id = Player.objects.get(username=host.username).pk

    async def scenario() -> None:
        wait = slots.connection_slot(host_id, "long_poll").acquire()  # a long poll of theirs, open meanwhile
        first, second = await open_socket(match_id, host.token), await open_socket(match_id, host.token)
        await ready(first)
        await ready(second)
        third = await open_socket(match_id, host.token)
        frames, code, reason = await frames_until_close(third)
        assert (code, reason) == (4429, "too_many_connections")
        assert frames[0]["status"] == 429 and frames[0]["problem"]["retry_after"] == slots.RETRY_SECONDS
        assert slots.open_connections(host_id) == 3  # the refused socket gave its slot back
        wait.release()
        fourth = await open_socket(match_id, host.token)
        await ready(fourth)  # the long poll's end made room
        await fourth.disconnect()
        await asyncio.sleep(0.1)
        others = await open_socket(match_id, guest.token)
        await ready(others)  # another player is not counted against the first
        await first.disconnect()
        await asyncio.sleep(0.1)
        again = await open_socket(match_id, host.token)
        await ready(again)  # a closed socket gave its place back
        for socket in (second, others, again):
            await socket.disconnect()

    run(scenario)


@override_settings(SPECTATORS_PER_MATCH=1)
def test_spectators_sockets_count_against_the_match_cap():
    creator = new_player("creator")
    body = {"variant": "dos", "options": {"games_to_win": 1}, "public": True,
            "seats": [{"player": "me"}, {"bot": "level-1"}]}  # fmt: skip
    match_id = creator.post("/api/v1/matches/", body).json()["id"]
    one, two = new_player("one"), new_player("two")
    assert seats_of("dos", {}) == 2

    async def scenario() -> None:
        first = await open_socket(match_id, one.token)
        await ready(first)
        assert await sync_to_async(watchers.counts)([match_id]) == {match_id: 1}
        second = await open_socket(match_id, two.token)
        _, code, reason = await frames_until_close(second)
        assert (code, reason) == (4429, "too_many_spectators")
        await first.disconnect()

    run(scenario)


# -- news across processes ----------------------------------------------------------------------------


def test_news_reaches_the_sockets_through_redis():
    """With Redis (a deployment's ``LIVE_UPDATES_URL``), a move made over HTTP reaches the other seat's
    socket: its news crosses Redis and comes back through the process's one subscription, as news from a
    Celery worker's process does; no channel layer is involved."""
    match_id, seats = two_humans()
    url = f"/api/v1/matches/{match_id}"

    async def scenario() -> None:
        view = (await sync_to_async(seats[0].get)(url)).json()
        mover, other = seats[view["hand"]["turn"]], seats[1 - view["hand"]["turn"]]
        them = await open_socket(match_id, other.token)
        await ready(them)
        await events(them, view["seq"])
        mine = (await sync_to_async(mover.get)(url)).json()
        assert (await sync_to_async(mover.post)(f"{url}/actions", mine["legal_actions"][0])).status_code == 200
        heard = await events(them, view["seq"] + 1)
        assert heard[0]["seq"] == view["seq"] + 1 and heard[0]["seat"] == view["hand"]["turn"]
        await them.disconnect()

    with override_settings(LIVE_UPDATES_URL=services.redis_url()):
        run(scenario)


def test_actions_over_the_socket_count_against_the_players_rate_limit():
    match_id, (host, _) = two_humans()
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "player": "2/min"}

    async def scenario() -> None:
        socket = await open_socket(match_id, host.token)
        await ready(socket)
        codes = []
        for n in range(3):
            await socket.send_json_to({"type": "action", "action": {"type": "fly"}, "ref": n})
            frame = await reply(socket)
            codes.append(frame["problem"]["code"])
        assert codes == ["invalid", "invalid", "throttled"], "the third within the window is refused"
        assert frame["status"] == 429 and frame["problem"]["retry_after"] >= 1
        await socket.disconnect()

    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        run(scenario)


def test_an_action_over_the_socket_goes_in_the_moves_lane_of_the_pool(monkeypatch):
    """A player's move over the socket, as over HTTP, goes before the other requests queued in the server's
    pool (tute_api/threads.py); the socket's other work does not."""
    from tute_api.threads import Lane

    match_id, (host, _) = two_humans()
    lanes: dict[str, object] = {}
    hop = sockets.in_thread

    def in_thread(function: Any, **kwargs: Any) -> Any:
        lanes[getattr(function, "__name__", repr(function))] = kwargs.get("lane", Lane.REQUEST)
        return hop(function, **kwargs)

    monkeypatch.setattr(sockets, "in_thread", in_thread)

    async def scenario() -> None:
        socket = await open_socket(match_id, host.token)
        await ready(socket)
        await socket.send_json_to({"type": "action", "action": {"type": "fly"}, "ref": 1})
        assert (await reply(socket))["problem"]["code"] == "invalid"
        await socket.disconnect()

    run(scenario)
    assert lanes.pop("act") == Lane.MOVE
    assert lanes and set(lanes.values()) <= {Lane.NEWS, Lane.REQUEST}, lanes


def test_a_spectators_socket_touches_no_presence(monkeypatch):
    started, (host, _) = friends_match(public=True)
    match_id = started["match"]["id"]
    spectator = new_player("spectator")
    touched: list[object] = []
    monkeypatch.setattr(presence, "touch", lambda **kw: touched.append(kw["player_id"]))

    async def scenario() -> None:
        watching = await open_socket(match_id, spectator.token)
        assert (await ready(watching))["spectator"] is True
        await watching.disconnect()
        assert touched == [], "a spectator is no seat's presence (M5)"
        seated = await open_socket(match_id, host.token)
        await ready(seated)
        await seated.disconnect()
        assert touched == [host.player.pk], "the seated player's socket is"

    run(scenario)


@override_settings(STREAM_KEEPALIVE_SECONDS=0.6, PRESENCE_TIMEOUT=0.4)
def test_a_socket_wakes_within_the_presence_timeout_only_where_it_keeps_a_seat_present(monkeypatch):
    """Between humans an idle socket keeps its seat connected (M2): it wakes within half the presence
    timeout; against bots (M3) only as often as a proxy needs, and its wakes cost no thread."""
    chosen: list[float] = []

    def spy(*args: Any, **kwargs: Any) -> float:
        chosen.append(keepalive_seconds(*args, **kwargs))
        return chosen[-1]

    keepalive_seconds = sockets.keepalive_seconds
    monkeypatch.setattr(sockets, "keepalive_seconds", spy)
    match_id, (host, _) = two_humans()
    me = new_player()
    against_bots = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]})

    async def scenario() -> None:
        for match, token in ((match_id, host.token), (against_bots.json()["id"], me.token)):
            socket = await open_socket(match, token)
            await ready(socket)
            await socket.disconnect()

    run(scenario)
    assert chosen == [pytest.approx(0.2), pytest.approx(0.6)]
