"""A sign-up with an Idempotency-Key survives a lost answer: the retry gets the first answer, token included."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games.matches.idempotency import idempotency_records_purge
from players.models import Player, SignupAnswer
from tests.problems import problem

pytestmark = pytest.mark.django_db


def sign_up(username: object, key: str | None) -> object:
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return APIClient().post("/api/v1/players/", {"username": username}, format="json", **headers)


def test_a_retried_sign_up_gets_the_first_answer_and_its_token_works():
    key = str(uuid.uuid4())
    first = sign_up("ana", key)
    again = sign_up("ana", key)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert Player.objects.filter(username="ana").count() == 1
    me = APIClient().get("/api/v1/players/me", HTTP_AUTHORIZATION=f"Bearer {again.json()['token']}")
    assert me.status_code == 200 and me.json()["username"] == "ana"


def test_without_a_key_the_retry_finds_the_name_taken():
    assert sign_up("bea", None).status_code == 201
    problem(sign_up("bea", None), 409, "username_taken")


def test_the_key_with_another_sign_up_is_refused_and_creates_nothing():
    key = str(uuid.uuid4())
    assert sign_up("cai", key).status_code == 201
    problem(sign_up("dan", key), 422, "idempotency_key_reused")
    assert not Player.objects.filter(username="dan").exists()


def test_a_malformed_key_is_a_400_and_creates_nothing():
    problem(sign_up("eva", "é" * 3), 400, "invalid_idempotency_key")
    assert not Player.objects.filter(username="eva").exists()


def test_the_token_is_kept_sealed_and_the_key_itself_is_not_kept():
    key = str(uuid.uuid4())
    token = sign_up("fay", key).json()["token"]
    (row,) = SignupAnswer.objects.all()
    assert token not in row.sealed and key not in row.key_digest and key not in row.sealed


def test_a_name_taken_by_someone_else_is_still_a_409_with_a_key():
    assert sign_up("gus", None).status_code == 201
    problem(sign_up("gus", str(uuid.uuid4())), 409, "username_taken")
    assert not SignupAnswer.objects.exists()


def test_answers_are_forgotten_after_the_keys_lifetime(settings):
    key = str(uuid.uuid4())
    assert sign_up("hal", key).status_code == 201
    later = timezone.now() + timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS, minutes=1)
    assert idempotency_records_purge(now=later) == 1
    assert not SignupAnswer.objects.exists()
    problem(sign_up("hal", key), 409, "username_taken")
