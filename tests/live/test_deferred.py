"""games/live/deferred.py under the ASGI application, in process: a match's long poll subscribes before
the view's first read, so that a wait woken by news reads once to answer (not once more beforehand)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from games.live import waits
from tests.games.helpers import human_table
from tests.test_asgi_handler import _call
from tute_api.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)  # the views read and commit as a server does


def test_a_match_long_poll_woken_by_a_move_answers_with_one_read_of_whether_it_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = human_table("dos", {"games_to_win": 1})
    url = f"/api/v1/matches/{table.match_id}"
    view = table.seats[0].get(url).json()
    mover, other = table.seats[view["hand"]["turn"]], table.seats[1 - view["hand"]["turn"]]
    checks: list[int] = []
    moved = waits._moved

    def counted(match_id: Any, after: int) -> bool:
        checks.append(after)
        return moved(match_id, after)

    monkeypatch.setattr(waits, "_moved", counted)

    async def scenario() -> list[dict[str, Any]]:
        query = f"after={view['seq']}&wait=10".encode()
        poll = asyncio.create_task(_call(application, "GET", url, query=query, token=other.token))
        await asyncio.sleep(1)
        assert not poll.done(), "the poll answered before the move"
        mine = (await sync_to_async(mover.get)(url)).json()
        act = await sync_to_async(mover.post)(f"{url}/actions", mine["legal_actions"][0])
        assert act.status_code == 200
        return await asyncio.wait_for(poll, 10)

    sent = asyncio.run(scenario())
    assert sent[0]["status"] == 200
    assert b'"seq":' + str(view["seq"] + 1).encode() in sent[1]["body"].replace(b" ", b"")
    assert checks == [view["seq"]], "one read of whether the match moved: after the news, none before it"
