"""Steps that follow a commit run after the answer is sent (tute_api/after_response.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.signals import request_finished
from django.db import connection
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.test import RequestFactory

from players.models import Player
from tute_api.after_response import AfterResponseMiddleware, later


def _through_middleware(response: HttpResponse | StreamingHttpResponse, ran: list[str]) -> Any:
    def view(request: HttpRequest) -> Any:
        later(lambda: ran.append("step"))
        ran.append("view returned")
        return response

    answer = AfterResponseMiddleware(view)(RequestFactory().post("/api/v1/matches/x/actions"))
    ran.append("answer returned")
    return answer


def test_outside_a_request_a_step_runs_at_once() -> None:
    ran: list[str] = []
    later(lambda: ran.append("step"))
    assert ran == ["step"]


def test_in_a_request_the_steps_wait_until_the_answer_is_closed() -> None:
    ran: list[str] = []
    _through_middleware(HttpResponse("ok"), ran)
    assert ran == ["view returned", "answer returned"]
    request_finished.send(sender=None)  # what the WSGI server's close of the answer sends
    assert ran == ["view returned", "answer returned", "step"]
    later(lambda: ran.append("after"))  # the request is over: at once again
    assert ran[-1] == "after"


def test_a_streamed_answer_runs_the_steps_before_it_streams() -> None:
    ran: list[str] = []
    _through_middleware(StreamingHttpResponse(iter([b"data"])), ran)
    assert ran == ["view returned", "step", "answer returned"]


def test_a_failing_step_is_logged_and_the_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    ran: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        later(lambda: 1 / 0)
        later(lambda: ran.append("second"))
        return HttpResponse("ok")

    AfterResponseMiddleware(view)(RequestFactory().get("/"))
    request_finished.send(sender=None)
    assert ran == ["second"]
    assert "A step after the response failed" in caplog.text


@pytest.mark.django_db(transaction=True)  # on-commit steps run only when a transaction commits
def test_an_action_answers_before_the_bots_are_queued(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer to an action is complete before the bot turn is handed on (played here or queued) and
    the waiters woken."""
    from games.turns import builtin

    queued: list[tuple[object, int]] = []
    monkeypatch.setattr(builtin, "bot_turns_next", lambda match_id, seq, level: queued.append((match_id, seq)))
    token = client.post("/api/v1/players/", {"username": "ann"}, content_type="application/json").json()["token"]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    seats = [{"player": "me"}, {"bot": "level-3"}]  # a level whose turns are not played inside the action
    match = client.post("/api/v1/matches/", {"variant": "dos", "seats": seats}, content_type="application/json", **auth)
    match_id = match.json()["id"]
    view = match.json()
    if not view["legal_actions"]:  # the bot leads: play its turns by hand, then act
        builtin.bot_turns_play(match_id=match_id, seq=view["seq"])
        view = client.get(f"/api/v1/matches/{match_id}", **auth).json()
    queued.clear()

    seen_at_answer: list[int] = []
    original = AfterResponseMiddleware.__call__

    def spy(self: AfterResponseMiddleware, request: HttpRequest) -> Any:
        response = original(self, request)
        seen_at_answer.append(len(queued))
        return response

    monkeypatch.setattr(AfterResponseMiddleware, "__call__", spy)
    for _ in range(10):  # play until an action leaves the turn to the bot
        action = {**view["legal_actions"][0], "expected_seq": view["seq"]}
        answer = client.post(f"/api/v1/matches/{match_id}/actions", action, content_type="application/json", **auth)
        view = answer.json()
        if not view["legal_actions"]:
            break
    assert not view["legal_actions"], "the bot never got the turn"
    assert seen_at_answer[-1] == 0  # nothing queued when the answer left the middleware
    assert [(str(m), seq) for m, seq in queued] == [(view["id"], view["seq"])]  # queued once it was closed


@pytest.mark.django_db(transaction=True)
def test_a_step_that_queries_gives_its_connection_back_as_the_request_ends() -> None:
    """Django closes the request's connections on request_finished; the steps run before that, so a
    step that opens one does not keep it (with a pool, out of the pool) until the thread's next request."""
    ran: list[str] = []
    _through_middleware(HttpResponse("ok"), ran)
    later(lambda: ran.append(str(Player.objects.exists())))
    connection.close()
    request_finished.send(sender=None)
    assert ran[-1] == "False", "the step ran, and queried"
    assert connection.connection is None
