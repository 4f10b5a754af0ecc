"""The schema's examples of creating things are requests the service accepts, as configured by default."""

from __future__ import annotations

import socket
from typing import Any
from unittest import mock

import pytest
from django.db import transaction
from django.test import Client

from tests.games.helpers import new_player

pytestmark = pytest.mark.django_db


def _request_examples(client: Client) -> list[tuple[str, str, Any]]:
    schema = client.get("/api/schema/", {"format": "json"}).json()
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if not operation["operationId"].endswith("_create") or "{" in path:  # the rest need a match or room
                continue
            for content in operation.get("requestBody", {}).get("content", {}).values():
                for name, example in content.get("examples", {}).items():
                    found.append((f"{method.upper()} {path} {name}", path, example["value"]))
    return found


def test_every_example_of_creating_a_player_a_bot_a_match_or_a_room_is_accepted(client: Client, settings: Any):
    settings.SEEDS_AT_SHARED_TABLES = False
    examples = _request_examples(client)
    assert {"/api/v1/matches/", "/api/v1/players/", "/api/v1/bots/"} <= {path for _, path, _ in examples}
    public = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443))]  # bots.example.com, offline
    for name, path, body in examples:
        with transaction.atomic(), mock.patch("socket.getaddrinfo", return_value=public):
            answer = new_player().post(path, body)
            transaction.set_rollback(True)  # each example on its own: two may give one name
        assert answer.status_code in (200, 201), (name, answer.content)
