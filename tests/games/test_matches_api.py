"""Creating, joining, listing, cancelling and reading matches; who may see what; idempotency; limits."""

from __future__ import annotations

import importlib
import json
import uuid
from datetime import timedelta

import pytest
from django.apps import apps as django_apps
from django.test import override_settings
from django.utils import timezone

from games.matches import tasks
from games.matches.models import Event, Hand, IdempotencyRecord, Match, MatchStatus, Seat
from tests.problems import problem

from .helpers import Api, new_player
from .openapi import validate

pytestmark = pytest.mark.django_db

VS_BOTS = {"variant": "dos", "seed": 1, "seats": [{"player": "me"}, {"bot": "level-1"}]}


def create(api: Api, **body: object) -> object:
    return api.post("/api/v1/matches/", body)


# -- variants -------------------------------------------------------------------------------------


def test_variants_list_every_variant_with_its_options_and_needs_no_token():
    response = Api().get("/api/v1/variants/")
    assert response.status_code == 200
    variants = {v["name"]: v for v in response.json()}
    validate("Variant", response.json(), many=True)
    assert set(variants) == {"clasico", "cabron", "subastado", "dos", "individual", "subastado_parejas"}
    games = next(o for o in variants["clasico"]["options"] if o["name"] == "games_to_win")
    assert games["default"] == 4 and games["choices"] == list(range(1, 10)) and games["rule"] == "CL5"
    assert variants["cabron"]["players"] == [3, 4]


# -- creating -------------------------------------------------------------------------------------


def test_a_match_against_bots_starts_at_once():
    me = new_player()
    response = create(me, **VS_BOTS)
    assert response.status_code == 201
    body = response.json()
    validate("Match", body)
    assert body["status"] == "active" and body["invite_code"] is None
    assert body["seats"][1] == {"seat": 1, "kind": "bot", "player": None, "bot": "level-1"}
    assert body["seats"][0]["player"]["username"] == me.username
    assert len(body["my_hand"]) == 8 and body["hand"]["number"] == 1
    match = Match.objects.get(pk=body["id"])
    assert match.seq == body["seq"] >= 1 and match.state is not None and match.seed == 1


@pytest.mark.parametrize(
    "body, status, code, field",
    [
        ({"variant": "mus", "seats": []}, 422, "unknown_variant", "variant"),
        ({"variant": "clasico", "options": {"games_to_win": 10}, "seats": []}, 422, "invalid_option",
         "options.games_to_win"),
        ({"variant": "clasico", "options": {"games_to_win": "4"}, "seats": []}, 422, "invalid_option",
         "options.games_to_win"),
        ({"variant": "clasico", "options": {"speed": 2}, "seats": []}, 422, "invalid_option", "options.speed"),
        ({"variant": "cabron", "options": {"players": 5}, "seats": []}, 422, "invalid_option", "options.players"),
        ({"variant": "clasico", "seats": [{"player": "me"}]}, 422, "invalid_seats", "seats"),
        ({"variant": "dos", "seats": [{"player": "me"}, {"player": "me"}]}, 422, "invalid_seats", "seats"),
        ({"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-9"}]}, 422, "unknown_bot", "seats[1]"),
        ({"variant": "dos", "seats": [{"player": "me"}, {"bot": 3}]}, 422, "invalid_seats", "seats[1]"),
        ({"variant": "dos", "seats": [{"player": "me"}, {"open": False}]}, 422, "invalid_seats", "seats[1]"),
        ({"variant": "dos", "seats": [{"player": "ana"}, {"open": True}]}, 422, "invalid_seats", "seats[0]"),
        ({"variant": "dos", "seats": [{"player": "me"}, {"open": True, "bot": "level-1"}]}, 422, "invalid_seats",
         "seats[1]"),
        ({"variant": "dos", "seats": [{"player": "me"}, "bot"]}, 422, "invalid_seats", "seats[1]"),
    ],
)  # fmt: skip
def test_bad_match_specs_are_refused_naming_the_field(body, status, code, field):
    me = new_player()
    refused = problem(create(me, **body), status, code)
    assert refused["field"] == field
    assert not Match.objects.exists()


def test_a_wrong_number_of_seats_is_told_in_plain_words():
    refused = problem(create(new_player(), variant="clasico", seats=[{"player": "me"}]), 422, "invalid_seats")
    assert refused["detail"] == "A clasico match with these options has 4 seats, not 1."


@pytest.mark.parametrize(
    "body",
    [
        {"seats": []},
        {"variant": "dos"},
        {"variant": "dos", "seats": "me"},
        {"variant": "dos", "seed": -1, "seats": [{"player": "me"}, {"bot": "level-1"}]},
        {"variant": "dos", "seed": 2**70, "seats": [{"player": "me"}, {"bot": "level-1"}]},
        {"variant": "dos", "options": [], "seats": [{"player": "me"}, {"bot": "level-1"}]},
        {"variant": 5, "seats": [{"player": "me"}, {"bot": "level-1"}]},  # not a string: not "5"
    ],
)
def test_malformed_match_specs_are_400(body):
    problem(create(new_player(), **body), 400, "invalid")


def test_creating_needs_a_token():
    problem(create(Api(), **VS_BOTS), 401, "not_authenticated")


# -- joining --------------------------------------------------------------------------------------


def test_a_match_with_open_seats_waits_and_starts_when_the_last_seat_is_taken():
    host = new_player()
    created = create(host, variant="cabron", options={"players": 3, "letters": 1},
                     seats=[{"open": True}, {"player": "me"}, {"open": True}]).json()  # fmt: skip
    validate("Match", created)
    assert created["status"] == "waiting" and created["hand"] is None and created["my_hand"] == []
    assert created["my_seat"] == 1 and created["invite_code"] and created["seq"] == 0
    url = f"/api/v1/matches/{created['id']}"

    first = new_player()
    joined = first.post(f"{url}/join", {"invite_code": created["invite_code"]})
    assert joined.status_code == 200
    assert joined.json()["my_seat"] == 0 and joined.json()["status"] == "waiting"
    problem(first.post(f"{url}/join", {"invite_code": created["invite_code"]}), 409, "already_seated")

    second = new_player()
    hidden = problem(second.get(url), 404, "not_found")
    wrong = problem(second.post(f"{url}/join", {"invite_code": "wrong"}), 404, "not_found")
    assert wrong == hidden, "a wrong code answers as a GET of a match the caller cannot see: it exists or not"
    problem(second.post(f"{url}/join", {"invite_code": "é" * 3}), 404, "not_found")  # not a 500
    problem(host.post(f"{url}/join", {"invite_code": "wrong"}), 403, "invalid_invite_code")  # its creator sees it
    problem(second.post(f"{url}/join", {"invite_code": 1234}), 400, "invalid")  # not the string "1234"
    problem(second.post(f"{url}/join", {"invite_code": created["invite_code"], "seat": 1}), 409, "seat_taken")
    problem(second.post(f"{url}/join", {"invite_code": created["invite_code"], "seat": 3}), 422, "invalid_seats")
    as_read_out = created["invite_code"].upper()  # a code is taken in either case
    started = second.post(f"{url}/join", {"invite_code": as_read_out, "seat": 2}).json()
    assert started["status"] == "active" and started["my_seat"] == 2 and len(started["my_hand"]) == 12
    assert started["invite_code"] is None
    problem(first.post(f"{url}/join", {"invite_code": created["invite_code"]}), 409, "already_seated")

    late = new_player()
    problem(late.post(f"{url}/join", {"invite_code": created["invite_code"]}), 409, "match_not_waiting")
    problem(late.get(url), 404, "not_found")


def test_joining_a_match_that_does_not_exist_is_404():
    problem(new_player().post(f"/api/v1/matches/{uuid.uuid4()}/join", {"invite_code": "x"}), 404, "not_found")


def test_no_action_is_taken_while_the_match_waits():
    host = new_player()
    created = create(host, variant="dos", seats=[{"player": "me"}, {"open": True}]).json()
    problem(host.post(f"/api/v1/matches/{created['id']}/actions", {"type": "play", "card": "O1"}), 409,
            "match_not_active")  # fmt: skip


# -- cancelling -----------------------------------------------------------------------------------


def test_the_creator_may_cancel_a_waiting_match_and_then_read_its_record():
    host, guest = new_player(), new_player()
    created = create(host, variant="clasico", seats=[{"player": "me"}, {"open": True}, {"open": True},
                                                     {"bot": "level-2"}]).json()  # fmt: skip
    url = f"/api/v1/matches/{created['id']}"
    guest.post(f"{url}/join", {"invite_code": created["invite_code"]})
    problem(guest.post(f"{url}/cancel"), 403, "permission_denied")
    cancelled = host.post(f"{url}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    validate("Match", cancelled.json())
    problem(host.post(f"{url}/cancel"), 409, "match_not_waiting")
    problem(new_player().post(f"{url}/join", {"invite_code": created["invite_code"]}), 409, "match_not_waiting")
    events = guest.get(f"{url}/events").json()
    assert [e["type"] for e in events] == ["match_cancelled"]
    record = guest.get(f"{url}/record")
    assert record.status_code == 200 and record.json()["status"] == "cancelled"


def test_an_active_match_cannot_be_cancelled():
    host = new_player()
    created = create(host, **VS_BOTS).json()
    problem(host.post(f"/api/v1/matches/{created['id']}/cancel"), 409, "match_not_waiting")


# -- who sees what --------------------------------------------------------------------------------


def test_a_player_sees_and_acts_only_in_their_own_matches():
    owner, stranger = new_player(), new_player()
    created = create(owner, **VS_BOTS).json()
    url = f"/api/v1/matches/{created['id']}"
    for response in (
        stranger.get(url),
        stranger.get(f"{url}/events"),
        stranger.get(f"{url}/record"),
        stranger.post(f"{url}/actions", {"type": "play", "card": created["my_hand"][0]}),
        stranger.post(f"{url}/cancel"),
    ):
        problem(response, 404, "not_found")
    assert stranger.get("/api/v1/matches/").json()["count"] == 0


def test_a_creator_who_watches_cannot_act():
    host = new_player()
    created = create(host, variant="dos", seats=[{"open": True}, {"open": True}]).json()
    guests = [new_player(), new_player()]
    for guest in guests:
        guest.post(f"/api/v1/matches/{created['id']}/join", {"invite_code": created["invite_code"]})
    view = host.get(f"/api/v1/matches/{created['id']}").json()
    assert view["status"] == "active" and view["my_seat"] is None and view["my_hand"] == []
    problem(host.post(f"/api/v1/matches/{created['id']}/actions", {"type": "pass"}), 403, "not_seated")


def test_the_record_is_refused_until_the_match_is_over():
    me = new_player()
    created = create(me, **VS_BOTS).json()
    body = problem(me.get(f"/api/v1/matches/{created['id']}/record"), 403, "match_not_over")
    assert "over" in body["detail"]


def test_unknown_match_ids_are_404_and_malformed_ones_too():
    me = new_player()
    problem(me.get(f"/api/v1/matches/{uuid.uuid4()}"), 404, "not_found")
    response = me.get("/api/v1/matches/not-a-uuid")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


# -- the list -------------------------------------------------------------------------------------


def test_the_list_shows_the_callers_matches_filtered_and_paginated():
    me, other = new_player(), new_player()
    ids = [create(me, **VS_BOTS).json()["id"] for _ in range(3)]
    waiting = create(me, variant="clasico", seats=[{"player": "me"}, {"open": True}, {"bot": "level-1"},
                                                   {"bot": "level-1"}]).json()  # fmt: skip
    create(other, **VS_BOTS)
    everything = me.get("/api/v1/matches/").json()
    validate("MatchPage", everything)
    assert everything["count"] == 4
    assert {m["id"] for m in everything["results"]} == {*ids, waiting["id"]}
    assert me.get("/api/v1/matches/", {"status": "waiting"}).json()["results"][0]["id"] == waiting["id"]
    assert me.get("/api/v1/matches/", {"variant": "dos"}).json()["count"] == 3
    assert me.get("/api/v1/matches/", {"variant": "dos", "status": "finished"}).json()["count"] == 0
    page = me.get("/api/v1/matches/", {"page_size": 2, "page": 2}).json()
    assert page["count"] == 4 and len(page["results"]) == 2 and page["previous"]
    entry = next(m for m in everything["results"] if m["id"] == ids[0])
    assert entry["my_seat"] == 0 and entry["my_turn"] is (entry["turn"] == 0)
    assert "my_hand" not in entry and "hand" not in entry
    problem(me.get("/api/v1/matches/", {"status": "lost"}), 400, "invalid")
    unknown = problem(me.get("/api/v1/matches/", {"variant": "mus"}), 400, "invalid")
    assert "clasico" in json.dumps(unknown), "the error names the variants there are"
    problem(me.get("/api/v1/matches/", {"page": 9}), 404, "not_found")


# -- idempotency ----------------------------------------------------------------------------------


def test_a_retried_action_with_the_same_key_returns_the_first_answer_and_changes_nothing():
    me = new_player()
    created = create(me, variant="dos", seed=4, seats=[{"player": "me"}, {"open": True}]).json()
    other = new_player()
    other.post(f"/api/v1/matches/{created['id']}/join", {"invite_code": created["invite_code"]})
    view = me.get(f"/api/v1/matches/{created['id']}").json()
    me, view = (me, view) if view["legal_actions"] else (other, other.get(f"/api/v1/matches/{created['id']}").json())
    action = view["legal_actions"][0]
    url = f"/api/v1/matches/{created['id']}/actions"
    first = me.post(url, action, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == 200
    seq = Match.objects.get(pk=created["id"]).seq
    again = me.post(url, action, headers={"Idempotency-Key": "k-1"})
    assert again.status_code == 200 and again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Match.objects.get(pk=created["id"]).seq == seq
    assert Event.objects.filter(match_id=created["id"], type="card_played").count() == 1
    reused = problem(me.post(url, {"type": "pass"}, headers={"Idempotency-Key": "k-1"}), 422,
                     "idempotency_key_reused")  # fmt: skip
    assert "key" in reused["detail"]
    problem(me.post(url, action, headers={"Idempotency-Key": "é" * 3}), 400, "invalid_idempotency_key")
    assert IdempotencyRecord.objects.count() == 1


def test_a_retried_create_with_the_same_key_creates_one_match():
    me = new_player()
    first = me.post("/api/v1/matches/", VS_BOTS, headers={"Idempotency-Key": "create-1"})
    again = me.post("/api/v1/matches/", VS_BOTS, headers={"Idempotency-Key": "create-1"})
    assert first.status_code == again.status_code == 201
    assert first.json()["id"] == again.json()["id"]
    assert Match.objects.count() == 1 and Seat.objects.count() == 2
    other = new_player()  # keys belong to one player
    assert (
        other.post("/api/v1/matches/", VS_BOTS, headers={"Idempotency-Key": "create-1"}).json()["id"]
        != first.json()["id"]
    )


def test_answers_to_idempotency_keys_are_purged_after_their_lifetime(settings):
    settings.IDEMPOTENCY_KEY_HOURS = 24
    me = new_player()
    first = me.post("/api/v1/matches/", VS_BOTS, headers={"Idempotency-Key": "old"}).json()
    me.post("/api/v1/matches/", VS_BOTS, headers={"Idempotency-Key": "fresh"})
    IdempotencyRecord.objects.filter(key="old").update(created_at=timezone.now() - timedelta(hours=25))
    assert tasks.purge_idempotency_records() == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]
    again = me.post("/api/v1/matches/", VS_BOTS, headers={"Idempotency-Key": "old"}).json()
    assert again["id"] != first["id"], "a purged key is a new request"


# -- rate limits ----------------------------------------------------------------------------------


def test_too_many_requests_are_429_with_retry_after(settings):
    rates = {"anon": "2/min", "player": "3/min"}
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        me = new_player()
        for _ in range(3):
            assert me.get("/api/v1/matches/").status_code == 200
        limited = me.get("/api/v1/matches/")
        body = problem(limited, 429, "throttled")
        assert 1 <= int(limited["Retry-After"]) <= 60 and body["retry_after"] == int(limited["Retry-After"])
        anonymous = Api()
        assert anonymous.get("/api/v1/variants/").status_code == 200
        assert anonymous.get("/api/v1/variants/").status_code == 200
        problem(anonymous.get("/api/v1/variants/"), 429, "throttled")
        assert new_player().get("/api/v1/matches/").status_code == 200, "limits are per player"


def test_a_made_up_forwarded_for_header_does_not_escape_the_limit_per_address(settings):
    """Without a proxy the service trusts (NUM_PROXIES), X-Forwarded-For is the client's own word."""
    rates = {"anon": "2/min", "player": None}
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        anonymous = Api()
        answers = [anonymous.client.get("/api/v1/variants/", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}") for n in range(3)]
        assert [a.status_code for a in answers] == [200, 200, 429]


def test_behind_a_proxy_the_limit_is_per_address_that_the_proxy_saw(settings):
    rates = {"anon": "2/min", "player": None}
    rest = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates, "NUM_PROXIES": 1}
    with override_settings(REST_FRAMEWORK=rest):
        anonymous = Api()
        # The proxy appends the address it saw; whatever the client put before it is not believed.
        same = [anonymous.client.get("/api/v1/variants/", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, 203.0.113.7")
                for n in range(3)]  # fmt: skip
        assert [a.status_code for a in same] == [200, 200, 429]
        other = anonymous.client.get("/api/v1/variants/", HTTP_X_FORWARDED_FOR="203.0.113.8")
        assert other.status_code == 200


def test_requests_that_fail_to_authenticate_count_against_the_limit_per_address(settings):
    """A made-up token costs the service a lookup: such requests are counted like any without a player."""
    me = new_player()
    rates = {"anon": "3/min", "player": None}
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        guesser = Api("made-up-token")
        assert [guesser.get("/api/v1/players/me").status_code for _ in range(3)] == [401, 401, 401]
        assert problem(guesser.get("/api/v1/players/me"), 429, "throttled")["retry_after"] >= 1
        problem(Api().get("/api/v1/players/me"), 429, "throttled")  # no token, from the same address
        problem(Api().get("/api/v1/variants/"), 429, "throttled")  # the address's allowance is spent
        assert me.get("/api/v1/players/me").status_code == 200, "a player's requests count apart"


def test_statuses_of_matches_are_the_documented_ones():
    assert set(MatchStatus.values) == {"waiting", "active", "finished", "cancelled"}


def test_a_seat_count_the_variant_allows_with_another_option_says_which():
    me = new_player()
    seats = [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-1"}]
    refused = problem(me.post("/api/v1/matches/", {"variant": "individual", "seats": seats}), 422, "invalid_seats")
    assert "set options.players to 3" in refused["detail"]
    created = me.post("/api/v1/matches/", {"variant": "individual", "options": {"players": 3}, "seats": seats})
    assert created.status_code == 201
    four = problem(me.post("/api/v1/matches/", {"variant": "clasico", "seats": seats}), 422, "invalid_seats")
    assert "options.players" not in four["detail"], "clásico has no other seat count"


def test_every_hand_of_the_record_has_its_result_also_when_one_batch_dealt_and_ended_it():
    """Bots alone play the whole match in one task: each hand starts and ends in the same batch of events."""
    watcher = new_player()
    created = watcher.post("/api/v1/matches/", {"variant": "clasico", "options": {"games_to_win": 2}, "seed": 1,
                                                "seats": [{"bot": "level-2"}] * 4}).json()  # fmt: skip
    record = watcher.get(f"/api/v1/matches/{created['id']}/record").json()
    assert record["status"] == "finished" and len(record["hands"]) >= 2
    finished = {e["data"]["hand"]: e["data"] for e in record["events"] if e["type"] == "hand_finished"}
    assert [h["number"] for h in record["hands"]] == sorted(finished)
    for hand in record["hands"]:
        assert hand["result"] == finished[hand["number"]], hand["number"]
    assert Hand.objects.filter(match_id=created["id"], finished_seq__isnull=True).count() == 0


def test_a_migration_gives_the_hands_stored_without_their_result_the_result_in_the_log():
    watcher = new_player()
    created = watcher.post("/api/v1/matches/", {"variant": "dos", "options": {"games_to_win": 2}, "seed": 2,
                                                "seats": [{"bot": "level-1"}] * 2}).json()  # fmt: skip
    before = {h.number: (h.result, h.finished_seq) for h in Hand.objects.filter(match_id=created["id"])}
    Hand.objects.filter(match_id=created["id"]).update(result=None, finished_seq=None)
    migration = importlib.import_module("games.matches.migrations.0003_hand_results_from_the_log")
    migration.fill_in_results(django_apps, None)
    assert {h.number: (h.result, h.finished_seq) for h in Hand.objects.filter(match_id=created["id"])} == before
    assert all(result is not None for result, _ in before.values())


def test_the_rules_are_served_as_markdown_to_anyone_and_name_the_ids_problems_give():
    from rest_framework.test import APIClient

    from games.matches.apis import RULES_PATH

    answer = APIClient().get("/api/v1/rules")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/markdown")
    text = answer.content.decode()
    assert text == RULES_PATH.read_text() and "**C5 " in text and "- D4 " in text


def test_the_view_of_a_match_says_my_turn_updated_at_and_the_winning_seats_as_the_list_and_the_event_do():
    """The names of docs/clients.md: my_turn and updated_at as in the list, winner_seats as in match_finished."""
    me = new_player()
    created = create(me, variant="clasico", options={"games_to_win": 1},
                     seats=[{"player": "me"}, {"bot": "level-1"}, {"bot": "level-1"}, {"bot": "level-1"}]).json()
    url = f"/api/v1/matches/{created['id']}"
    listed = me.get("/api/v1/matches/").json()["results"][0]
    view = me.get(url).json()
    assert view["my_turn"] == listed["my_turn"] == (view["hand"]["turn"] == 0)
    assert view["updated_at"] == listed["updated_at"] and view["winner_seats"] is None
    while view["status"] == "active":
        assert view["my_turn"] and view["legal_actions"]
        assert me.post(f"{url}/actions", view["legal_actions"][0]).status_code == 200
        view = me.get(url).json()  # after the bots' turns, run in process once the action is committed
    assert not view["my_turn"] and view["winners"]
    finished = next(e for e in me.get(f"{url}/events", {"after": 0, "limit": 1000}).json()
                    if e["type"] == "match_finished")  # fmt: skip
    assert view["winner_seats"] == finished["data"]["winner_seats"]
    assert [s for s, side in enumerate(view["sides"]) if side in view["winners"]] == view["winner_seats"]
    assert me.get(f"{url}/record").json()["winner_seats"] == view["winner_seats"]
