"""Webhook calls to bots: how a call is signed, and the call itself.

The bot's URL is checked again at each call (:func:`players.webhook_urls.webhook_target`); the call
then connects to an address that was checked (a name that resolves elsewhere a moment later cannot
redirect it), follows no redirects, and gives up after the bot's timeout.

Signature: ``X-Tute-Timestamp`` is the time in whole seconds and ``X-Tute-Signature`` is
``sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" keyed with the bot's secret>``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import http.client
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any

from players.errors import InvalidWebhookUrl, WebhookAddressNotAllowed
from players.webhook_urls import webhook_target

#: The most of a reply the service reads; a longer one is an error.
MAX_REPLY_BYTES = 64 * 1024
USER_AGENT = "tute-api-webhook/1"
#: Seconds past the bot's timeout after which a call still running is cut off.
WATCHDOG_GRACE = 0.25


@dataclass(frozen=True)
class Reply:
    """How a webhook call went: ``ok`` with the reply's JSON, or ``timeout`` / ``error`` and why."""

    outcome: str
    latency_ms: int
    body: Any = None
    detail: str = ""


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Tute-Signature`` of a body sent at ``timestamp``."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a given address, checking the certificate against the URL's host name."""

    def __init__(self, address: str, port: int, server_hostname: str, timeout: float) -> None:
        super().__init__(address, port, timeout=timeout, context=ssl.create_default_context())
        self.server_hostname = server_hostname

    def connect(self) -> None:
        sock = socket.create_connection((self.host, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.server_hostname)  # type: ignore[attr-defined]


def _shut(connection: http.client.HTTPConnection) -> None:
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def post(url: str, payload: dict[str, Any], *, secret: str, timeout_ms: int, allow_private: bool) -> Reply:
    """POST a signed turn to a bot and read its JSON reply, within ``timeout_ms``; never raises."""
    start = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - start) * 1000)

    body = json.dumps(payload, separators=(",", ":")).encode()
    timestamp = str(int(time.time()))
    timeout = timeout_ms / 1000
    try:
        target = webhook_target(url, allow_private=allow_private)
    except (InvalidWebhookUrl, WebhookAddressNotAllowed) as exc:
        return Reply("error", elapsed(), detail=str(exc.detail))
    connection: http.client.HTTPConnection
    if target.scheme == "https":
        connection = _PinnedHTTPSConnection(target.addresses[0], target.port, target.host, timeout)
    else:
        connection = http.client.HTTPConnection(target.addresses[0], target.port, timeout=timeout)
    headers = {
        "Host": target.host_header,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Tute-Timestamp": timestamp,
        "X-Tute-Signature": signature(secret, timestamp, body),
    }
    # Socket timeouts bound each read, not the whole call: a reply that trickles in is cut off
    # shortly after the deadline by shutting the socket down.
    watchdog = threading.Timer(timeout + WATCHDOG_GRACE, _shut, args=(connection,))
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request("POST", target.path, body, headers)
        response = connection.getresponse()
        raw = response.read(MAX_REPLY_BYTES + 1)
    except TimeoutError:
        return Reply("timeout", elapsed(), detail=f"no reply within {timeout_ms} ms")
    except (OSError, http.client.HTTPException, ValueError) as exc:  # ValueError: a URL it cannot encode
        if elapsed() > timeout_ms:
            return Reply("timeout", elapsed(), detail=f"no complete reply within {timeout_ms} ms")
        return Reply("error", elapsed(), detail=f"the call failed: {type(exc).__name__}: {exc}"[:200])
    finally:
        watchdog.cancel()
        connection.close()
    latency = elapsed()
    if latency > timeout_ms:
        return Reply("timeout", latency, detail=f"replied after {latency} ms, more than {timeout_ms} ms")
    if 300 <= response.status < 400:
        return Reply("error", latency, detail=f"HTTP {response.status}: redirects are not followed")
    if response.status != 200:
        return Reply("error", latency, detail=f"HTTP {response.status}")
    if len(raw) > MAX_REPLY_BYTES:
        return Reply("error", latency, detail=f"the reply is longer than {MAX_REPLY_BYTES} bytes")
    try:
        return Reply("ok", latency, body=json.loads(raw))
    except (ValueError, RecursionError):  # RecursionError: arrays or objects nested too deeply
        return Reply("error", latency, detail="the reply is not JSON we can read")
