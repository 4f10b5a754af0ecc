"""A stream's or a socket's lifetime (games/live/slots.py ``connection_lifetime``): ``STREAM_MAX_SECONDS`` at
most, less a random share, so that connections opened together (a deploy's reconnections, a load test's
start) do not all end, and come back, together for ever."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from games.live import slots
from tests.games.helpers import human_table, new_player
from tests.games.test_sockets import frames_until_close
from tests.games.test_sockets import open_socket as open_match_socket
from tests.lobby.test_socket import open_socket as open_own_socket
from tests.test_asgi_handler import _call
from tute_api.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_lifetime_is_at_most_STREAM_MAX_SECONDS_and_spread_below_it(settings: Any) -> None:
    settings.STREAM_MAX_SECONDS = 300
    lifetimes = [slots.connection_lifetime() for _ in range(500)]
    assert all((1 - slots.LIFETIME_JITTER) * 300 <= seconds <= 300 for seconds in lifetimes)
    assert min(lifetimes) < 0.82 * 300 and max(lifetimes) > 0.98 * 300  # spread over the whole share


@pytest.mark.parametrize("kind", ["match socket", "match stream", "own socket", "own stream"])
def test_every_long_lived_connection_ends_at_its_own_lifetime(kind: str, settings: Any, monkeypatch: Any) -> None:
    """Each kind takes its lifetime from ``connection_lifetime``: told 0.3 s, it ends then, though
    ``STREAM_MAX_SECONDS`` is an hour."""
    settings.STREAM_MAX_SECONDS = 3600
    settings.STREAM_KEEPALIVE_SECONDS = 0.1
    module = {"match socket": "games.live.sockets", "match stream": "games.live.apis",
              "own socket": "games.lobby.sockets", "own stream": "games.lobby.apis"}[kind]  # fmt: skip
    monkeypatch.setattr(f"{module}.connection_lifetime", lambda: 0.3)
    table = human_table("dos", {"games_to_win": 1})
    player = table.seats[0] if kind.startswith("match") else new_player("own")
    path = f"/api/v1/matches/{table.match_id}/stream" if kind == "match stream" else "/api/v1/me/notices/stream"

    async def scenario() -> None:
        if kind.endswith("socket"):
            socket = await (open_match_socket(table.match_id, player.token) if kind == "match socket"
                            else open_own_socket(player.token))  # fmt: skip
            _, code, reason = await asyncio.wait_for(frames_until_close(socket), 10)
            assert code == 4000 and reason.startswith("lifetime"), (code, reason)
        else:
            sent = await asyncio.wait_for(_call(application, "GET", path, token=player.token), 10)
            assert sent[0]["status"] == 200 and sent[-1].get("more_body", False) is False  # ended by the server

    asyncio.run(scenario())
