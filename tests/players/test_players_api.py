"""Players over HTTP: create one, get its token once, authenticate with it, rotate it."""

from __future__ import annotations

import hashlib

import pytest
from rest_framework.test import APIClient

from players.models import Player, Token
from tests.problems import problem

pytestmark = pytest.mark.django_db


def create(client: APIClient, username: object) -> object:
    return client.post("/api/v1/players/", {"username": username}, format="json")


def test_creating_a_player_returns_its_token_once_and_stores_only_its_digest():
    client = APIClient()
    response = create(client, "ana")
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "username", "token", "created_at"}
    assert body["username"] == "ana"
    stored = Token.objects.get(player_id=body["id"])
    assert stored.digest == hashlib.sha256(body["token"].encode()).hexdigest()
    assert body["token"] not in stored.digest


def test_the_token_authenticates_as_a_bearer_token():
    token = create(APIClient(), "bea").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    response = client.get("/api/v1/players/me")
    assert response.status_code == 200
    assert response.json()["username"] == "bea"


@pytest.mark.parametrize("name", ["Ana", "ANA", "ana"])
def test_usernames_are_unique_regardless_of_case(name):
    assert create(APIClient(), "ana").status_code == 201
    problem(create(APIClient(), name), 409, "username_taken")
    assert Player.objects.count() == 1


@pytest.mark.parametrize("name", ["", "ab", "a" * 31, "ana maría", "-ana", "ana\x00", 42, 1234, None, ["ana"]])
def test_bad_usernames_are_refused_with_400(name):
    body = problem(create(APIClient(), name), 400, "invalid")
    assert "username" in body["errors"]
    assert not Player.objects.exists()


def test_a_refused_username_is_told_what_a_username_is():
    body = problem(create(APIClient(), "ab"), 400, "invalid")
    assert body["errors"]["username"] == ["A username is 3–30 letters, digits, underscores, dots or hyphens, "
                                          "starting with a letter or digit."]  # fmt: skip


def test_bad_json_is_a_400_parse_error():
    response = APIClient().generic("POST", "/api/v1/players/", b"{not json", content_type="application/json")
    problem(response, 400, "parse_error")


@pytest.mark.parametrize(
    "header, code",
    [
        (None, "not_authenticated"),
        ("Bearer", "authentication_failed"),
        ("Bearer not-a-token", "authentication_failed"),
        ("Bearer a b", "authentication_failed"),
        ("Bearer " + "x" * 500, "authentication_failed"),
        ("Basic YW5hOmFuYQ==", "not_authenticated"),
    ],
)
def test_missing_or_bad_tokens_are_401(header, code):
    client = APIClient()
    if header:
        client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/v1/players/me")
    problem(response, 401, code)
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_rotating_the_token_revokes_the_old_one():
    old = create(APIClient(), "cai").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {old}")
    rotated = client.post("/api/v1/players/me/token")
    assert rotated.status_code == 201
    new = rotated.json()["token"]
    assert new != old
    problem(client.get("/api/v1/players/me"), 401, "authentication_failed")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {new}")
    assert client.get("/api/v1/players/me").status_code == 200
