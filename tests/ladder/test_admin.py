"""The ladder in the admin: runs with their matches, and the best scores, read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.games.helpers import new_player

from .helpers import SEEDS, play_match, seeded, start

pytestmark = pytest.mark.django_db


def test_runs_and_best_scores_are_shown_read_only_in_the_admin(client: Client):
    me = new_player()
    with seeded(SEEDS):
        run = start(me)
        play_match(me, run["match"]["id"])
    User.objects.create_superuser("root", "root@example.com", "pw")
    client.login(username="root", password="pw")
    listing = client.get("/admin/ladder/ladderrun/")
    assert listing.status_code == 200 and run["id"] in listing.content.decode()
    page = client.get(f"/admin/ladder/ladderrun/{run['id']}/change/")
    assert page.status_code == 200 and run["match"]["id"] in page.content.decode()
    assert 'name="_save"' not in page.content.decode()
    assert client.get("/admin/ladder/ladderbest/").status_code == 200
    assert client.get("/admin/ladder/ladderrun/add/").status_code == 403
    assert client.post(f"/admin/ladder/ladderrun/{run['id']}/delete/", {"post": "yes"}).status_code == 403
