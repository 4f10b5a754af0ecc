"""A phone or a browser meets the development server: host names, refusals and CORS."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tute_api.hosts import EMULATOR_HOSTS, development_hosts


def test_development_answers_to_the_emulators_loopback_and_this_machine():
    hosts = development_hosts()
    assert set(EMULATOR_HOSTS) <= set(hosts) and "127.0.0.1" in hosts and ".local" in hosts


@pytest.mark.django_db
def test_the_android_emulators_host_reaches_the_api(settings: Any):
    settings.ALLOWED_HOSTS = development_hosts()
    answer = Client(HTTP_HOST="10.0.2.2:8000").get("/api/v1/variants/")
    assert answer.status_code == 200


@pytest.mark.django_db
def test_a_host_the_service_does_not_answer_to_is_a_problem_not_html(settings: Any):
    settings.ALLOWED_HOSTS = ["api.example.com"]
    settings.DEBUG = True  # Django's own answer would be its HTML debug page
    answer = Client(HTTP_HOST="evil.example.net").get("/api/v1/variants/")
    assert answer.status_code == 400 and answer["Content-Type"] == "application/problem+json"
    assert answer.json()["code"] == "disallowed_host" and "ALLOWED_HOSTS" in answer.json()["detail"]


@pytest.mark.django_db
def test_cors_is_closed_by_default(client: Any):
    preflight = client.options(
        "/api/v1/matches/", HTTP_ORIGIN="https://play.example.com", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
    )
    assert "access-control-allow-origin" not in {k.lower() for k in preflight.headers}


@pytest.mark.django_db
def test_a_listed_origins_preflight_is_answered_before_authentication(client: Any, settings: Any):
    settings.CORS_ALLOWED_ORIGINS = ["https://play.example.com"]
    preflight = client.options(
        "/api/v1/matches/",
        HTTP_ORIGIN="https://play.example.com",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type, idempotency-key",
    )
    assert preflight.status_code == 200, "no token needed for a preflight"
    assert preflight["Access-Control-Allow-Origin"] == "https://play.example.com"
    allowed = {h.strip() for h in preflight["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key"} <= allowed
    answer = client.get("/api/v1/variants/", HTTP_ORIGIN="https://play.example.com")
    assert answer["Access-Control-Allow-Origin"] == "https://play.example.com"
    assert "Retry-After" in answer["Access-Control-Expose-Headers"]
    other = client.get("/api/v1/variants/", HTTP_ORIGIN="https://elsewhere.example.org")
    assert "Access-Control-Allow-Origin" not in other
