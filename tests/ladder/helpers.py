"""Helpers of the ladder tests: seeded ladder matches, and a human who plays them over HTTP."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from unittest import mock

from games.ladder import services
from tests.games.helpers import Api
from tests.games.openapi import validate

#: Seeds of the matches 1 to 5 of a run under which :func:`play_match` wins the first four (against
#: level-1 to level-4, the deal alternating) and loses the fifth (level-4), with these margins.
SEEDS = (1, 3, 0, 1, 0)
MARGINS = (12, 4, 28, 4, -78)

MAX_STEPS = 200


@contextmanager
def seeded(seeds: Sequence[int]) -> Iterator[None]:
    """Ladder matches dealt from ``seeds``, one per match number (1 for the first)."""
    with mock.patch.object(services, "match_seed", lambda run, number: seeds[number - 1]):
        yield


def play_match(api: Api, match_id: str) -> dict[str, Any]:
    """Play the caller's seat to the end over HTTP, always the first legal action; the final view."""
    url = f"/api/v1/matches/{match_id}"
    for _ in range(MAX_STEPS):
        view = api.get(url).json()
        validate("Match", view)
        if view["status"] != "active":
            return dict(view)
        assert view["legal_actions"], "a ladder match waits for the player alone (the bot plays at once)"
        action = {**view["legal_actions"][0], "expected_seq": view["seq"]}
        played = api.post(f"{url}/actions", action)
        assert played.status_code == 200, played.content
    raise AssertionError("the match did not end")


def current(api: Api) -> dict[str, Any]:
    response = api.get("/api/v1/ladder/runs/current")
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    validate("LadderRun", body)
    return body


def start(api: Api, headers: dict[str, str] | None = None) -> dict[str, Any]:
    response = api.post("/api/v1/ladder/runs/", headers=headers)
    assert response.status_code == 201, response.content
    body: dict[str, Any] = response.json()
    validate("LadderRun", body)
    return body
