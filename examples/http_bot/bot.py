#!/usr/bin/env python3
"""A Tute bot that plays over HTTP, with the standard library only.

    python bot.py --server http://127.0.0.1:8000 poll
    python bot.py --server http://127.0.0.1:8000 webhook --port 8765

It creates a player (its owner), registers a bot, starts a match in which the bot sits against
built-in bots (``--opponents level-2``; ``--no-match`` to only wait for turns), and plays every turn
it is given until its match is over (or ``--seconds`` run out). Its strategy is deliberately simple: play
the cheapest legal card, bid nothing, and pick the longest suit as trump.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

POINTS = {"1": 11, "3": 10, "12": 4, "11": 3, "10": 2}
STRENGTH = ["2", "4", "5", "6", "7", "10", "11", "12", "3", "1"]


class Api:
    """A few calls of the tute-api HTTP API."""

    def __init__(self, server: str, token: str | None = None):
        self.server = server.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: Any = None, timeout: float = 40) -> Any:
        """The answer's JSON; a 429 (too many requests) is retried after the ``Retry-After`` it gives."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.server + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        while True:
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    return json.loads(response.read() or b"null")
            except urllib.error.HTTPError as error:
                problem = json.loads(error.read() or b"{}")
                if error.code == 429:
                    time.sleep(float(error.headers.get("Retry-After") or 1))
                    continue
                code, detail = problem.get("code"), problem.get("detail")
                raise RuntimeError(f"{method} {path}: {error.code} {code}: {detail}") from None


def choose(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The cheapest card; pass in auctions; the longest suit as trump."""
    kind = legal[0]["type"]
    if kind == "play":
        def cost(action: dict[str, Any]) -> tuple[int, int]:
            rank = action["card"][1:]
            return POINTS.get(rank, 0), STRENGTH.index(rank)

        return min(legal, key=cost)
    if kind == "choose_trump":
        hand = view.get("my_hand") or []
        return max(legal, key=lambda a: sum(card[0] == a["suit"] for card in hand))
    return next((a for a in legal if a["type"] == "pass"), legal[0])


def register(server: str, delivery: str, webhook_url: str | None) -> tuple[Api, Api, dict[str, Any]]:
    """Create an owner, register a bot; returns the owner's API, the bot's API and the bot."""
    owner = Api(server)
    player = owner.call("POST", "/api/v1/players/", {"username": f"owner-{uuid.uuid4().hex[:8]}"})
    owner.token = player["token"]
    spec: dict[str, Any] = {"name": f"example-{uuid.uuid4().hex[:6]}", "delivery": delivery}
    if webhook_url:
        spec["webhook_url"] = webhook_url
    bot = owner.call("POST", "/api/v1/bots/", spec)
    return owner, Api(server, bot["token"]), bot


def start_match(owner: Api, bot_id: str, variant: str, opponents: str) -> str:
    players = {"clasico": 4, "dos": 2, "subastado": 3, "cabron": 4, "individual": 4, "subastado_parejas": 4}
    seats = [{"bot": bot_id}] + [{"bot": opponents}] * (players[variant] - 1)
    options = {"games_to_win": 1} if variant in ("clasico", "dos", "individual") else {}
    match = owner.call("POST", "/api/v1/matches/", {"variant": variant, "options": options, "seats": seats})
    return str(match["id"])


def play_by_polling(bot: Api, match_id: str | None, deadline: float) -> dict[str, Any] | None:
    """Answer turns until the match is over (or time runs out); returns its final view."""
    while time.monotonic() < deadline:
        for turn in bot.call("GET", "/api/v1/me/turns?wait=10")["turns"]:
            action = {**choose(turn["view"], turn["legal_actions"]), "expected_seq": turn["seq"]}
            try:
                bot.call("POST", f"/api/v1/matches/{turn['match_id']}/actions", action)
            except RuntimeError as error:  # the match moved on meanwhile: the next poll says where
                print(f"bot: {error}", file=sys.stderr)
        if match_id:
            match = bot.call("GET", f"/api/v1/matches/{match_id}")
            if match["status"] in ("finished", "cancelled"):
                return dict(match)
    return None


def wait_until_over(bot: Api, match_id: str | None, deadline: float) -> dict[str, Any] | None:
    """While the service calls the webhook, watch the match until it is over."""
    while match_id and time.monotonic() < deadline:
        match = bot.call("GET", f"/api/v1/matches/{match_id}")
        if match["status"] in ("finished", "cancelled"):
            return dict(match)
        time.sleep(0.5)
    return None


def signature_ok(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    fresh = timestamp.isdigit() and abs(time.time() - int(timestamp)) < 300
    return fresh and hmac.compare_digest(f"sha256={expected}", signature)


class WebhookServer(ThreadingHTTPServer):
    """The bot's end of the webhook: bound at once, so that a port in use stops the bot before it
    registers; it answers turns once it is given the bot's signing secret (:meth:`serve`)."""

    secret = ""

    def serve(self, secret: str) -> None:
        self.secret = secret
        threading.Thread(target=self.serve_forever, daemon=True).start()


class WebhookHandler(BaseHTTPRequestHandler):
    """Answer the service's turn requests, checking their signature."""

    server: WebhookServer

    def do_POST(self) -> None:  # noqa: N802 (the http.server API)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        timestamp = self.headers.get("X-Tute-Timestamp", "")
        if not signature_ok(self.server.secret, timestamp, body, self.headers.get("X-Tute-Signature", "")):
            self.send_response(401)
            self.end_headers()
            return
        turn = json.loads(body)
        reply = json.dumps(choose(turn["view"], turn["legal_actions"])).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--variant", default="dos")
    parser.add_argument("--opponents", default="level-2", help="built-in bot level of the other seats")
    parser.add_argument("--no-match", action="store_true", help="register only and wait for turns")
    parser.add_argument("--seconds", type=float, default=300, help="give up after this long")
    sub = parser.add_subparsers(dest="delivery", required=True)
    sub.add_parser("poll", help="ask for turns with GET /api/v1/me/turns?wait=N")
    webhook = sub.add_parser("webhook", help="be called on each turn")
    webhook.add_argument("--port", type=int, default=8765, help="0: any free port")
    args = parser.parse_args(argv)

    webhook_server, url = None, None
    if args.delivery == "webhook":
        try:
            webhook_server = WebhookServer(("127.0.0.1", args.port), WebhookHandler)
        except OSError as exc:
            print(f"bot: cannot listen on 127.0.0.1:{args.port} ({exc.strerror}); try another --port", file=sys.stderr)
            return 2
        url = f"http://127.0.0.1:{webhook_server.server_port}/"
    owner, bot, registered = register(args.server, args.delivery, url)
    print(f"bot: registered {registered['name']} ({registered['id']}) for {args.delivery}")
    if webhook_server is not None:
        webhook_server.serve(registered["secret"])
    match_id = None if args.no_match else start_match(owner, registered["id"], args.variant, args.opponents)
    deadline = time.monotonic() + args.seconds
    if args.delivery == "poll":
        final = play_by_polling(bot, match_id, deadline)
    else:
        final = wait_until_over(bot, match_id, deadline)
    if final is None:
        print("bot: no finished match before the deadline", file=sys.stderr)
        return 1
    print(json.dumps({"match_id": match_id, "status": final["status"], "scoreboard": final["scoreboard"],
                      "winners": final.get("winners"), "my_seat": final.get("my_seat")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
