"""Unknown paths under /api/ answer problem details, whatever DEBUG says and whatever the method."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_an_unknown_api_path_is_a_json_404(client: Client, settings, debug: bool, method: str) -> None:
    settings.DEBUG = debug
    response = getattr(client, method)("/api/v1/nothing/here", content_type="application/json")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize("debug", [True, False])
def test_a_route_without_its_trailing_slash_is_named_not_redirected(client: Client, settings, debug: bool) -> None:
    settings.DEBUG = debug
    response = client.post("/api/v1/players", {"username": "ana"}, content_type="application/json")
    assert response.status_code == 404
    assert "/api/v1/players/" in response.json()["detail"]
    assert client.get("/api/v1/variants").json()["detail"].endswith("(with the trailing slash).")


@pytest.mark.django_db  # the presence middleware looks the match up
def test_a_route_with_an_extra_trailing_slash_is_named_too(client: Client) -> None:
    match = "/api/v1/matches/0b9d6c8e-5a53-4f0e-9a36-2f1d7c4e8a11"
    response = client.get(f"{match}/actions/")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert response.json()["detail"] == f"No route {match}/actions/; the route is {match}/actions (without the " \
        "trailing slash)."
    assert client.get("/api/v1/nothing/").json()["detail"] == "Not found."


@pytest.mark.django_db
def test_a_404_outside_drf_is_written_as_drf_writes_its_problems(client: Client) -> None:
    """Same bytes for the same problem: compact JSON, UTF-8 as is, whichever layer answers."""
    outside = client.get("/api/v1/rooms/not-a-uuid")  # no route: Django's JSON 404
    inside = client.get("/api/v1/matches/00000000-0000-0000-0000-000000000000")  # DRF: no token, 401
    assert outside.status_code == 404 and inside.status_code == 401
    for response in (outside, inside):
        assert b'", "' not in response.content and b'": ' not in response.content, response.content


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/matches/0b9d6c8e-5a53-4f0e-9a36-2f1d7c4e8a11",
        "/api/v1/matches/0b9d6c8e-5a53-4f0e-9a36-2f1d7c4e8a11/events",
        "/api/v1/matches/0b9d6c8e-5a53-4f0e-9a36-2f1d7c4e8a11/stream",
        "/api/v1/me/turns",
        "/api/v1/me/notices",
        "/api/v1/me/notices/stream",
        "/api/v1/matches/0b9d6c8e-5a53-4f0e-9a36-2f1d7c4e8a11/actions",
    ],
)
def test_the_waits_and_the_actions_resolve_past_few_patterns(path: str) -> None:
    """A request keeps every pattern its path passed (``resolver_match.tried``) as long as it lives: a
    wait, through its whole wait. The API's routes are one list, the waits' and the actions' first
    (tute_api/urls.py); with an ``include`` per package, a match's long poll passed 21 (in 76 lists),
    a player's 42."""
    from django.urls import resolve

    assert len(resolve(path).tried) < 20


def test_no_two_api_routes_match_one_path() -> None:
    """The API's routes are one list in the order that suits the waits (tute_api/urls.py): that order must
    not decide which view answers a path."""
    import re

    from tute_api.urls import api_v1_urlpatterns

    samples = {"uuid": "0b9d6c8e-5a53-4f0e-9a36-2f1d7c4e8a11", "str": "clasico", "int": "7"}
    for route in api_v1_urlpatterns:
        path = re.sub(r"<(\w+):\w+>", lambda m: samples[m.group(1)], str(route.pattern))  # type: ignore[attr-defined]
        matching = [other.name for other in api_v1_urlpatterns if other.resolve(path)]  # type: ignore[attr-defined]
        assert matching == [route.name], (path, matching)  # type: ignore[attr-defined]
