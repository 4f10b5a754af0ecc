"""Verifiable deals over HTTP (docs/RULES.md C12v, docs/fair-deals.md): the commitment from the creation,
the seats' client seeds, the record that reveals the key, ``manage.py verify_deals`` and the standalone
script; and nothing before the end of a match shows the key or anything derived from it."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import random
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from games import engine
from games.engine import fair_deals
from games.engine.cards import parse
from games.matches.models import Match
from tests.problems import problem

from .helpers import Api, Visibility, assert_events_no_leak, assert_no_leak, choose, new_player
from .openapi import validate

pytestmark = pytest.mark.django_db

SCRIPT = Path(__file__).parents[2] / "examples" / "verify_deals.py"
MATCHES = "/api/v1/matches/"
SHORT = {"games_to_win": 1}


def _play_out(me: Api, match: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    url = f"{MATCHES}{match['id']}"
    for _ in range(3000):
        view = me.get(url).json()
        if view["status"] == "finished":
            break
        assert me.post(f"{url}/actions", choose(rng, view["legal_actions"])).status_code == 200
    record = me.get(f"{url}/record")
    assert record.status_code == 200, record.content
    body: dict[str, Any] = record.json()
    validate("Record", body)
    return body


def _finished_record(variant: str = "dos", options: dict[str, Any] | None = None) -> dict[str, Any]:
    me = new_player()
    n = engine.player_count(variant, engine.validate_options(variant, options or SHORT))
    seats = [{"player": "me"}] + [{"bot": "level-1"}] * (n - 1)
    created = me.post(MATCHES, {"variant": variant, "options": options or SHORT, "seats": seats, "client_seed": "mine"})
    assert created.status_code == 201, created.content
    validate("Match", created.json())
    record = _play_out(me, created.json(), random.Random(1))
    assert record["deals"]["commitment"] == created.json()["deal_commitment"]
    return record


def _command(record: dict[str, Any], tmp_path: Path) -> str:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    out = StringIO()
    call_command("verify_deals", str(path), stdout=out)
    return out.getvalue()


def _script(record: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True, timeout=60)


def _refused(record: dict[str, Any], tmp_path: Path) -> None:
    """Both verifiers refuse the record."""
    with pytest.raises(CommandError, match="do NOT verify"):
        _command(record, tmp_path)
    assert _script(record, tmp_path).returncode == 1


@pytest.mark.parametrize("variant, options", [("dos", SHORT), ("cabron", {"players": 3, "letters": 1})])
def test_the_record_of_a_finished_match_reveals_what_verifies_every_deck(variant, options, tmp_path):
    record = _finished_record(variant, options)
    deals = record["deals"]
    assert hashlib.sha256(bytes.fromhex(deals["key"])).hexdigest() == deals["commitment"]
    assert deals["client_seeds"][0] == "mine" and deals["client_seeds"][1:] == [None] * (len(record["seats"]) - 1)
    assert deals["procedure"] == "tute-deals-v1"
    assert "OK" in _command(record, tmp_path)
    verified = _script(record, tmp_path)
    assert verified.returncode == 0 and verified.stdout.startswith("OK"), verified
    match = Match.objects.get(pk=record["id"])
    assert match.deal_key == deals["key"] and match.client_seeds == deals["client_seeds"]


def test_changing_any_card_of_any_deck_the_key_or_a_seed_fails_the_verification(tmp_path):
    record = _finished_record("dos", {"games_to_win": 2})
    hands = len(record["hands"])
    tampered = []
    for hand in range(hands):  # two cards of a hand's deck swapped: the deck of the hand and of its event
        changed = copy.deepcopy(record)
        deck = changed["hands"][hand]["deck"]
        deck[0], deck[-1] = deck[-1], deck[0]
        tampered.append(changed)
        changed = copy.deepcopy(record)
        event = [e for e in changed["events"] if e["type"] == "hand_started"][hand]
        event["data"]["deck"][5], event["data"]["deck"][6] = event["data"]["deck"][6], event["data"]["deck"][5]
        tampered.append(changed)
    for field, value in [("key", "00" * 32), ("commitment", hashlib.sha256(b"other").hexdigest())]:
        changed = copy.deepcopy(record)
        changed["deals"][field] = value
        tampered.append(changed)
    for seat, seed in [(0, "mine!"), (0, None), (1, "a seed the player never gave")]:
        changed = copy.deepcopy(record)
        changed["deals"]["client_seeds"][seat] = seed
        tampered.append(changed)
    changed = copy.deepcopy(record)
    changed["hands"][0]["dealer"] = 1 - changed["hands"][0]["dealer"]
    tampered.append(changed)
    for changed in tampered:
        _refused(changed, tmp_path)
    assert "OK" in _command(record, tmp_path), "the record itself still verifies"


def test_a_joiner_gives_a_seed_after_the_commitment_and_the_key_never_changes(tmp_path):
    host, guest = new_player("host"), new_player("guest")
    created = host.post(MATCHES, {"variant": "dos", "options": SHORT, "client_seed": "host's",
                                  "seats": [{"player": "me"}, {"open": True}]}).json()  # fmt: skip
    commitment = created["deal_commitment"]
    assert len(commitment) == 64 and int(commitment, 16) >= 0
    key = Match.objects.get(pk=created["id"]).deal_key
    joined = guest.post(f"{MATCHES}{created['id']}/join", {"invite_code": created["invite_code"], "client_seed": "g"})
    assert joined.status_code == 200 and joined.json()["deal_commitment"] == commitment
    assert Match.objects.get(pk=created["id"]).deal_key == key, "the key was drawn at the creation, once"
    apis = {0: host, 1: guest}
    rng = random.Random(2)
    url = f"{MATCHES}{created['id']}"
    for _ in range(3000):
        view = host.get(url).json()
        if view["status"] == "finished":
            break
        turn = view["hand"]["turn"]
        legal = apis[turn].get(url).json()["legal_actions"]
        assert apis[turn].post(f"{url}/actions", choose(rng, legal)).status_code == 200
    record = guest.get(f"{url}/record").json()
    assert record["deals"]["client_seeds"] == ["host's", "g"] and record["deals"]["key"] == key
    assert "OK" in _command(record, tmp_path)


def test_a_creator_may_give_their_seed_after_the_commitment_by_joining_their_own_open_seat():
    """The full guarantee for a match against bots (docs/fair-deals.md): the creator reads the commitment,
    then takes the seat with their seed; the match deals only then."""
    me = new_player()
    created = me.post(MATCHES, {"variant": "dos", "options": SHORT, "seats": [{"open": True}, {"bot": "level-1"}]})
    match = created.json()
    assert match["status"] == "waiting" and match["hand"] is None and len(match["deal_commitment"]) == 64
    joined = me.post(f"{MATCHES}{match['id']}/join", {"invite_code": match["invite_code"], "client_seed": "late"})
    assert joined.status_code == 200 and joined.json()["status"] == "active" and joined.json()["my_seat"] == 0
    stored = Match.objects.get(pk=match["id"])
    assert stored.client_seeds == ["late", None]
    assert stored.deal_commitment == match["deal_commitment"] == fair_deals.commitment(bytes.fromhex(stored.deal_key))
    order = [parse(c) for c in fair_deals.deck_order("dos", SHORT)]
    deck = fair_deals.deck_for(bytes.fromhex(stored.deal_key), ["late", None], 1, order)
    assert stored.hands.get(number=1).deck == [engine.CODES[c] for c in deck]


def test_a_client_seed_with_a_seed_or_without_a_seat_is_refused_and_nothing_is_created():
    me = new_player()
    body = {"variant": "dos", "client_seed": "x"}
    problem(me.post(MATCHES, {**body, "seed": 3, "seats": [{"player": "me"}, {"bot": "level-1"}]}), 422,
            "client_seed_not_allowed")  # fmt: skip
    watched = problem(me.post(MATCHES, {**body, "seats": [{"bot": "level-1"}, {"bot": "level-2"}]}), 422,
                      "client_seed_not_allowed")  # fmt: skip
    assert watched["field"] == "client_seed"
    for bad in ["", "x" * 65, "ñ", "tab\t", 5, None]:
        response = me.post(MATCHES, {**body, "client_seed": bad, "seats": [{"player": "me"}, {"bot": "level-1"}]})
        assert response.status_code == 400, (bad, response.content)
    assert not Match.objects.exists()


def test_a_seeded_match_keeps_its_deterministic_deals_and_has_no_commitment():
    me = new_player()
    created = me.post(MATCHES, {"variant": "dos", "options": SHORT, "seed": 7,
                                "seats": [{"player": "me"}, {"bot": "level-1"}]}).json()  # fmt: skip
    assert created["deal_commitment"] is None
    match = Match.objects.get(pk=created["id"])
    assert match.deal_key == "" and match.client_seeds == []
    expected = engine.new_match("dos", SHORT, seed=7).events[0]["data"]["deck"]
    assert match.hands.get(number=1).deck == expected
    record = _play_out(me, created, random.Random(3))
    assert record["deals"] is None


def _secrets_of(match: Match) -> list[str]:
    """The key in every spelling a body could carry it, and the secret derived from key and seeds."""
    key = bytes.fromhex(match.deal_key)
    mixed = fair_deals._mixed(key, match.client_seeds)
    spellings = [key.hex(), base64.b64encode(key).decode(), base64.urlsafe_b64encode(key).decode().rstrip("=")]
    return [*spellings, mixed.hex(), base64.b64encode(mixed).decode()]


def _assert_hidden(body: Any, secrets: list[str], what: str) -> None:
    text = json.dumps(body) if not isinstance(body, str | bytes) else str(body)
    for secret in secrets:
        assert secret.lower() not in text.lower(), f"{what} shows the deal key or what derives from it"


def test_nothing_before_the_end_of_a_match_shows_the_key_or_what_derives_from_it():
    """Every answer a seated player can get of a match in play: the view, the list, the events, the long
    polls, errors (not their turn, a card not held, a stale seq), the record and the replay refused."""
    host, guest = new_player("host"), new_player("guest")
    created = host.post(MATCHES, {"variant": "dos", "options": {"games_to_win": 2}, "client_seed": "h",
                                  "seats": [{"player": "me"}, {"open": True}]})  # fmt: skip
    match = created.json()
    joined = guest.post(f"{MATCHES}{match['id']}/join", {"invite_code": match["invite_code"], "client_seed": "g"})
    secrets = _secrets_of(Match.objects.get(pk=match["id"]))
    _assert_hidden(created.content, secrets, "the create answer")
    _assert_hidden(joined.content, secrets, "the join answer")
    url = f"{MATCHES}{match['id']}"
    apis = [host, guest]
    vis = Visibility(match["id"], 2)
    rng = random.Random(4)
    hands_seen = set()
    for _ in range(3000):
        views = [api.get(url).json() for api in apis]
        if views[0]["status"] == "finished":
            break
        vis.refresh()
        hands_seen.add(views[0]["hand"]["number"])
        seq = views[0]["seq"]
        for seat, api in enumerate(apis):
            answers = {
                "the view": api.get(url),
                "the list": api.get(MATCHES),
                "the events": api.get(f"{url}/events"),
                "the events' long poll": api.get(f"{url}/events", {"after": seq - 1, "wait": 5}),
                "the view's long poll": api.get(url, {"after": seq - 1, "wait": 5}),
                "the record": problem(api.get(f"{url}/record"), 403, "match_not_over"),
                "the replay": problem(api.get(f"{url}/replay", {"seq": 1}), 403, "match_not_over"),
                "a stale seq": api.post(f"{url}/actions", {"type": "play", "card": "O1", "expected_seq": seq + 9}),
            }
            if views[seat]["legal_actions"]:
                held = set(views[seat]["my_hand"])
                other = next(c for c in engine.CODES if c not in held)
                answers["a card not held"] = api.post(f"{url}/actions", {"type": "play", "card": other})
            else:
                answers["not their turn"] = api.post(f"{url}/actions", {"type": "pass"})
            for what, answer in answers.items():
                body = answer if isinstance(answer, dict) else answer.json()
                _assert_hidden(body, secrets, what)
                if what in ("the view", "the view's long poll"):
                    assert body["deal_commitment"] == match["deal_commitment"]
                    assert_no_leak(vis, seat, body, body["seq"], what)
                elif what.startswith("the events"):
                    assert_events_no_leak(vis, seat, body)
        turn = views[0]["hand"]["turn"]
        acted = apis[turn].post(f"{url}/actions", choose(rng, views[turn]["legal_actions"]))
        assert acted.status_code == 200
        _assert_hidden(acted.content, secrets, "an action's answer")
    assert len(hands_seen) >= 2, "a hand was dealt after the first, from the key, and did not show it either"
    record = host.get(f"{url}/record").json()
    assert record["deals"]["key"] == bytes.fromhex(record["deals"]["key"]).hex() and secrets[0] in json.dumps(record)


def test_a_cancelled_match_reveals_its_key_in_its_record_and_its_view_only_the_commitment():
    me = new_player()
    created = me.post(MATCHES, {"variant": "dos", "client_seed": "c", "seats": [{"player": "me"}, {"open": True}]})
    match = created.json()
    secrets = _secrets_of(Match.objects.get(pk=match["id"]))
    problem(me.get(f"{MATCHES}{match['id']}/record"), 403, "match_not_over")
    cancelled = me.post(f"{MATCHES}{match['id']}/cancel")
    _assert_hidden(cancelled.content, secrets, "the cancel answer")
    record = me.get(f"{MATCHES}{match['id']}/record").json()
    assert record["deals"]["key"] == secrets[0] and record["deals"]["client_seeds"] == ["c", None]
    assert record["hands"] == []


@pytest.mark.django_db(transaction=True)
@override_settings(STREAM_MAX_SECONDS=0.5, STREAM_KEEPALIVE_SECONDS=0.2)
def test_the_event_stream_of_a_match_in_play_shows_no_key():
    from tests.rooms.test_live import read_stream

    host, guest = new_player("host"), new_player("guest")
    seats = [{"player": "me"}, {"open": True}]
    match = host.post(MATCHES, {"variant": "dos", "client_seed": "h", "seats": seats}).json()
    guest.post(f"{MATCHES}{match['id']}/join", {"invite_code": match["invite_code"], "client_seed": "g"})
    secrets = _secrets_of(Match.objects.get(pk=match["id"]))
    for api in (host, guest):
        status, events, text = read_stream(api, f"{MATCHES}{match['id']}/stream")
        assert status == 200 and [e["event"] for e in events][:1] == ["hand_started"]
        _assert_hidden(text, secrets, "the event stream")
