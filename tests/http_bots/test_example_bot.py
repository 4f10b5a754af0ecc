"""``examples/http_bot/bot.py`` end to end against a live server: it registers, starts a ``dos``
match against a built-in bot and plays it to the end, by polling and by webhook."""

from __future__ import annotations

import importlib.util
import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import pytest
from django.conf import settings

from games.matches.models import Event, Match
from players.models import Bot, BotCall, Player
from tests import services

pytestmark = pytest.mark.django_db(transaction=True)


def example() -> ModuleType:
    path = Path(settings.BASE_DIR) / "examples" / "http_bot" / "bot.py"
    spec = importlib.util.spec_from_file_location("example_http_bot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(capsys: pytest.CaptureFixture[str], args: list[str]) -> dict[str, object]:
    assert example().main(args) == 0, capsys.readouterr().err
    result: dict[str, object] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return result


def test_the_example_bot_plays_a_match_by_polling(live_server, capsys):
    result = run(capsys, ["--server", live_server.url, "--seconds", "120", "poll"])
    assert result["status"] == "finished" and result["my_seat"] == 0 and result["winners"]
    match = Match.objects.get(pk=result["match_id"])
    assert match.status == "finished" and match.variant == "dos"
    (bot,) = Bot.objects.all()
    assert bot.delivery == "poll" and match.seating[0]["player"]["id"] == str(bot.pk)
    assert Event.objects.filter(match=match, seat=0, type="card_played").exists(), "the bot played its cards"


def test_the_example_bot_waits_when_it_is_throttled(live_server, capsys, settings):
    """A bot that answers at once is over a low rate within a second: it waits the Retry-After it is given."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": None, "player": "5/s"}}
    sent: list[float] = []  # when each of the bot's requests went out
    throttled: list[tuple[int, float, float]] = []  # (index of the next request, when the 429 came, its Retry-After)
    urlopen = urllib.request.urlopen

    def spy(request: Any, timeout: float) -> Any:
        sent.append(time.monotonic())
        try:
            return urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as error:
            if error.code == 429:
                throttled.append((len(sent), time.monotonic(), float(error.headers["Retry-After"])))
            raise

    with mock.patch.object(urllib.request, "urlopen", spy):
        result = run(capsys, ["--server", live_server.url, "--seconds", "120", "poll"])
    assert result["status"] == "finished"
    assert throttled, "the bot was throttled"
    assert all(sent[then] - at >= wait for then, at, wait in throttled), "each 429 was waited out before a retry"


def test_the_example_bot_plays_a_match_by_webhook(live_server, capsys):
    port = str(services.free_port())
    result = run(capsys, ["--server", live_server.url, "--seconds", "120", "webhook", "--port", port])
    assert result["status"] == "finished" and result["winners"]
    match = Match.objects.get(pk=result["match_id"])
    (bot,) = Bot.objects.all()
    assert bot.delivery == "webhook"
    calls = BotCall.objects.filter(bot=bot)
    assert calls.exists() and not calls.exclude(outcome="ok").exists(), "every reply was signed, on time and legal"
    assert not Event.objects.filter(match=match, type="bot_fallback").exists()


def test_the_example_bot_stops_before_registering_when_its_port_is_taken(live_server, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        assert example().main(["--server", live_server.url, "webhook", "--port", port]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    assert not Player.objects.exists(), "no owner and no bot are left behind"


def test_the_example_bot_can_take_any_free_port(live_server, capsys):
    result = run(capsys, ["--server", live_server.url, "--seconds", "120", "webhook", "--port", "0"])
    assert result["status"] == "finished"
    (bot,) = Bot.objects.all()
    assert bot.webhook_url.startswith("http://127.0.0.1:") and not bot.webhook_url.endswith(":0/")
