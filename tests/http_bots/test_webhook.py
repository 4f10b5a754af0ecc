"""Webhook bots: the service POSTs each turn, signed, plays the reply, and replaces a late,
malformed or illegal reply with a level-2 move that the log and the bot's stats record."""

from __future__ import annotations

import json
import logging
import socket
from typing import Any
from unittest import mock

import pytest

from games.matches.models import Event, Match
from games.turns import http_bots as turns
from games.turns import tasks, webhooks
from games.turns.http_bots import PUBLIC_DETAIL
from players.models import Bot, BotCall
from tests.games.helpers import new_player
from tests.games.openapi import validate

from .helpers import Receiver, patch, register, signature_ok

pytestmark = pytest.mark.django_db

VS_LEVEL2 = {"variant": "dos", "options": {"games_to_win": 1}, "seed": 4}


def start(owner_or_creator: Any, seats: list[dict[str, Any]]) -> dict[str, Any]:
    created = owner_or_creator.post("/api/v1/matches/", {**VS_LEVEL2, "seats": seats})
    assert created.status_code == 201, created.content
    return dict(created.json())


def test_a_webhook_bot_plays_a_whole_match_against_a_built_in_bot(receiver: Receiver):
    bot = register("webhook", webhook_url=receiver.url, timeout_ms=3000)
    match = start(bot.owner, [{"bot": bot.id}, {"bot": "level-2"}])
    final = Match.objects.get(pk=match["id"])
    assert final.status == "finished", "webhook and built-in turns alternate to the end, in process"
    assert receiver.calls, "the bot was called"
    assert all(signature_ok(bot.body["secret"], call) for call in receiver.calls)
    payload = receiver.calls[0].payload
    assert set(payload) == {"match_id", "seq", "seat", "view", "legal_actions", "deadline_ms"}
    assert payload["match_id"] == match["id"] and payload["seat"] == 0 and payload["deadline_ms"] == 3000
    assert payload["view"]["my_seat"] == 0 and payload["legal_actions"] == payload["view"]["legal_actions"]
    assert receiver.calls[0].headers["Content-Type"] == "application/json"
    assert not Event.objects.filter(match=final, type="bot_fallback").exists()
    stats = bot.owner.get(f"/api/v1/bots/{bot.id}/stats").json()
    assert stats["turns"] == stats["ok"] == len(receiver.calls) and stats["fallbacks"] == 0
    assert stats["latency_ms"]["p50"] is not None and stats["latency_ms"]["p99"] >= stats["latency_ms"]["p50"]


def test_the_signature_is_checked_against_the_secret_and_the_body(receiver: Receiver):
    bot = register("webhook", webhook_url=receiver.url)
    start(bot.owner, [{"bot": bot.id}, {"bot": "level-2"}])
    call = receiver.calls[0]
    assert signature_ok(bot.body["secret"], call)
    assert not signature_ok("another secret", call)
    tampered = type(call)(call.headers, call.body.replace(b'"seat":0', b'"seat":1'))
    assert not signature_ok(bot.body["secret"], tampered)


def play_until_the_bot_has_been_called(human: Any, match: dict[str, Any], calls: list[Any]) -> dict[str, Any]:
    """The human (seat 1) plays its first legal action until the bot (seat 0) has been called."""
    view = match
    for _ in range(10):
        if calls or view["status"] != "active":
            break
        view = human.get(f"/api/v1/matches/{match['id']}").json()
        if view["legal_actions"]:
            view = human.post(f"/api/v1/matches/{match['id']}/actions", view["legal_actions"][0]).json()
    assert calls, "the bot was called"
    return dict(view)


@pytest.mark.parametrize(
    "respond, reason, detail",
    [
        (lambda p: (200, b"this is not json", 0.0), "error", "not JSON"),
        (lambda p: (200, b"[" * 5000 + b"]" * 5000, 0.0), "error", "not JSON"),  # too deep for the decoder
        (lambda p: (200, b'{"type": "dance"}', 0.0), "error", "not an action"),
        (lambda p: (200, b"[1, 2]", 0.0), "error", "not an action"),
        (lambda p: (200, json.dumps({**p["legal_actions"][0], "expected_seq": str(p["seq"])}).encode(), 0.0),
         "error", "not an action"),  # a number in a string  # fmt: skip
        (lambda p: (500, b"{}", 0.0), "error", "HTTP 500"),
        (lambda p: (302, b"", 0.0), "error", "redirects are not followed"),
        (lambda p: (200, json.dumps(p["legal_actions"][0]).encode().ljust(65537), 0.0), "error", "longer than 65536"),
        (lambda p: (200, b'{"type": "play", "card": "Z9"}', 0.0), "illegal", "invalid_action: 'Z9' is not a card"),
        (lambda p: (200, b'{"type": "bid", "amount": 70}', 0.0), "illegal", "action_not_allowed_now"),
        (lambda p: (200, json.dumps(p["legal_actions"][0]).encode(), 0.6), "timeout", "reply within 300 ms"),
    ],
    ids=["not-json", "json-too-deep", "not-an-action", "a-list", "seq-in-a-string", "http-500", "redirect", "too-long",
         "bad-card", "wrong-phase", "late"],  # fmt: skip
)
def test_a_bad_reply_is_replaced_by_a_level_2_move_logged_and_counted(
    receiver: Receiver, respond, reason, detail, caplog
):
    caplog.set_level(logging.INFO, logger="games.turns.http_bots")
    bot = register("webhook", webhook_url=receiver.url, timeout_ms=300)
    receiver.respond = respond
    human = new_player("human")
    match = start(human, [{"bot": bot.id}, {"player": "me"}])
    play_until_the_bot_has_been_called(human, match, receiver.calls)
    fallbacks = list(Event.objects.filter(match_id=match["id"], type="bot_fallback").order_by("seq"))
    assert len(fallbacks) == len(receiver.calls), "each bad reply is replaced, and logged"
    fallback = fallbacks[0]
    assert fallback.seat == 0 and fallback.data["reason"] == reason and fallback.data["level"] == "level-2"
    assert fallback.data["detail"] == PUBLIC_DETAIL[reason], "the table is told the reason, not the reply"
    following = Event.objects.get(match_id=match["id"], seq=fallback.seq + 1)
    assert following.type in ("card_played", "bid", "pass", "trump_chosen") and following.seat == 0
    assert receiver.calls[0].payload["seq"] == fallback.seq - 1
    assert Match.objects.get(pk=match["id"]).turn == 1, "level-2 played for the bot until the human's turn"
    assert sorted(BotCall.objects.filter(bot_id=bot.id).values_list("outcome", flat=True)) == [reason] * len(fallbacks)
    stats = bot.owner.get(f"/api/v1/bots/{bot.id}/stats").json()
    assert stats["turns"] == stats["fallbacks"] == len(fallbacks)
    latest = stats["recent_fallbacks"][0]
    assert latest["outcome"] == reason and detail in latest["detail"], "the owner is told what went wrong"
    assert (latest["match_id"], latest["seq"]) == (match["id"], fallbacks[-1].seq - 1), "latest first"
    assert stats[{"error": "errors", "timeout": "timeouts", "illegal": "illegal"}[reason]] == len(fallbacks)
    if reason == "timeout":
        assert stats["latency_ms"]["p50"] >= 300
    logged = [
        r.getMessage() for r in caplog.records if r.name == "games.turns.http_bots" and "Bot fallback" in r.getMessage()
    ]
    assert len(logged) == len(fallbacks) and f"match {match['id']} at seq {fallback.seq - 1}" in logged[0]
    assert reason in logged[0], "the operator's log says what happened too"


def test_the_fallback_event_is_shown_to_the_players_and_kept_in_the_record(receiver: Receiver):
    bot = register("webhook", webhook_url=receiver.url)
    receiver.respond = lambda p: (200, b"nonsense", 0.0)
    human = new_player("human")
    match = start(human, [{"bot": bot.id}, {"player": "me"}])
    play_until_the_bot_has_been_called(human, match, receiver.calls)
    events = human.get(f"/api/v1/matches/{match['id']}/events").json()
    validate("Event", events, many=True)
    shown = [e for e in events if e["type"] == "bot_fallback"]
    assert len(shown) == len(receiver.calls) and shown[0]["data"]["reason"] == "error" and shown[0]["seat"] == 0


def test_an_unreachable_webhook_is_an_error_and_the_match_goes_on():
    bot = register("webhook", webhook_url="http://127.0.0.1:9/", timeout_ms=500)
    match = start(bot.owner, [{"bot": bot.id}, {"bot": "level-1"}])
    fallbacks = Event.objects.filter(match_id=match["id"], type="bot_fallback")
    assert fallbacks and all(f.data["reason"] == "error" for f in fallbacks)
    assert Match.objects.get(pk=match["id"]).status == "finished"
    assert bot.owner.get(f"/api/v1/bots/{bot.id}/stats").json()["errors"] == len(fallbacks)


def test_the_address_is_checked_again_at_each_call(receiver: Receiver, settings):
    """A bot registered while loopback webhooks were allowed is refused them once they are not:
    no call goes out, and each turn is an error replaced by a fallback."""
    bot = register("webhook", webhook_url=receiver.url)
    settings.BOT_WEBHOOK_ALLOW_PRIVATE = False
    match = start(bot.owner, [{"bot": bot.id}, {"bot": "level-1"}])
    assert Match.objects.get(pk=match["id"]).status == "finished" and not receiver.calls
    calls = BotCall.objects.filter(bot_id=bot.id)
    assert calls and all(c.outcome == "error" and "not a public address" in c.detail for c in calls)


def test_the_call_connects_to_the_address_that_was_checked(receiver: Receiver):
    """A name resolved and checked is not resolved again to connect (DNS rebinding): the call goes
    to the checked address, with the name in its Host header."""
    resolve, lookups = socket.getaddrinfo, []

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "bot.invalid":
            return resolve(host, port, *args, **kwargs)
        lookups.append(host)
        if len(lookups) > 1:
            raise socket.gaierror("now it resolves elsewhere")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    receiver.respond = lambda p: (200, b"{}", 0.0)
    port = receiver.server.server_port
    with mock.patch("socket.getaddrinfo", getaddrinfo):
        reply = webhooks.post(f"http://bot.invalid:{port}/turn", {"x": 1}, secret="s", timeout_ms=2000,
                              allow_private=True)  # fmt: skip
    assert reply.outcome == "ok", reply
    assert lookups == ["bot.invalid"] and receiver.calls[0].headers["Host"] == f"bot.invalid:{port}"


def test_a_webhook_url_that_cannot_be_sent_is_an_error_and_the_match_goes_on():
    """A URL from before registration refused non-ASCII ones (stored as it was): the call fails as an
    error, with a fallback, instead of raising and leaving the turn to be retried for ever."""
    bot = register("webhook", webhook_url="http://127.0.0.1:9/", timeout_ms=500)
    Bot.objects.filter(pk=bot.id).update(webhook_url="http://127.0.0.1:9/tüte")
    reply = webhooks.post("http://127.0.0.1:9/tüte", {}, secret="s", timeout_ms=500, allow_private=True)
    assert reply.outcome == "error"
    match = start(bot.owner, [{"bot": bot.id}, {"bot": "level-1"}])
    assert Match.objects.get(pk=match["id"]).status == "finished"
    assert Event.objects.filter(match_id=match["id"], type="bot_fallback").exists()


def test_a_delivery_for_a_seq_that_has_moved_on_does_nothing(receiver: Receiver):
    bot = register("webhook", webhook_url=receiver.url)
    human = new_player("human")
    match = start(human, [{"bot": bot.id}, {"player": "me"}])
    play_until_the_bot_has_been_called(human, match, receiver.calls)
    now = Match.objects.get(pk=match["id"])
    assert now.turn == 1
    calls, counted = len(receiver.calls), BotCall.objects.count()
    assert turns.turn_deliver(match_id=now.id, seq=now.seq) == "skipped", "not the bot's turn"
    assert turns.turn_deliver(match_id=now.id, seq=now.seq - 1) == "skipped", "an old seq"
    assert turns.turn_fallback(match_id=now.id, seq=now.seq - 1, reason="timeout") is False
    assert len(receiver.calls) == calls and BotCall.objects.count() == counted
    assert Match.objects.get(pk=now.id).seq == now.seq


def play_with_calls_made_by(post: Any, human: Any, bot: Any) -> tuple[dict[str, Any], mock.Mock]:
    """A match of the bot against the human, played by the human until the bot has been called once,
    with ``post`` standing in for the webhook call."""
    with mock.patch.object(webhooks, "post", side_effect=post) as called:
        match = start(human, [{"bot": bot.id}, {"player": "me"}])
        for _ in range(10):
            if called.called:
                break
            view = human.get(f"/api/v1/matches/{match['id']}").json()
            human.post(f"/api/v1/matches/{match['id']}/actions", view["legal_actions"][0])
    return match, called


def test_a_reply_that_comes_after_another_action_changes_nothing():
    """The match moves on while the bot thinks (here a fallback is played meanwhile): its reply is
    stale, changes nothing and is not counted against the bot."""
    bot = register("webhook", webhook_url="http://127.0.0.1:9/")
    human = new_player("human")

    def post(url: str, payload: dict[str, Any], **kwargs: Any) -> webhooks.Reply:
        turns.turn_fallback(match_id=payload["match_id"], seq=payload["seq"], reason="timeout")
        return webhooks.Reply("ok", 5, body=payload["legal_actions"][0])

    match, called = play_with_calls_made_by(post, human, bot)
    assert called.call_count == Event.objects.filter(match_id=match["id"], type="bot_fallback").count() >= 1
    assert not BotCall.objects.exists(), "a stale reply is not counted against the bot"


@pytest.mark.parametrize("outcome", ["timeout", "error"])
def test_a_failed_call_for_a_turn_taken_meanwhile_plays_and_counts_nothing(outcome):
    """The bot acts through the API while its call is in flight, then the call fails: no fallback
    is played for a turn already taken, and the failure is not counted against the bot."""
    bot = register("webhook", webhook_url="http://127.0.0.1:9/")
    human = new_player("human")

    def post(url: str, payload: dict[str, Any], **kwargs: Any) -> webhooks.Reply:
        action = {**payload["legal_actions"][0], "expected_seq": payload["seq"]}
        assert bot.bot.post(f"/api/v1/matches/{payload['match_id']}/actions", action).status_code == 200
        return webhooks.Reply(outcome, 2500, detail="no reply")

    match, called = play_with_calls_made_by(post, human, bot)
    assert called.called
    assert not Event.objects.filter(match_id=match["id"], type="bot_fallback").exists()
    assert not BotCall.objects.exists(), "the turn was taken: the failed call is not counted"


def test_a_reply_from_a_bot_that_turned_to_polling_during_the_call_counts_once():
    bot = register("webhook", webhook_url="http://127.0.0.1:9/")
    human = new_player("human")

    def post(url: str, payload: dict[str, Any], **kwargs: Any) -> webhooks.Reply:
        assert patch(bot.owner, f"/api/v1/bots/{bot.id}", {"delivery": "poll"}).status_code == 200
        return webhooks.Reply("ok", 5, body=payload["legal_actions"][0])

    match, called = play_with_calls_made_by(post, human, bot)
    assert called.call_count == 1
    assert Event.objects.filter(match_id=match["id"], seat=0, type="card_played").exists(), "the reply was played"
    assert list(BotCall.objects.values_list("outcome", flat=True)) == ["ok"], "one turn, counted once"


def start_with_lost_deliveries(human: Any, bot: Any) -> dict[str, Any]:
    """A match of the human against the bot, played by the human until the bot must act, while the
    broker loses every webhook call."""
    with mock.patch.object(turns, "_queue_delivery"):
        match = start(human, [{"bot": bot.id}, {"player": "me"}])
        for _ in range(10):
            view = human.get(f"/api/v1/matches/{match['id']}").json()
            if not view["legal_actions"]:
                break
            human.post(f"/api/v1/matches/{match['id']}/actions", view["legal_actions"][0])
    return match


def test_the_sweep_queues_webhook_turns_that_were_lost(receiver: Receiver):
    bot = register("webhook", webhook_url=receiver.url)
    human = new_player("human")
    match = start_with_lost_deliveries(human, bot)
    lost = Match.objects.get(pk=match["id"])
    assert lost.turn == 0 and not receiver.calls, "the bot waits for a lost call"
    assert turns.webhook_turns_sweep(idle_seconds=30) == 0, "not idle long enough"
    assert tasks.sweep_webhook_turns.apply().get() == 0
    assert turns.webhook_turns_sweep(idle_seconds=0) == 1
    assert len(receiver.calls) == 1 and receiver.calls[0].payload["seq"] == lost.seq
    assert Match.objects.get(pk=match["id"]).seq > lost.seq, "the bot's reply was played"


def test_a_reply_that_trickles_in_is_cut_off_once_the_timeout_is_past():
    """Each read has a timeout, and so does the whole call: a bot that sends a byte now and then
    does not hold the delivery. The bot sees the service hang up on it while it is still sending."""
    import socket as sockets
    import threading
    import time as clock

    from games.turns import webhooks as hooks

    server = sockets.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    sent: list[bytes] = []
    hung_up = threading.Event()

    def trickle() -> None:  # a byte every 0.1 s for 10 s, each well within the 0.5 s read timeout
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            for _ in range(100):
                try:
                    conn.sendall(b" ")
                except OSError:
                    hung_up.set()
                    return
                sent.append(b" ")
                clock.sleep(0.1)

    bot = threading.Thread(target=trickle, daemon=True)
    bot.start()
    reply = hooks.post(f"http://127.0.0.1:{server.getsockname()[1]}/", {"x": 1}, secret="s", timeout_ms=500,
                       allow_private=True)  # fmt: skip
    bot.join(15)
    server.close()
    assert reply.outcome == "timeout", reply
    assert reply.latency_ms >= 500, "the bot had its whole timeout"
    assert hung_up.is_set(), f"the bot sent all {len(sent)} bytes of its trickle: the call was not cut off"


def _service_event(match_id: str) -> None:
    """What the rooms app logs between moves (a seat disconnected): an event that is no action."""
    from django.utils import timezone

    from games.matches import records as adapter

    match = Match.objects.get(pk=match_id)
    Event.objects.bulk_create(adapter.event_rows(match, [{"type": "seat_disconnected", "seat": 1,
                                                          "data": {"grace_seconds": 60}}], timezone.now()))  # fmt: skip
    match.save(update_fields=["seq"])


def test_service_events_logged_while_the_bot_thinks_do_not_make_its_reply_stale():
    bot = register("webhook", webhook_url="http://127.0.0.1:9/")
    human = new_player("human")
    seen: list[int] = []

    def post(url: str, payload: dict[str, Any], **kwargs: Any) -> webhooks.Reply:
        seen.append(payload["seq"])
        _service_event(payload["match_id"])
        return webhooks.Reply("ok", 5, body=payload["legal_actions"][0])

    with mock.patch.object(webhooks, "post", side_effect=post):
        match = start(human, [{"bot": bot.id}, {"player": "me"}])
        play_until_the_bot_has_been_called(human, match, seen)
    assert seen
    outcomes = list(BotCall.objects.filter(bot_id=bot.id).values_list("outcome", flat=True))
    assert outcomes == ["ok"] * len(seen), "each reply was played although the seq had moved"
    first = Event.objects.get(match_id=match["id"], seq=seen[0] + 2)
    assert first.seat == 0 and first.type in ("card_played", "bid", "pass", "trump_chosen")


def test_a_delivery_queued_before_a_service_event_still_calls_the_bot(receiver: Receiver):
    bot = register("webhook", webhook_url=receiver.url)
    human = new_player("human")
    match = start_with_lost_deliveries(human, bot)
    queued = Match.objects.get(pk=match["id"])
    assert queued.turn == 0
    _service_event(match["id"])
    assert turns.turn_deliver(match_id=queued.id, seq=queued.seq) == "ok"
    assert receiver.calls[0].payload["seq"] == queued.seq + 1
    assert turns.turn_deliver(match_id=queued.id, seq=queued.seq + 50) == "skipped", "a seq from the future"
