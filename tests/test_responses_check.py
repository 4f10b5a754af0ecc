"""The check every test's answers go through (tests/responses.py): a body the schema documents passes; an
undocumented field, a wrong type, a null the schema does not admit or an undocumented status fails."""

from __future__ import annotations

import json

import jsonschema_rs
import pytest
from django.http import HttpResponse

from tests.games.helpers import new_player
from tests.responses import check

pytestmark = pytest.mark.django_db


def _answer(body: object, status: int = 200) -> HttpResponse:
    return HttpResponse(json.dumps(body), status=status, content_type="application/json")


def test_the_check_fails_an_answer_the_schema_does_not_document() -> None:
    me = new_player()
    seats = [{"player": "me"}, {"bot": "level-1"}]
    created = me.post("/api/v1/matches/", {"variant": "dos", "seed": 3, "seats": seats})
    path = f"/api/v1/matches/{created.json()['id']}"
    view = me.get(path).json()
    check("GET", path, _answer(view))  # what the service answered passes
    for wrong in ({**view, "deck": ["O1"]}, {**view, "seq": "7"}, {**view, "variant": None}):
        with pytest.raises(jsonschema_rs.ValidationError, match=r"deck|\"7\"|null|None"):
            check("GET", path, _answer(wrong))
    with pytest.raises(AssertionError, match="does not document"):
        check("GET", path, _answer(view, status=418))
