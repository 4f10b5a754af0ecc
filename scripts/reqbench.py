#!/usr/bin/env python3
"""What one request costs the server: one server process (gunicorn with one uvicorn worker, the
production settings of ``make loadtest``) on PostgreSQL and a Celery worker on Redis, one client sending
each kind of request in turn, the server's CPU time read from ``/proc`` before and after each kind.

    make reqbench                                   # 300 requests of each kind, 3 rounds
    make reqbench REQBENCH_ARGS="--requests 500 --rounds 5 --json"

The kinds: ``get`` (the caller's view of a match, ``GET /matches/{id}``), ``poll`` (a long poll answered
at once, ``?after=<seq - 1>&wait=10``: the ASGI handler's path of the waiting requests), ``events``
(``GET /matches/{id}/events?after=0``), ``move`` (two humans' match: the mover's ``GET`` and its action
``POST``, no bot, no task), and ``action`` (an action ``POST`` and the long poll that waits
for the bots' answer, as a client plays: CPU per action, the web's and the worker's). Each figure is the
median of the rounds (kinds alternated round by round), with the machine's load. Nothing else should run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import secrets
import statistics
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("loadtest_script", ROOT / "scripts" / "loadtest.py")
assert _spec is not None and _spec.loader is not None
loadtest: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(loadtest)

KINDS = ("get", "poll", "events", "move", "action")


def new_match(client: Any) -> dict[str, Any]:
    body = {"variant": "clasico", "options": {"games_to_win": 1},
            "seats": [{"player": "me"}] + [{"bot": "level-1"}] * 3}  # fmt: skip
    status, view = client.call("POST", "/api/v1/matches/", body)
    assert status == 201, (status, view)
    return my_turn(client, view)


def two_humans(client: Any, other: Any) -> dict[str, Any]:
    """A match of two players (dos), both the bench's: no bot plays, no task is queued."""
    body = {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]}
    status, view = client.call("POST", "/api/v1/matches/", body)
    assert status == 201, (status, view)
    status, view = other.call("POST", f"/api/v1/matches/{view['id']}/join", {"invite_code": view["invite_code"]})
    assert status == 200, (status, view)
    return view


def my_turn(client: Any, view: dict[str, Any]) -> dict[str, Any]:
    """The view once the caller has legal actions (the bots played), or the match is over."""
    while view["status"] == "active" and not view["legal_actions"]:
        status, view = client.call("GET", f"/api/v1/matches/{view['id']}?after={view['seq']}&wait=10")
        assert status == 200, (status, view)
    return view


def run_kind(kind: str, client: Any, view: dict[str, Any], requests: int, rng: random.Random,
             cpu: Any, other: Any) -> tuple[dict[str, float], dict[str, Any]]:  # fmt: skip
    """``requests`` requests of ``kind``, one after another: CPU ms per request (web, worker)."""
    url = f"/api/v1/matches/{view['id']}"
    if kind == "move":
        players, table = [client, other], two_humans(client, other)
    before = cpu()
    for _ in range(requests):
        if kind == "get":
            status, _answer = client.call("GET", url)
        elif kind == "poll":
            status, _answer = client.call("GET", f"{url}?after={view['seq'] - 1}&wait=10")
        elif kind == "events":
            status, _answer = client.call("GET", f"{url}/events?after=0")
        elif kind == "move":
            if table["status"] != "active":
                table = two_humans(client, other)
            mover = players[table["hand"]["turn"]] if table["hand"]["turn"] is not None else client
            status, seen = mover.call("GET", f"/api/v1/matches/{table['id']}")  # the mover's own legal actions
            action = {**rng.choice(seen["legal_actions"]), "expected_seq": seen["seq"]}
            status, table = mover.call("POST", f"/api/v1/matches/{table['id']}/actions", action)
        else:
            if view["status"] != "active":
                view = new_match(client)
                url = f"/api/v1/matches/{view['id']}"
            action = {**rng.choice(view["legal_actions"]), "expected_seq": view["seq"]}
            status, answer = client.call("POST", f"{url}/actions", action)
            assert status == 200, (status, answer)
            view = my_turn(client, answer)
        assert status == 200, (kind, status)
    after = cpu()
    return {"web": 1000 * (after[0] - before[0]) / requests, "worker": 1000 * (after[1] - before[1]) / requests}, view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300, help="requests of each kind per round (default 300)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the kinds alternated (default 3)")
    parser.add_argument("--port", type=int, default=8767)
    parser.add_argument("--database", default="tute_reqbench")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"the kinds to send (default {','.join(KINDS)})")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    kinds = [kind for kind in KINDS if kind in args.kinds.split(",")]

    env = loadtest.service_env(args.database)
    (ROOT / "var").mkdir(exist_ok=True)
    log = open(ROOT / "var" / "reqbench.log", "wb")  # noqa: SIM115 - kept open for the subprocesses
    loadtest.pg_admin(f'DROP DATABASE IF EXISTS "{args.database}"')
    loadtest.pg_admin(f'CREATE DATABASE "{args.database}"')
    web = worker = None
    figures: dict[str, Any] = {}
    try:
        web, worker = loadtest.start_service(env, args.port, log, web_workers=1, worker_nice=0)
        web_pid, worker_pid = web.pid, worker.pid

        def cpu() -> tuple[float, float]:
            return loadtest.tree_cpu_seconds(web_pid), loadtest.tree_cpu_seconds(worker_pid)

        client = loadtest.Client(args.port)
        status, player = client.call("POST", "/api/v1/players/", {"username": f"bench-{secrets.token_hex(3)}"})
        assert status == 201, (status, player)
        client.token = player["token"]
        other = loadtest.Client(args.port)
        status, player = other.call("POST", "/api/v1/players/", {"username": f"bench-{secrets.token_hex(3)}"})
        assert status == 201, (status, player)
        other.token = player["token"]
        rng = random.Random(1)
        view = new_match(client)
        run_kind("action", client, view, 20, rng, cpu, other)  # warm up every path once
        view = new_match(client)
        samples: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
        load_before = os.getloadavg()[0]
        for _ in range(args.rounds):
            for kind in kinds:
                measured, view = run_kind(kind, client, view, args.requests, rng, cpu, other)
                samples[kind].append(measured)
        figures = {
            "requests_per_kind_per_round": args.requests,
            "rounds": args.rounds,
            "cpu_ms_per_request": {
                kind: {
                    "web": round(statistics.median(s["web"] for s in samples[kind]), 2),
                    "worker": round(statistics.median(s["worker"] for s in samples[kind]), 2),
                    "web_rounds": [round(s["web"], 2) for s in samples[kind]],
                }
                for kind in kinds
            },
            "load_1min_before": round(load_before, 2),
            "load_1min_after": round(os.getloadavg()[0], 2),
        }
    finally:
        loadtest.stop(web)
        loadtest.stop(worker)
        log.close()
        loadtest.pg_admin(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"one server process, {args.requests} requests of each kind a round, {args.rounds} rounds "
          f"(load average {figures['load_1min_before']} before, {figures['load_1min_after']} after)")  # fmt: skip
    names = {"get": "GET a match", "poll": "long poll answered at once", "events": "GET its events",
             "move": "a move between two humans (the mover's GET + its POST, no bot)",
             "action": "action POST + the long poll of the bots' answer"}  # fmt: skip
    for kind in kinds:
        found = figures["cpu_ms_per_request"][kind]
        rounds = ", ".join(f"{x}" for x in found["web_rounds"])
        print(f"  {names[kind]}: web {found['web']} ms of CPU (rounds {rounds}), worker {found['worker']} ms")


if __name__ == "__main__":
    main()
