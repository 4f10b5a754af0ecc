"""The admin shows matches, their seats, hands and events, read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games.matches.models import Event, Match

from .helpers import new_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_(client: Client) -> Client:
    User.objects.create_superuser("root", "root@example.com", "pw")
    client.login(username="root", password="pw")
    return client


def test_matches_seats_and_events_are_shown_read_only(admin_client_: Client):
    me = new_player()
    created = me.post(
        "/api/v1/matches/", {"variant": "dos", "seed": 1, "seats": [{"player": "me"}, {"bot": "level-1"}]}
    )
    match = Match.objects.get(pk=created.json()["id"])
    listing = admin_client_.get("/admin/games/match/")
    assert listing.status_code == 200 and str(match.id) in listing.content.decode()
    page = admin_client_.get(f"/admin/games/match/{match.id}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "hand_started" in html and "level-1" in html and me.username in html
    assert 'name="_save"' not in html, "no save button: read-only"
    event = Event.objects.filter(match=match).first()
    assert admin_client_.get(f"/admin/games/event/{event.pk}/change/").status_code == 200
    assert admin_client_.get("/admin/games/match/add/").status_code == 403
    assert admin_client_.post(f"/admin/games/event/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin_client_.get("/admin/players/player/").status_code == 200
    assert admin_client_.post(f"/admin/players/player/{me.player.pk}/delete/", {"post": "yes"}).status_code == 403
