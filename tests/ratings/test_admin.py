"""Ratings in the admin: listed and searchable, read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games.ratings.models import Rating
from players.models import Player

pytestmark = pytest.mark.django_db


def test_ratings_are_listed_read_only(client: Client) -> None:
    player = Player.objects.create(username="rated_ana")
    row = Rating.objects.create(player=player, variant="dos", rating=1612.5, deviation=70)
    User.objects.create_superuser("root", "root@example.com", "pw")
    client.login(username="root", password="pw")
    listing = client.get("/admin/ratings/rating/", {"q": "rated_ana"})
    assert listing.status_code == 200 and "rated_ana" in listing.content.decode()
    assert client.get("/admin/ratings/rating/add/").status_code == 403
    page = client.get(f"/admin/ratings/rating/{row.pk}/change/")
    assert page.status_code == 200 and 'name="rating"' not in page.content.decode()
