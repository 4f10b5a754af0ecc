"""Helpers of the games API tests: a client per player, tables of humans, and the leak checker."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from django.test import TestCase
from rest_framework.test import APIClient

from games import engine
from games.matches.models import Event
from players.services import player_create

CARD = re.compile(r"\b[OCEB](?:1[0-2]|[1-7])\b")

#: Every variant and player count, with options that keep full matches short.
SHORT_MATCHES: list[tuple[str, dict[str, Any]]] = [
    ("clasico", {"games_to_win": 1}),
    ("cabron", {"players": 3, "letters": 1}),
    ("cabron", {"players": 4, "letters": 1}),
    ("subastado", {"target": 500}),
    ("dos", {"games_to_win": 1}),
    ("dos", {"games_to_win": 1, "hand_size": 6}),
    ("individual", {"players": 3, "games_to_win": 1}),
    ("individual", {"players": 4, "games_to_win": 1}),
    ("subastado_parejas", {"target": 500}),
    ("clasico", {"games_to_win": 1, "declarations": "manual"}),  # C10m: the players declare
    ("dos", {"games_to_win": 1, "declarations": "manual"}),
]


def seats_of(variant: str, options: dict[str, Any]) -> int:
    return engine.new_match(variant, options, seed=0).state.players


def short_id(variant: str, options: dict[str, Any]) -> str:
    return variant + "".join(f"-{k}{v}" for k, v in options.items() if k in ("players", "hand_size", "declarations"))


class Api:
    """A player's HTTP client. Each request runs the callbacks it queues on commit (the bot turns,
    in process) as a real commit would, although the test's transaction never commits."""

    def __init__(self, token: str | None = None, username: str | None = None):
        self.client = APIClient(enforce_csrf_checks=True)  # as a real client: no CSRF token
        self.username = username
        self.token = token
        if token:
            self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")

    def get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        with TestCase.captureOnCommitCallbacks(execute=True):
            return self.client.get(path, params or {})

    def post(self, path: str, body: Any = None, headers: dict[str, str] | None = None, raw: bytes | None = None) -> Any:
        with TestCase.captureOnCommitCallbacks(execute=True):
            if raw is not None:
                return self.client.generic("POST", path, raw, content_type="application/json", headers=headers)
            return self.client.post(path, body, format="json", headers=headers)


_counter = iter(range(10**9))


def new_player(prefix: str = "player") -> Api:
    username = f"{prefix}{next(_counter)}"
    player, token = player_create(username=username)
    api = Api(token, username)
    api.player = player  # type: ignore[attr-defined]
    return api


def against_a_bot(prefix: str, seed: int) -> tuple[Api, str, dict[str, Any]]:
    """A new player's ``dos`` match against a level-1 bot: the player, the match's URL, the view once it
    is the player's turn."""
    player = new_player(prefix)
    seats = [{"player": "me"}, {"bot": "level-1"}]
    created = player.post("/api/v1/matches/", {"variant": "dos", "seed": seed, "seats": seats})
    assert created.status_code == 201, created.content
    url = f"/api/v1/matches/{created.json()['id']}"
    return player, url, until_my_turn(player, url, player.get(url).json())


def until_my_turn(api: Api, url: str, view: dict[str, Any]) -> dict[str, Any]:
    """The view once it is the caller's turn, long-polling from ``view`` (the bot's answer)."""
    while not view["legal_actions"]:
        view = api.get(f"{url}?after={view['seq']}&wait=5").json()
    return view


@dataclass
class Table:
    """A match where every seat is a human with their own client."""

    match_id: str
    seats: list[Api]

    def url(self, suffix: str = "") -> str:
        return f"/api/v1/matches/{self.match_id}{suffix}"

    def view(self, seat: int) -> dict[str, Any]:
        response = self.seats[seat].get(self.url())
        assert response.status_code == 200, response.content
        body: dict[str, Any] = response.json()
        return body


def human_table(variant: str, options: dict[str, Any], seed: int | None = None, public: bool = False) -> Table:
    """Create a match with the creator at seat 0 and every other seat joined by a new player."""
    creator = new_player("host")
    players = seats_of(variant, options)
    seats = [{"player": "me"}] + [{"open": True}] * (players - 1)
    body: dict[str, Any] = {"variant": variant, "options": options, "seats": seats, "public": public}
    if seed is not None:
        body["seed"] = seed
    created = creator.post("/api/v1/matches/", body)
    assert created.status_code == 201, created.content
    match = created.json()
    apis = [creator]
    for _ in range(players - 1):
        guest = new_player("guest")
        joined = guest.post(f"/api/v1/matches/{match['id']}/join", {"invite_code": match["invite_code"]})
        assert joined.status_code == 200, joined.content
        apis.append(guest)
    return Table(match["id"], apis)


# -- hidden information -----------------------------------------------------------------------------


class Visibility:
    """What each seat may know at each point of a match's log: the cards it legitimately saw in the
    hand being played (its own cards as dealt and drawn, every card played, the trump card, the
    face-up card, the cards of cantos, tutes and exchanges). A new hand starts from the last trick
    of the hand before, which stays shown until a trick of the new hand is won (M4). Seat ``None`` is
    a spectator (M5): it knows what the table shows everyone, and no hand.

    Reads the unredacted log from the database, incrementally: call :meth:`refresh` as it grows.
    """

    def __init__(self, match_id: str, players: int):
        self.match_id = match_id
        self.seq = 0
        self.players = players
        self._cards: list[set[str]] = [set() for _ in range(players + 1)]  # the last one: a spectator's
        self._after: list[list[frozenset[str]]] = [[frozenset()] for _ in range(players + 1)]
        self._last_trick: set[str] = set()
        self.refresh()

    def refresh(self) -> Visibility:
        rows = Event.objects.filter(match_id=self.match_id, seq__gt=self.seq).order_by("seq")
        for row in rows:
            assert row.seq == self.seq + 1
            self.seq = row.seq
            if row.type == "trick_won":
                self._last_trick = {play["card"] for play in row.data["trick"]}
            for index, cards in enumerate(self._cards):
                seat = None if index == self.players else index
                self._see(seat, cards, row.type, row.seat, row.data, self._last_trick)
                self._after[index].append(frozenset(cards))
        return self

    def known(self, seat: int | None, seq: int) -> frozenset[str]:
        """Cards ``seat`` (None: a spectator) has seen in the hand being played at ``seq``, up to ``seq``."""
        return self._after[self.players if seat is None else seat][seq]

    @staticmethod
    def _see(
        seat: int | None, cards: set[str], kind: str, actor: int | None, data: dict[str, Any], last_trick: set[str]
    ) -> None:
        if kind == "hand_started":
            cards.intersection_update(last_trick)  # M4: the previous hand's last trick stays on the table
            if seat is not None:
                cards |= set(data["hands"][seat])
            cards |= {c for c in (data.get("trump_card"), data.get("face_up")) if c}
        elif kind == "card_played":
            cards.add(data["card"])
        elif kind in ("canto", "tute"):
            cards |= set(data["cards"])
        elif kind == "exchange":
            cards |= {data["gave"], data["took"]}
        elif kind == "draw" and (actor == seat or data.get("face_up")):
            cards.add(data["card"])


def cards_in(value: Any) -> set[str]:
    """Every card code written anywhere in a JSON value (keys and strings)."""
    found: set[str] = set()
    if isinstance(value, str):
        found |= set(CARD.findall(value))
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= cards_in(key) | cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item)
    return found


def assert_no_leak(vis: Visibility, seat: int | None, body: Any, seq: int, what: str) -> None:
    leaked = cards_in(body) - vis.known(seat, seq)
    assert not leaked, f"seat {seat} was shown {sorted(leaked)} at seq {seq} in {what}: {json.dumps(body)[:600]}"


def assert_events_no_leak(vis: Visibility, seat: int | None, events: list[dict[str, Any]]) -> None:
    for event in events:
        assert_no_leak(vis, seat, event, event["seq"], f"event {event['type']}")


def choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A random legal card; in an auction, a pass or the highest bid. Random players fail high bids,
    and a failed bid of 120 or more scores double for the rivals (SU5), so auction matches end
    within a few hands."""
    if legal[0]["type"] == "pass":
        return legal[0] if rng.random() < 0.6 or len(legal) == 1 else legal[-1]
    return rng.choice(legal)
