"""A real Celery worker, over Redis, delivers a webhook bot's turns: it checks the URL again on
every call (the worker's settings allow no loopback webhook), replaces each refused call with a
level-2 move, and the match plays on, task after task, to its end."""

from __future__ import annotations

import os
import time

import pytest

from games.matches.models import Event, Match
from players.models import BotCall

from .helpers import Receiver, register

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_worker_delivers_webhook_turns_and_falls_back_when_the_address_is_refused(celery_worker, receiver: Receiver):
    if os.environ.get("BOT_WEBHOOK_ALLOW_PRIVATE", "").lower() in ("1", "true", "yes", "on"):
        pytest.skip("the worker allows loopback webhooks (BOT_WEBHOOK_ALLOW_PRIVATE in its environment)")
    bot = register("webhook", webhook_url=receiver.url, timeout_ms=1000)
    created = bot.owner.post("/api/v1/matches/", {"variant": "dos", "options": {"games_to_win": 1}, "seed": 5,
                                                  "seats": [{"bot": bot.id}, {"bot": "level-1"}]})  # fmt: skip
    assert created.status_code == 201, created.content
    match_id = created.json()["id"]
    deadline = time.monotonic() + 120
    while Match.objects.get(pk=match_id).status == "active":
        assert time.monotonic() < deadline, "the worker did not play the match to its end"
        time.sleep(0.5)
    assert Match.objects.get(pk=match_id).status == "finished"
    assert not receiver.calls, "the worker refused the loopback address: no call went out"
    fallbacks = Event.objects.filter(match_id=match_id, type="bot_fallback")
    assert fallbacks and all(f.data["detail"] == "The bot's answer could not be used." for f in fallbacks)
    assert all("not a public address" in c.detail for c in BotCall.objects.filter(outcome="error"))
    assert BotCall.objects.filter(bot_id=bot.id, outcome="error").count() == fallbacks.count()

