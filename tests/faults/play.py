"""Play over HTTP for the fault tests, keeping every action the service acknowledged (a 200)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from tests.faults.stack import Answer, Client


@dataclass
class Player:
    client: Client
    name: str
    acknowledged: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (seq after it, action)
    answers: list[Answer] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def call(self, method: str, path: str, body: Any = None) -> Answer:
        answer = self.client.call(method, path, body)
        self.answers.append(answer)
        return answer

    def register(self) -> None:
        answer = self.call("POST", "/api/v1/players/", {"username": self.name})
        assert answer.status == 201, answer
        self.client.token = answer.body["token"]

    def view(self, match_id: str, after: int | None = None, wait: float = 0) -> Answer:
        query = f"?after={after}&wait={wait:g}" if after is not None and wait else ""
        return self.call("GET", f"/api/v1/matches/{match_id}{query}")

    def act(self, match_id: str, view: dict[str, Any]) -> Answer:
        """Play one of the legal actions of the view (with its seq as ``expected_seq``)."""
        action = {**self.rng.choice(view["legal_actions"]), "expected_seq": view["seq"]}
        answer = self.call("POST", f"/api/v1/matches/{match_id}/actions", action)
        if answer.status == 200:
            self.acknowledged.append((answer.body["seq"], action))
        return answer

    def wait_for_turn(self, match_id: str, seconds: float) -> dict[str, Any]:
        """The match once this player may act, or once it is over; fails after ``seconds``. A 503 (a
        dependency coming back) is asked again after a moment, as a client told to retry would."""
        deadline = time.monotonic() + seconds
        answer = self.view(match_id)
        while True:
            if answer.status == 503 and time.monotonic() < deadline:
                time.sleep(0.2)
                answer = self.view(match_id)
                continue
            assert answer.status == 200, answer
            view = answer.body
            if view["legal_actions"] or view["status"] != "active":
                return view
            left = deadline - time.monotonic()
            assert left > 0, f"{self.name} was not given a turn within {seconds} s: {view['seq']=}"
            answer = self.view(match_id, after=view["seq"], wait=max(1, int(min(left, 5))))


def events(player: Player, match_id: str) -> list[dict[str, Any]]:
    answer = player.call("GET", f"/api/v1/matches/{match_id}/events?after=0&limit=1000")
    assert answer.status == 200, answer
    return list(answer.body)


def assert_log_gapless_and_acknowledged(player: Player, match_id: str, *others: Player) -> list[dict[str, Any]]:
    """The event log runs 1, 2, 3, … with no gap and no duplicate, up to the match's seq, and every action
    the service acknowledged is in it at the seq its answer gave."""
    log = events(player, match_id)
    seqs = [event["seq"] for event in log]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs
    final = player.view(match_id).body
    assert seqs[-1] == final["seq"], (seqs[-1], final["seq"])
    by_seq = {event["seq"]: event for event in log}
    for someone in (player, *others):
        for seq, action in someone.acknowledged:
            assert seq in by_seq, (seq, action)
    return log
