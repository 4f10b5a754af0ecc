#!/usr/bin/env python3
"""The application's instructions per request, counted, not timed: a figure the shared machine's noise does
not move (docs/performance.md).

    make reqcount                                      # 200 steps of "action", under valgrind
    make reqcount REQCOUNT_ARGS="--kind get --steps 300 --json"

The requests go straight to the service's WSGI handler in this process (the middleware, DRF, the service, the
queries to PostgreSQL and the publishes to Redis of the production settings; no HTTP server), so that
``valgrind --tool=callgrind`` counts what the application does and nothing of the server's or a client's.
The kinds: ``get`` (a player's ``GET`` of a match against three level-1 bots) and ``action`` (a player's
turns as ``make loadtest`` plays them: the action's ``POST``, then the long poll of the bots' answer when
the answer is not the player's turn again; a step is one request). The matches are seeded, so the same
code plays the same cards. Two runs, of 0 and of ``--steps`` steps after the same warm-up, go side by side;
their difference over the steps is the figure. Valgrind counts from the end of the warm-up on (the start
and the warm-up run uninstrumented, several times faster: ``--instr-atstart=no``, then ``callgrind_control
-i on`` from the process itself). Without valgrind (``--no-valgrind``), or with ``--inner``,
it prints the process's CPU per step instead, which the machine's noise does move.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import io
import json
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("loadtest_script", ROOT / "scripts" / "loadtest.py")
assert _spec is not None and _spec.loader is not None
loadtest: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(loadtest)

KINDS = ("get", "action")
WARMUP_STEPS = 50


class Harness:
    """One player's requests through the service's WSGI handler, in this process."""

    def __init__(self) -> None:
        import django

        django.setup()
        from tute_api.stock_middleware import WSGIHandler

        self.app = WSGIHandler()  # the service's, as tute_api.asgi runs a request
        self.token: str | None = None
        self.seeds = iter(range(1, 1_000_000))
        status, player = self.call("POST", "/api/v1/players/", {"username": f"count-{secrets.token_hex(4)}"})
        assert status == 201, (status, player)
        self.token = player["token"]

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else b""
        path, _, query = path.partition("?")
        environ = {
            "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, "SERVER_NAME": loadtest.HOST,
            "SERVER_PORT": "80", "HTTP_HOST": loadtest.HOST, "REMOTE_ADDR": loadtest.HOST, "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(data), "wsgi.errors": sys.stderr, "SERVER_PROTOCOL": "HTTP/1.1",
            "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(data)),
        }  # fmt: skip
        if self.token:
            environ["HTTP_AUTHORIZATION"] = f"Bearer {self.token}"
        started: list[str] = []
        response = self.app(environ, lambda status, headers, *exc: started.append(status))
        try:
            payload = b"".join(response)
        finally:
            response.close()  # the steps after the answer (the news, the bots' turns) run here, as a server's
        return int(started[0].split()[0]), json.loads(payload) if payload else None

    def new_match(self) -> dict[str, Any]:
        body = {"variant": "clasico", "options": {"games_to_win": 1}, "seed": next(self.seeds),
                "seats": [{"player": "me"}] + [{"bot": "level-1"}] * 3}  # fmt: skip
        status, view = self.call("POST", "/api/v1/matches/", body)
        assert status == 201, (status, view)
        return view


def run_steps(
    kind: str, steps: int, warm_up: int = WARMUP_STEPS, under_callgrind: bool = False
) -> tuple[float, int]:
    """Warm up, then ``steps`` steps of ``kind``: the process's CPU seconds for the steps, and the garbage
    collector's collections during them. After the warm-up the collector is settled as a server process's
    (``tute_api.serving.settle_collector``): with Python's defaults a full collection of the whole of Django
    fell in the counted steps of some runs and not of others (3% of the count, docs/performance.md).
    ``under_callgrind``: the process runs under callgrind (:func:`counted`), which starts counting once the
    warm-up is over."""
    from tute_api.serving import settle_collector

    harness, rng = Harness(), random.Random(1)
    view = harness.new_match()

    def step() -> None:
        nonlocal view
        url = f"/api/v1/matches/{view['id']}"
        if kind == "get":
            status, _ = harness.call("GET", url)
        elif view["status"] != "active":
            view = harness.new_match()
            return
        elif not view["legal_actions"]:  # the bots' answer, as a client waits for it
            status, view = harness.call("GET", f"{url}?after={view['seq']}&wait=10")
        else:
            action = {**rng.choice(view["legal_actions"]), "expected_seq": view["seq"]}
            status, view = harness.call("POST", f"{url}/actions", action)
        assert status == 200, (status, view)

    for _ in range(warm_up):
        step()
    settle_collector()
    if under_callgrind:
        subprocess.run(["callgrind_control", "--instr=on", str(os.getpid())], check=True, capture_output=True)
    collections = sum(generation["collections"] for generation in gc.get_stats())
    before = time.process_time()
    for _ in range(steps):
        step()
    seconds = time.process_time() - before
    return seconds, sum(generation["collections"] for generation in gc.get_stats()) - collections


def counted(kind: str, steps: int, warm_up: int, env: dict[str, str], folder: str) -> subprocess.Popen[str]:
    out = os.path.join(folder, f"callgrind.{steps}")
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}", sys.executable,
               __file__, "--inner", "--counted", "--kind", kind, "--steps", str(steps),
               "--warm-up", str(warm_up)]  # fmt: skip
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def instructions(run: subprocess.Popen[str]) -> tuple[int, dict[str, Any]]:
    """The instructions valgrind counted, and what the counted run printed of itself."""
    stdout, stderr = run.communicate()
    found = re.search(r"refs:\s+([\d,]+)", stderr)
    if run.returncode != 0 or found is None:
        raise SystemExit(f"valgrind failed ({run.returncode}):\n{stderr[-3000:]}")
    return int(found.group(1).replace(",", "")), json.loads(stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=KINDS, default="action")
    parser.add_argument("--steps", type=int, default=200, help="requests counted (default 200)")
    parser.add_argument("--warm-up", type=int, default=WARMUP_STEPS, help=f"steps before (default {WARMUP_STEPS})")
    parser.add_argument("--database", default="tute_reqcount")
    parser.add_argument("--no-valgrind", action="store_true", help="time the process's CPU instead")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)  # one run, in this process
    parser.add_argument("--counted", action="store_true", help=argparse.SUPPRESS)  # … under callgrind
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.inner:
        sys.path.insert(0, str(ROOT))
        seconds, collections = run_steps(args.kind, args.steps, args.warm_up, args.counted)
        print(json.dumps({"cpu_ms_per_step": round(seconds * 1000 / max(args.steps, 1), 3),
                          "collections": collections}), flush=True)  # fmt: skip
        if args.counted:
            os._exit(0)  # no interpreter shutdown to count: the runs differ by their steps alone
        return

    env = {
        **loadtest.service_env(args.database),
        "DATABASE_POOL_SIZE": "2",
        "DJANGO_SETTINGS_MODULE": "tute_api.settings",
    }
    loadtest.pg_admin(f'DROP DATABASE IF EXISTS "{args.database}"')
    loadtest.pg_admin(f'CREATE DATABASE "{args.database}"')
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
        figures: dict[str, Any] = {"kind": args.kind, "steps": args.steps, "load_1min_before": os.getloadavg()[0]}
        if args.no_valgrind or shutil.which("valgrind") is None:
            inner = [sys.executable, __file__, "--inner", "--kind", args.kind, "--steps", str(args.steps),
                     "--warm-up", str(args.warm_up)]  # fmt: skip
            run = subprocess.run(inner, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
            figures |= json.loads(run.stdout.splitlines()[-1])
        else:
            with tempfile.TemporaryDirectory() as folder:
                runs = [counted(args.kind, steps, args.warm_up, env, folder) for steps in (0, args.steps)]
                (base, _), (total, inner) = instructions(runs[0]), instructions(runs[1])
            figures |= {"instructions_per_step": round((total - base) / args.steps),
                        "instructions_of_0_steps": base, "instructions_total": total,
                        "collections": inner["collections"]}  # fmt: skip
    finally:
        loadtest.pg_admin(f'DROP DATABASE IF EXISTS "{args.database}"')
    if args.json:
        print(json.dumps(figures))
    elif "instructions_per_step" in figures:
        print(f"{args.kind}: {figures['instructions_per_step'] / 1e6:.3f} million instructions per request "
              f"({args.steps} requests, valgrind's count; load {figures['load_1min_before']:.1f} before)")  # fmt: skip
    else:
        print(f"{args.kind}: {figures['cpu_ms_per_step']:.3f} ms of CPU per request ({args.steps} requests, "
              f"the process's time; load {figures['load_1min_before']:.1f} before)")  # fmt: skip


if __name__ == "__main__":
    main()
