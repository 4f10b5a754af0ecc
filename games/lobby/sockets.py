"""The player's own channel as a WebSocket (``/api/v1/me/ws``): the messages of ``GET /me/notices``,
pushed as they come (docs/clients.md, "Your own channel").

The protocol is the match socket's (``games.live.sockets``) where it can be: the ``Authorization: Bearer``
header of the handshake or a first frame ``{"type": "auth", "token": "..."}``; then ``{"type": "ready",
"player_id", "after"}``, every message after ``?after=N`` as ``{"type": "notice", "notice": {…as GET
/me/notices gives it…}}`` and each new one as it comes; ``{"type": "ping"}`` while idle, ``{"type":
"pong"}`` to a client's ping. The same close codes and refusals; a socket takes one of the player's
live connections (``LIVE_CONNECTIONS_PER_PLAYER``) and lives ``STREAM_MAX_SECONDS`` at most (close 4000:
reconnect with ``?after=`` the last id). Reading the channel is a queued player's sign of life.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import parse_qs

from django.conf import settings
from django.db import close_old_connections

from games.live import channels
from games.live.slots import connection_lifetime, connection_slot
from games.live.sockets import AuthenticatedSocket, unavailable
from players.models import Player
from tute_api.errors import problem
from tute_api.parsers import whole_number
from tute_api.threads import Lane, in_thread

from .messages import notice_body
from .models import Notice
from .selectors import NOTICES_BATCH, notices_after
from .services import queue_touch

logger = logging.getLogger(__name__)

class NoticeSocket(AuthenticatedSocket):
    """One client's socket on its player's own channel."""

    async def connect(self) -> None:
        self.player: Player | None = None
        self.slot: connection_slot | None = None
        self.closed = False
        self.tasks: list[asyncio.Task[None]] = []
        await self.accept()  # refusals are then a frame and a close code with a reason
        raw = parse_qs(self.scope.get("query_string", b"").decode()).get("after", ["0"])[-1]
        after = whole_number(raw)
        if after is None:
            await self._refuse(problem(400, "invalid", "after must be a whole number of up to nine digits."))
            return
        self.after = after
        await self._authenticate()

    async def _open(self, player: Player) -> None:
        self.slot = connection_slot(player.pk, "socket").acquire()  # 429 beyond the player's cap
        self.player = player

    async def _opened(self) -> None:
        assert self.player is not None
        await self.send_json({"type": "ready", "player_id": str(self.player.pk), "after": self.after})
        self.tasks.append(asyncio.create_task(self._run(self.player)))

    def _read(self, player: Player) -> list[Notice]:
        close_old_connections()
        queue_touch(player=player)
        return notices_after(player=player, after=self.after)

    async def _run(self, player: Player) -> None:
        """Send what is new whenever the player's channel has news; ping while idle; end at the lifetime."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + connection_lifetime()
        keepalive = float(settings.STREAM_KEEPALIVE_SECONDS)
        async with channels.asubscribe(channels.player_channel(player.pk)) as subscription:
            while not self.closed:
                try:
                    rows = await in_thread(self._read, lane=Lane.NEWS)(player)
                except Exception:
                    logger.exception("A player's socket could not read its messages")
                    await self._refuse(unavailable())
                    return
                for row in rows:
                    await self.send_json({"type": "notice", "notice": notice_body(row)})
                    self.after = row.pk
                if len(rows) == NOTICES_BATCH:
                    continue
                left = deadline - loop.time()
                if left <= 0:
                    await self._close(4000, f"lifetime: reconnect with ?after={self.after}")
                    return
                if not await subscription.wait(min(keepalive, left)) and not self.closed:
                    await self.send_json({"type": "ping"})

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if await self._before_start(kind, content):
            return
        if kind == "ping":
            await self.send_json({"type": "pong"})
        else:
            body = problem(400, "invalid_frame", "A frame's type is `ping`: this channel takes no actions.")
            await self.send_json({"type": "error", "status": 400, "problem": body})

    def _leave(self) -> None:
        if self.slot is not None:
            self.slot.release()
            self.slot = None
