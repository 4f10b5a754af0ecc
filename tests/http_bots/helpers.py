"""Helpers of the bots-over-HTTP tests: registering bots, and a local webhook receiver."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from django.test import TestCase

from tests.games.helpers import Api, new_player


@dataclass
class Registered:
    owner: Api
    bot: Api
    body: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.body["id"])


_names = iter(range(10**9))


def register(delivery: str = "poll", owner: Api | None = None, **spec: Any) -> Registered:
    owner = owner or new_player("owner")
    created = owner.post("/api/v1/bots/", {"name": f"bot{next(_names)}", "delivery": delivery, **spec})
    assert created.status_code == 201, created.content
    body = created.json()
    return Registered(owner, Api(body["token"], body["name"]), body)


def patch(api: Api, path: str, body: Any) -> Any:
    """``PATCH`` as ``api``'s player (``Api`` has no such method), running the on-commit callbacks."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return api.client.patch(path, body, format="json")


def delete(api: Api, path: str) -> Any:
    with TestCase.captureOnCommitCallbacks(execute=True):
        return api.client.delete(path)


@dataclass
class Call:
    headers: dict[str, str]
    body: bytes

    @property
    def payload(self) -> dict[str, Any]:
        return dict(json.loads(self.body))


#: How the receiver answers a turn: ``(status, body bytes, seconds to wait first)``.
Responder = Callable[[dict[str, Any]], tuple[int, bytes, float]]


def play_first(payload: dict[str, Any]) -> tuple[int, bytes, float]:
    return 200, json.dumps(payload["legal_actions"][0]).encode(), 0.0


class Receiver:
    """A webhook on 127.0.0.1 that records each call and answers as ``respond`` says."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.respond: Responder = play_first
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.calls.append(Call(dict(self.headers.items()), body))
                status, reply, delay = receiver.respond(json.loads(body))
                time.sleep(delay)
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", receiver.url + "redirected")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                with contextlib.suppress(OSError):  # the service may have given up waiting
                    self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def signature_ok(secret: str, call: Call, max_age: float = 300) -> bool:
    """What a bot checks (docs/http-bots.md): HMAC-SHA256 of ``<timestamp>.<body>``, fresh timestamp."""
    timestamp = call.headers["X-Tute-Timestamp"]
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + call.body, hashlib.sha256).hexdigest()
    fresh = abs(time.time() - int(timestamp)) < max_age
    return fresh and hmac.compare_digest(call.headers["X-Tute-Signature"], f"sha256={expected}")
