"""The output serializers render the views of games.matches.bodies, their fields built once per class,
and as DRF's serializers render them."""

from __future__ import annotations

import copy
import random
import uuid

import pytest
from django.utils import timezone
from rest_framework import serializers

from games import engine
from games.matches.bodies import MatchView, match_view
from games.matches.models import Match
from games.matches.serializers import MatchSerializer, OutputSerializer


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


def _views_of_a_match(variant: str, seed: int) -> list[MatchView]:
    """Every seat's and a spectator's view after each move of a match that bots play out (at most 120 moves)."""
    rng = random.Random(seed)
    state = engine.new_match(variant, {}, seed=seed).state
    players = engine.view(state, None)["players"]
    match = _match(seed)
    match.variant, match.options, match.public = variant, state.options, True
    match.seating = [{"seat": n, "kind": "bot", "player": None, "bot": "level-1"} for n in range(players)]
    views = []
    for _ in range(120):
        match.state, match.turn, match.finished_at = engine.to_json(state), engine.current_seat(state), None
        views += [match_view(copy.copy(match), seat, spectator=seat is None) for seat in [None, *range(players)]]
        turn = engine.current_seat(state)
        if state.status != "active" or turn is None:
            break
        engine.push(state, turn, rng.choice(engine.view(state, turn)["legal_actions"]))
        match.seq += 1
    match.status, match.finished_at = "cancelled", timezone.now()
    return [*views, match_view(match, 0)]


def test_a_view_renders_as_drfs_serializer_renders_it_without_drfs_attribute_reads(monkeypatch):
    views = [view for n, variant in enumerate(sorted(engine.VARIANTS)) for view in _views_of_a_match(variant, n)]
    by_drf = [serializers.Serializer.to_representation(MatchSerializer(), view) for view in views]

    def read_by_drf(self, instance):
        raise AssertionError(f"DRF read the source of {self.field_name}")

    monkeypatch.setattr(serializers.Field, "get_attribute", read_by_drf)
    assert [MatchSerializer(view).data for view in views] == by_drf
    assert len({body["seq"] for body in by_drf}) > 100 and {b["status"] for b in by_drf} >= {"active", "cancelled"}


class _Sparse(OutputSerializer):
    there = serializers.IntegerField()
    optional = serializers.IntegerField(required=False)  # DRF leaves it out when its source is not there


class _Broken(OutputSerializer):
    missing = serializers.IntegerField()


def test_a_source_that_is_not_there_renders_or_fails_as_with_drf():
    assert _Sparse({"there": "7"}).data == {"there": 7}
    assert _Sparse({"there": 7, "optional": None}).data == {"there": 7, "optional": None}
    with pytest.raises(KeyError, match="missing"):
        _Broken({"other": 1}).data  # noqa: B018 - rendering is the test
