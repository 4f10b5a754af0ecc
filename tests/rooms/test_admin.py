"""Rooms in the admin: listed with their members; tables and presence shown read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.games.helpers import new_player

pytestmark = pytest.mark.django_db


def test_rooms_members_tables_and_presence_are_in_the_admin(client: Client):
    host, friend = new_player("host"), new_player("friend")
    room = host.post("/api/v1/rooms/", {"variant": "dos"}).json()
    friend.post("/api/v1/rooms/join", {"code": room["code"]})
    host.post(f"/api/v1/rooms/{room['id']}/start")
    User.objects.create_superuser("root", "root@example.com", "pw")
    client.login(username="root", password="pw")
    listing = client.get("/admin/rooms/room/")
    assert listing.status_code == 200 and room["code"] in listing.content.decode()
    page = client.get(f"/admin/rooms/room/{room['id']}/change/")
    assert page.status_code == 200 and friend.username in page.content.decode()
    assert client.get("/admin/turns/table/").status_code == 200
    assert client.get("/admin/turns/presence/").status_code == 200
    for model in ("table", "presence"):  # the service's records, shown read-only
        assert client.get(f"/admin/turns/{model}/add/").status_code == 403
        row = client.get(f"/admin/turns/{model}/").context["cl"].result_list[0]
        page = client.get(f"/admin/turns/{model}/{row.pk}/change/")
        assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
        assert client.post(f"/admin/turns/{model}/{row.pk}/delete/", {"post": "yes"}).status_code == 403
