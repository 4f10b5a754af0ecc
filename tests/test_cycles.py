"""What each kind of request leaves to the garbage collector: nothing. A request whose objects form a
reference cycle (DRF's view and request, a response and its renderer's context, a serializer and its
fields, an exception and the frame that caught it) is freed only by a collection, all that hangs off
it with it, and beside thousands of open connections the collections it brings about were the
fan-out's tail (tute_api/cycles.py, docs/performance.md). Counted on the service's ASGI application,
with ``gc.DEBUG_SAVEALL``: what a collection would have freed after N requests, per request."""

from __future__ import annotations

import asyncio
import gc
import json
import secrets
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from rest_framework.views import APIView

from tests.games.helpers import human_table, new_player
from tests.games.test_sockets import open_socket
from tests.test_asgi_handler import _call
from tute_api.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

REQUESTS = 4


def _garbage_of(run: Callable[[], None]) -> list[Any]:
    """What a collection frees after ``run()`` (after one that frees what came before)."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def _assert_nothing_left(what: str, request: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """A collection frees nothing after ``REQUESTS`` calls of ``request`` (after two that warm caches up)."""

    async def requests(n: int) -> None:
        for _ in range(n):
            await request()

    asyncio.run(requests(2))
    garbage = _ours(_garbage_of(lambda: asyncio.run(requests(REQUESTS))))
    assert not garbage, f"{what} left {len(garbage) / REQUESTS:.1f} objects to the collector: {_kinds(garbage)}"


#: Django's: a query with ``select_related`` compiles through a nested function that calls itself, a cycle
#: of three objects (the function, its closure and the closure's cell) a query. Not the service's to cut.
DJANGOS = "SQLCompiler.get_select.<locals>.get_select_from_parent"


def _ours(garbage: list[Any]) -> list[Any]:
    """The garbage less Django's :data:`DJANGOS` cycles."""
    functions = [thing for thing in garbage if getattr(thing, "__qualname__", None) == DJANGOS]
    theirs = {id(part) for function in functions for part in (function, function.__closure__, *function.__closure__)}
    return [thing for thing in garbage if id(thing) not in theirs]


def _kinds(garbage: list[Any]) -> list[str]:
    """The types of the garbage, and the URL arguments of any view among it (this test's match, or an
    earlier test's left behind?)."""
    views = [f"{type(thing).__qualname__}{thing.kwargs}" for thing in garbage if isinstance(thing, APIView)
             and isinstance(getattr(thing, "kwargs", None), dict)]  # fmt: skip
    return sorted({type(thing).__qualname__ for thing in garbage}) + views


@pytest.fixture
def table(settings: Any) -> Any:
    settings.LIVE_CONNECTIONS_PER_PLAYER = 50
    return human_table("dos", {"games_to_win": 1})


def _ok(sent: list[dict[str, Any]], *statuses: int) -> list[dict[str, Any]]:
    assert sent[0]["status"] in statuses, sent
    return sent


@pytest.mark.parametrize(
    "kind",
    ["view", "long poll that times out", "turns long poll", "events", "refused action", "event stream", "sign-up",
     "list of matches", "leaderboard", "ladder's leaderboard", "liveness probe"],
)  # fmt: skip
def test_a_request_leaves_no_garbage(kind: str, table: Any) -> None:
    url = f"/api/v1/matches/{table.match_id}"
    view = table.seats[0].get(url).json()
    mover = table.seats[view["hand"]["turn"]]
    waiting = table.seats[1 - view["hand"]["turn"]]
    reads = {"list of matches": ("/api/v1/matches/", b"status=active&variant=dos&page=1"),
             "leaderboard": ("/api/v1/leaderboards/dos", b"page_size=10"),
             "ladder's leaderboard": ("/api/v1/ladder/leaderboard", b"page=1")}  # fmt: skip

    async def request() -> None:
        if kind in reads:  # with a query, read by a serializer
            _ok(await _call(application, "GET", reads[kind][0], query=reads[kind][1], token=waiting.token), 200)
        elif kind == "liveness probe":  # (with the whole middleware, messages' storage and request were a cycle)
            _ok(await _call(application, "GET", "/healthz"), 200)
        elif kind == "sign-up":  # its answer's serializer was copied into a plain dict, out of the closer's reach
            body = json.dumps({"username": f"new-{secrets.token_hex(4)}"}).encode()
            _ok(await _call(application, "POST", "/api/v1/players/", body=body), 201)
        elif kind == "view":
            _ok(await _call(application, "GET", url, token=waiting.token), 200)
        elif kind == "long poll that times out":  # it waits in the event loop, then answers as it is
            _ok(await _call(application, "GET", url, query=f"after={view['seq']}&wait=1".encode(),
                            token=waiting.token), 200)  # fmt: skip
        elif kind == "turns long poll":  # not the caller's turn: it waits, then answers with no turn
            _ok(await _call(application, "GET", "/api/v1/me/turns", query=b"wait=1", token=waiting.token), 200)
        elif kind == "events":
            _ok(await _call(application, "GET", f"{url}/events", query=b"after=0", token=waiting.token), 200)
        elif kind == "refused action":
            body = json.dumps({"type": "play", "card": "nope"}).encode()
            _ok(await _call(application, "POST", f"{url}/actions", body=body, token=mover.token), 400, 422)
        else:
            leave = asyncio.Event()
            stream = asyncio.create_task(_call(application, "GET", f"{url}/stream", token=waiting.token, leave=leave))
            await asyncio.sleep(0.3)
            gc.collect()  # as a server's do while streams are open: what is unreachable by then is garbage too
            leave.set()
            _ok(await stream, 200)

    _assert_nothing_left(f"a {kind} on match {table.match_id}", request)


def test_a_match_against_a_bot_leaves_no_garbage(settings: Any) -> None:
    """Created, then played card by card: each action, and the bot's answers played after it."""
    host = new_player("host")

    async def request() -> None:
        body = {"variant": "dos", "options": {"games_to_win": 1}, "seats": [{"player": "me"}, {"bot": "level-1"}]}
        created = _ok(await _call(application, "POST", "/api/v1/matches/", body=json.dumps(body).encode(),
                                  token=host.token), 201)  # fmt: skip
        url = f"/api/v1/matches/{json.loads(created[1]['body'])['id']}"
        for _ in range(3):
            view = json.loads(_ok(await _call(application, "GET", url, token=host.token), 200)[1]["body"])
            action = {**view["legal_actions"][0], "expected_seq": view["seq"]}
            _ok(await _call(application, "POST", f"{url}/actions", body=json.dumps(action).encode(),
                            token=host.token), 200, 201)  # fmt: skip

    _assert_nothing_left("a match", request)


def test_a_socket_leaves_no_garbage(table: Any) -> None:
    """Opened after the match's last event by the seat to act (its view sent), an action refused, closed."""
    url = f"/api/v1/matches/{table.match_id}"
    view = table.seats[0].get(url).json()
    mover = table.seats[view["hand"]["turn"]]

    async def request() -> None:
        socket = await open_socket(table.match_id, mover.token, f"?after={view['seq']}")
        assert (await socket.receive_json_from(5))["type"] == "ready"
        assert (await socket.receive_json_from(5))["type"] == "turn"
        await socket.send_json_to({"type": "action", "action": {"type": "fly"}})
        while (frame := await socket.receive_json_from(5))["type"] != "error":
            assert frame["type"] == "event", frame
        await socket.disconnect()

    _assert_nothing_left(f"a socket on match {table.match_id}", request)


@pytest.mark.parametrize("kind", ["socket", "event stream"])
def test_a_connection_closed_at_its_lifetime_leaves_no_garbage(kind: str, table: Any, settings: Any) -> None:
    """The server ends a socket or a stream at ``STREAM_MAX_SECONDS``; the client comes back with its seq."""
    settings.STREAM_MAX_SECONDS = settings.STREAM_KEEPALIVE_SECONDS = 0.3
    url = f"/api/v1/matches/{table.match_id}"
    view = table.seats[0].get(url).json()

    async def request() -> None:
        if kind == "socket":
            socket = await open_socket(table.match_id, table.seats[0].token, f"?after={view['seq']}")
            while (message := await socket.receive_output(5))["type"] != "websocket.close":
                pass
            assert message["code"] == 4000, message  # its lifetime
            await socket.disconnect()  # the client's side of the close
        else:
            stream = asyncio.create_task(_call(application, "GET", f"{url}/stream", query=f"after={view['seq']}"
                                               .encode(), token=table.seats[0].token))  # fmt: skip
            await asyncio.sleep(0.15)
            gc.collect()  # while it is open, as a server's collections come (the view's cycle was found so in CI)
            _ok(await stream, 200)

    _assert_nothing_left(f"a {kind} on match {table.match_id}", request)


def test_a_request_serializer_untied_still_reads_and_answers() -> None:
    """Once validated, it holds no bound field (no cycle), and its data, errors and fields still answer."""
    from games.matches.serializers import MatchCreateInputSerializer

    good = MatchCreateInputSerializer(data={"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]})
    assert good.is_valid() and "fields" not in good.__dict__
    assert good.validated_data["variant"] == "dos" and len(good.validated_data["seats"]) == 2
    bad = MatchCreateInputSerializer(data={"variant": 7, "seats": "none"})
    assert not bad.is_valid() and set(bad.errors) == {"variant", "seats"}
    assert set(bad.fields) >= {"variant", "seats"} and bad.fields["seats"].parent is bad  # bound again on demand
    garbage = _garbage_of(lambda: MatchCreateInputSerializer(data={"variant": "dos", "seats": [{"player": "me"}]})
                          .is_valid())  # fmt: skip
    assert not garbage, _kinds(garbage)
