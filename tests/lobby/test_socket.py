"""The player's own channel as a WebSocket (games/lobby/sockets.py, docs/clients.md "Your own channel"):
authentication, the same messages as ``GET /me/notices`` and nothing of another player's, pushed as they
come, resume with ``?after=``, the shared cap, pings and the lifetime."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from games.live import slots
from games.lobby.models import Notice
from tests.games.helpers import Api, new_player
from tests.games.test_sockets import frames_until_close
from tute_api.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)  # the consumer reads and commits as a server does

DOS = {"variant": "dos", "options": {"games_to_win": 1}}


async def open_socket(token: str | None = None, query: str = "") -> WebsocketCommunicator:
    headers = [(b"authorization", f"Bearer {token}".encode())] if token is not None else []
    socket = WebsocketCommunicator(application, f"/api/v1/me/ws{query}", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def notices(socket: WebsocketCommunicator, count: int) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    while len(got) < count:
        frame = await socket.receive_json_from(5)
        if frame["type"] == "notice":
            got.append(frame["notice"])
    return got


def http_notices(api: Api, after: int = 0) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = api.get("/api/v1/me/notices", {"after": after}).json()["notices"]
    return found


def queue_pair(ana: Api, bea: Api) -> None:
    for api in (ana, bea):
        assert api.post("/api/v1/queue/", DOS).status_code == 201


def test_the_header_or_a_first_auth_frame_authenticates_and_nothing_else_does():
    ana = new_player("ana")

    async def scenario() -> None:
        by_header = await open_socket(ana.token)
        ready = await by_header.receive_json_from(5)
        assert ready["type"] == "ready" and ready["after"] == 0
        await by_header.disconnect()
        by_frame = await open_socket()
        await by_frame.send_json_to({"type": "auth", "token": ana.token})
        assert (await by_frame.receive_json_from(5))["type"] == "ready"
        await by_frame.send_json_to({"type": "ping"})
        assert await by_frame.receive_json_from(5) == {"type": "pong"}
        await by_frame.send_json_to({"type": "action", "action": {}})
        refused = await by_frame.receive_json_from(5)
        assert refused["type"] == "error" and refused["problem"]["code"] == "invalid_frame"
        await by_frame.disconnect()
        for token, code in (("nope", "authentication_failed"), ("", "authentication_failed")):
            frames, close, reason = await frames_until_close(await open_socket(token))
            assert (close, reason) == (4401, code) and frames[0]["problem"]["code"] == code
        first_frame_not_auth = await open_socket()
        await first_frame_not_auth.send_json_to({"type": "ping"})
        frames, close, reason = await frames_until_close(first_frame_not_auth)
        assert (close, reason) == (4401, "not_authenticated")
        frames, close, reason = await frames_until_close(await open_socket(ana.token, "?after=x"))
        assert (close, reason) == (4400, "invalid")

    async_to_sync(scenario)()


def test_the_queue_s_messages_come_as_they_happen_as_get_me_notices_gives_them_and_only_the_player_s():
    ana, bea, cid = new_player("ana"), new_player("bea"), new_player("cid")

    async def scenario() -> None:
        mine, theirs = await open_socket(ana.token), await open_socket(cid.token)
        for socket in (mine, theirs):
            assert (await socket.receive_json_from(5))["type"] == "ready"
        await sync_to_async(queue_pair)(ana, bea)  # ana and bea are seated: told at once
        pushed = await notices(mine, 1)
        assert pushed == (await sync_to_async(http_notices)(ana))[:1]  # your_turn may follow at once
        assert pushed[0]["kind"] == "match_ready" and set(pushed[0]) == {"id", "kind", "match_id", "data", "at"}
        assert await theirs.receive_nothing(0.5)  # cid is told nothing of it
        await mine.disconnect()
        await theirs.disconnect()
        # Resumed after the last id it had: what came meanwhile, nothing twice.
        last = (await sync_to_async(http_notices)(ana))[-1]["id"]
        await sync_to_async(Notice.objects.create)(player_id=ana.player.pk, kind="queue_left", data={"reason": "gone"})
        again = await open_socket(ana.token, f"?after={last}")
        assert (await again.receive_json_from(5))["after"] == last
        later = await notices(again, 1)
        assert [n["kind"] for n in later] == ["queue_left"] and later[0]["id"] > last
        await again.disconnect()

    async_to_sync(scenario)()


@override_settings(LIVE_CONNECTIONS_PER_PLAYER=2)
def test_a_socket_takes_one_of_the_player_s_live_connections():
    ana = new_player("ana")
    ana_id = ana.player.pk

    async def scenario() -> None:
        held = slots.connection_slot(ana_id, "stream").acquire()
        first = await open_socket(ana.token)
        assert (await first.receive_json_from(5))["type"] == "ready"
        frames, code, reason = await frames_until_close(await open_socket(ana.token))
        assert (code, reason) == (4429, "too_many_connections") and frames[0]["problem"]["retry_after"] > 0
        held.release()
        second = await open_socket(ana.token)
        assert (await second.receive_json_from(5))["type"] == "ready"
        await first.disconnect()
        await second.disconnect()
        assert slots.open_connections(ana_id) == 0

    async_to_sync(scenario)()


@override_settings(STREAM_MAX_SECONDS=1.0, STREAM_KEEPALIVE_SECONDS=0.3)
def test_an_idle_socket_is_pinged_and_closed_at_its_lifetime_with_where_to_resume():
    ana = new_player("ana")

    async def scenario() -> None:
        socket = await open_socket(ana.token)
        frames, code, reason = await frames_until_close(socket)
        assert frames[0]["type"] == "ready" and {"type": "ping"} in frames
        assert (code, reason) == (4000, "lifetime: reconnect with ?after=0")

    async_to_sync(scenario)()
