"""Manual declarations over HTTP (docs/RULES.md C10m): the declaration turn, its actions, the record,
the turn clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import TestCase
from django.utils import timezone

from games import engine
from games.bots.declarations import as_the_table
from games.matches.models import Event, Match
from games.turns import presence
from games.turns.models import Presence

from .helpers import Table, human_table, new_player
from .openapi import validate

pytestmark = pytest.mark.django_db

MANUAL = {"games_to_win": 1, "declarations": "manual"}


def to_a_declaration(table: Table) -> dict[str, Any]:
    """Play the first legal action until a seat is to declare; that seat's view."""
    for _ in range(200):
        views = map(table.view, range(len(table.seats)))
        view = next(v for v in views if v["legal_actions"] or v["status"] != "active")
        assert view["status"] == "active", "the match ended with no declaration turn"
        if view["hand"]["phase"] == "declare":
            return view
        acted = table.seats[view["my_seat"]].post(table.url("/actions"), view["legal_actions"][0])
        assert acted.status_code == 200, acted.content
    raise AssertionError("no declaration turn")


def test_C10m_a_declaration_turn_over_http() -> None:
    table = human_table("dos", MANUAL, seed=3)
    view = to_a_declaration(table)
    validate("Match", view)
    seat = view["my_seat"]
    legal = view["legal_actions"]
    assert legal[-1] == {"type": "pass"} and {a["type"] for a in legal} <= {"sing", "tute", "exchange", "pass"}
    others = [table.view(s) for s in range(2) if s != seat]
    assert all(v["legal_actions"] == [] and v["hand"]["phase"] == "declare" for v in others)
    wrong = next({"type": "sing", "suit": s} for s in "OCEB" if {"type": "sing", "suit": s} not in legal)
    refused = table.seats[seat].post(table.url("/actions"), wrong)
    assert refused.status_code == 422
    assert (refused.json()["code"], refused.json()["rule"]) == ("cannot_declare", "C10m")
    missing = table.seats[seat].post(table.url("/actions"), {"type": "sing"})
    assert missing.status_code == 400
    action = as_the_table(view)
    acted = table.seats[seat].post(table.url("/actions"), {**action, "expected_seq": view["seq"]})
    assert acted.status_code == 200, acted.content
    validate("Match", acted.json())
    events = table.seats[seat].get(table.url("/events"), {"after": view["seq"]}).json()
    validate("Event", events, many=True)
    kind = {"sing": "canto", "tute": "tute", "exchange": "exchange", "pass": "pass"}[action["type"]]
    assert events[0]["type"] == kind and events[0]["seat"] == seat
    if kind != "pass":
        assert events[0]["data"]["declared"] is True


def test_C10m_a_manual_record_lists_the_declarations_and_replays() -> None:
    table = human_table("dos", MANUAL, seed=3)
    declared = 0
    for _ in range(400):
        view = next(v for v in map(table.view, range(2)) if v["legal_actions"] or v["status"] != "active")
        if view["status"] != "active":
            break
        action = as_the_table(view) if view["hand"]["phase"] == "declare" else view["legal_actions"][0]
        declared += view["hand"]["phase"] == "declare"
        assert table.seats[view["my_seat"]].post(table.url("/actions"), action).status_code == 200
    assert declared
    record = table.seats[0].get(table.url("/record"))
    assert record.status_code == 200
    body = record.json()
    validate("Record", body)
    actions = [a["action"]["type"] for a in body["actions"]]
    assert {"sing", "exchange", "pass"} & set(actions)
    log = [{"type": e["type"], "seat": e["seat"], "data": e["data"]} for e in body["events"]]
    rebuilt = engine.replay(body["variant"], body["options"], log)
    assert {**engine.to_json(rebuilt.state), "seed": None} == {**Match.objects.get(pk=body["id"]).state, "seed": None}


def a_key_dealing_a_declaration_turn(options: dict[str, Any]) -> bytes:
    """A deal key (C12v) whose deals, played by first legal actions, come to a declaration turn: a room's
    match has no seed, so the test fixes its key instead."""
    for n in range(500):
        key = n.to_bytes(32, "big")
        state = engine.new_match("dos", options, deal_key=key, client_seeds=[None, None]).state
        while state.status == "active" and state.phase != "declare":
            seat = engine.current_seat(state)
            assert seat is not None
            engine.push(state, seat, engine.legal_actions(state, seat)[0])
        if state.status == "active":
            return key
    raise AssertionError("no key of the first 500 deals a declaration turn")


def test_C10m_a_turn_clock_that_runs_out_on_a_declaration_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    key = a_key_dealing_a_declaration_turn({"declarations": "manual"})
    monkeypatch.setattr(engine.fair_deals, "new_key", lambda: key)
    host, friend = new_player("host"), new_player("friend")
    spec = {"variant": "dos", "options": {"declarations": "manual"}, "table_options": {"turn_seconds": 5}}
    room = host.post("/api/v1/rooms/", spec).json()
    friend.post("/api/v1/rooms/join", {"code": room["code"]})
    started = host.post(f"/api/v1/rooms/{room['id']}/start").json()
    table = Table(started["match"]["id"], [host, friend])
    assert [table.view(s)["my_seat"] for s in (0, 1)] == [0, 1]  # members sit in the order they joined
    view = to_a_declaration(table)
    match = Match.objects.get(pk=table.match_id)
    later = timezone.now() + timedelta(seconds=6)
    Presence.objects.filter(match_id=match.pk).update(last_seen=later)
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert presence.sweep(now=later)["clock_moves"] == 1
    rows = list(Event.objects.filter(match_id=match.pk, seq__gt=match.seq).order_by("seq"))
    assert rows[0].type == "turn_timed_out" and rows[0].data["action"] == {"type": "pass"}
    assert (rows[1].type, rows[1].seat) == ("pass", view["my_seat"])
