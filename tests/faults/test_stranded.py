"""A bot's turn is never stranded (issue 17): a worker killed in the middle of a bot's turn, the broker
restarted. Each test runs the production stack (gunicorn, two Celery workers and beat) on a PostgreSQL
and a Redis of its own (tests/faults/bot_stack.py) and asserts that no acknowledged action is lost, that
the event log has no gap and no duplicate, and that the bots' turns resume by themselves in time."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator

import pytest

from tests.faults.bot_stack import Stack, events_of
from tests.faults.services import Postgres, Redis

pytestmark = pytest.mark.timeout(240)

#: The issue's bounds: the turn of a worker killed mid-turn played by another within 5 s, or by the
#: only worker within 5 s of its restart; a bot match resumed promptly after a broker restart.
KILLED_TURN_SECONDS = 5.0
BROKER_BACK_SECONDS = 10.0


@pytest.fixture
def stack(own_postgres: Postgres, own_redis: Redis, request: pytest.FixtureRequest) -> Iterator[Stack]:
    workers = getattr(request, "param", 2)
    # FAULTS_BROKER_URL measures another broker (docs/reliability.md: RabbitMQ's redelivery); the
    # broker restart test needs the own Redis.
    broker = os.environ.get("FAULTS_BROKER_URL") if "broker" not in request.node.name else None
    queue = {"CELERY_QUEUE": os.environ["FAULTS_QUEUE"]} if broker and os.environ.get("FAULTS_QUEUE") else {}
    # The bots' turns go to the workers (not played in the web process after the move): those are killed.
    env = {**queue, "BOT_LEVELS_IN_PROCESS": ""}
    with Stack(own_postgres, broker_url=broker or own_redis.url_for(0), workers=workers, env=env) as running:
        yield running


class Table:
    """A human against one level-1 bot (``dos``), played over HTTP; every acknowledged action's seq kept."""

    def __init__(self, stack: Stack) -> None:
        self.stack, self.client, self.rng = stack, stack.client(), random.Random(17)
        self.client.new_player("human")
        status, view = self.client.call("POST", "/api/v1/matches/", {
            "variant": "dos", "seed": 7, "seats": [{"player": "me"}, {"bot": "level-1"}],
        })  # fmt: skip
        assert status == 201, (status, view)
        self.id, self.view, self.acknowledged = view["id"], view, []

    def read(self) -> dict:
        status, view = self.client.call("GET", f"/api/v1/matches/{self.id}")
        assert status == 200, (status, view)
        self.view = view
        return view

    def my_turn(self, within: float) -> float:
        """Wait until the human may act (or the match is over); returns the seconds waited."""
        start = time.monotonic()
        while self.view["status"] == "active" and not self.view["legal_actions"]:
            assert time.monotonic() - start < within, f"the bot did not play within {within} s"
            time.sleep(0.05)
            self.read()
        return time.monotonic() - start

    def act(self) -> int:
        action = {**self.rng.choice(self.view["legal_actions"]), "expected_seq": self.view["seq"]}
        status, view = self.client.call("POST", f"/api/v1/matches/{self.id}/actions", action)
        assert status == 200, (status, view)
        self.view = view
        self.acknowledged.append(view["seq"])
        return view["seq"]

    def check_log(self) -> None:
        """No gap, no duplicate, and every acknowledged action's seq in the log."""
        seqs = events_of(self.stack.database_url, self.id)
        assert seqs == list(range(1, len(seqs) + 1)), seqs
        assert self.read()["seq"] == len(seqs)
        assert all(seq <= len(seqs) for seq in self.acknowledged)


def wait_for(predicate, within: float, what: str) -> None:  # noqa: ANN001
    deadline = time.monotonic() + within
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def hold_a_bot_turn(stack: Stack, table: Table) -> str:
    """The human acts until a bot's turn follows, which waits, mid-transaction, in a worker: which one."""
    for mark in stack.folder.glob("held-by-*"):
        mark.unlink()
    table.my_turn(within=30)
    stack.hold.touch()
    while table.view["status"] == "active" and table.view["legal_actions"]:  # a trick won: the human leads
        table.act()
    assert table.view["status"] == "active"
    wait_for(lambda: stack.held_by() is not None, 20, "no worker took the bot's turn")
    held = stack.held_by()
    assert held is not None
    return held


def test_a_worker_killed_in_the_middle_of_a_bot_turn_the_other_plays_it_within_5_s(stack: Stack):
    table = Table(stack)
    for _ in range(3):
        table.my_turn(within=30)
        table.act()
    held = hold_a_bot_turn(stack, table)
    stack.kill_worker(int(held.removeprefix("w")))
    stack.hold.unlink()
    stalled = table.my_turn(within=90)  # waited out, to measure other mechanisms (docs/reliability.md)
    print(f"FAULTS: the other worker played the killed worker's turn after {stalled:.2f} s")
    assert stalled < KILLED_TURN_SECONDS, f"the other worker played the turn {stalled:.1f} s after the kill"
    for _ in range(3):  # the match goes on
        table.my_turn(within=30)
        if table.view["status"] == "active":
            table.act()
    table.my_turn(within=30)
    table.check_log()


@pytest.mark.parametrize("stack", [1], indirect=True)
def test_the_only_worker_killed_mid_turn_plays_the_turn_within_5_s_of_its_restart(stack: Stack):
    table = Table(stack)
    table.my_turn(within=30)
    table.act()
    hold_a_bot_turn(stack, table)
    stack.kill_worker(0)
    stack.hold.unlink()
    time.sleep(3)
    assert not table.read()["legal_actions"], "nobody played the turn while no worker ran"
    stack.start_worker(0)
    booted = stack.wait_worker_ready(0)  # the restart: Python, Django and Celery loaded, consuming
    stalled = table.my_turn(within=60)
    print(f"FAULTS: the restarted worker booted in {booted:.2f} s and played the turn {stalled:.2f} s later")
    assert stalled < KILLED_TURN_SECONDS, f"the restarted worker played the turn {stalled:.1f} s after its start"
    table.check_log()


def test_a_bot_match_resumes_promptly_after_the_broker_restarts(stack: Stack, own_redis: Redis):
    table = Table(stack)
    table.my_turn(within=30)
    table.act()
    table.my_turn(within=30)
    own_redis.stop()
    down = time.monotonic()
    while table.view["status"] == "active" and table.view["legal_actions"]:  # until a bot's turn is due
        table.act()  # acknowledged with the broker away: the bot's turn could not be queued
    assert table.view["status"] == "active"
    time.sleep(max(0.0, 10 - (time.monotonic() - down)))
    assert not table.read()["legal_actions"], "no bot played while the broker was away"
    own_redis.start()
    stalled = table.my_turn(within=60)
    print(f"FAULTS: the bot played {stalled:.2f} s after the broker was back")
    assert stalled < BROKER_BACK_SECONDS, f"the bot played {stalled:.1f} s after the broker was back"
    table.my_turn(within=30)
    if table.view["status"] == "active":
        table.act()
        table.my_turn(within=30)
    table.check_log()
