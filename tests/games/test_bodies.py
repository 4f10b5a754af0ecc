"""The output serializers render the views of games.matches.bodies, their fields built once per class."""

from __future__ import annotations

import uuid

from django.utils import timezone

from games import engine
from games.matches.bodies import match_view
from games.matches.models import Match
from games.matches.serializers import MatchSerializer


def _match(seed: int) -> Match:
    step = engine.new_match("dos", {"games_to_win": 1}, seed=seed)
    now = timezone.now()
    seating = [{"seat": n, "kind": "bot", "player": None, "bot": "level-1"} for n in range(2)]
    match = Match(id=uuid.uuid4(), variant="dos", options=step.state.options, status="active", seq=seed,
                  seating=seating, created_at=now, updated_at=now, started_at=now)  # fmt: skip
    match.state = engine.to_json(step.state)
    return match


def test_the_fields_are_built_once_and_each_answer_has_its_own_values():
    first, second = _match(1), _match(2)
    a = MatchSerializer(match_view(first, 0)).data
    b = MatchSerializer(match_view(second, 1)).data
    assert MatchSerializer().fields is MatchSerializer().fields
    assert (a["id"], a["seq"], a["my_seat"]) == (str(first.id), 1, 0)
    assert (b["id"], b["seq"], b["my_seat"]) == (str(second.id), 2, 1)
    assert a["my_hand"] == engine.view(engine.from_json(first.state), 0)["my_hand"]
    assert b["hand"] == engine.view(engine.from_json(second.state), 1)["hand"], "the engine's view, as it is"


def test_a_match_not_dealt_shows_no_hand_and_no_actions():
    match = _match(3)
    match.state, match.status = None, "waiting"
    body = MatchSerializer(match_view(match, 0)).data
    assert body["hand"] is None and body["legal_actions"] == [] and body["my_hand"] == []
    assert body["scoreboard"] == [0, 0] and body["started_at"] is not None
