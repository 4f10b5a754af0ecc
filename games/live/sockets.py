"""A match's WebSocket (``/api/v1/matches/{id}/ws``, Django Channels): the same events as the event
stream and the long polls, redacted for the caller, and actions with the meaning of ``POST …/actions``.

The protocol (docs/clients.md, "Transports"): every frame is a JSON object with a ``type``.

- Authentication, once: the ``Authorization: Bearer <token>`` header of the handshake, or a first
  frame ``{"type": "auth", "token": "..."}`` within :data:`AUTH_SECONDS`. The token is looked up as
  the HTTP API does (``players.selectors.player_by_token``), the match as its reads do
  (``match_membership``: a seat, or a spectator of a public match, M5).
- The server then sends ``{"type": "ready", "match_id", "seat", "spectator", "seq"}``, every event
  after ``?after=N`` as ``{"type": "event", "event": {"seq", "type", "seat", "data", "at"}}``, and
  each new event as it happens. When the events sent leave the match at the seat's turn, it sends
  ``{"type": "turn", "match": {…the caller's view…}}`` (once a seq, and not for a turn that the answer
  to the caller's own action showed): the ``legal_actions`` to choose from, with no ``GET`` of the
  view. ``{"type": "ping"}`` when nothing was sent for a while; a client may send ``{"type": "ping"}``
  and gets ``{"type": "pong"}``.
- ``{"type": "action", "action": {…the body of POST …/actions…}, "idempotency_key"?: "...", "ref"?: …}``
  is answered ``{"type": "result", "ref", "status": 200, "match": {…the caller's view…}}`` or
  ``{"type": "error", "ref", "status", "problem": {…the same problem details…}}``: the same service, the
  same codes, and the same ``Idempotency-Key`` records (a key retried over HTTP or the socket gets the
  first answer). The answer comes before the events the action caused.
- The server closes with a code a client can act on (:data:`CLOSE_CODES`); before closing for a
  refusal it sends ``{"type": "error", "status", "problem"}``.

News reaches the sockets as it reaches the long polls and the event streams: each socket awaits the
match's live-update channel (:func:`.channels.asubscribe`: in the process, fed by one Redis
subscription per process across processes), then reads the events after the last ``seq`` it sent
from the log, redacted for its seat, so a socket never relies on a message's content. An open socket
of a seated player counts as presence (M2), refreshed as it wakes; a spectator's holds a
:class:`~.watchers.Watch`. A socket lives ``STREAM_MAX_SECONDS`` at most.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs
from uuid import UUID

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError, close_old_connections
from django.urls import reverse
from rest_framework import exceptions
from rest_framework.response import Response

from games.matches import services
from games.matches.bodies import event_body, match_view
from games.matches.idempotency import answer_once
from games.matches.models import Match, MatchStatus
from games.matches.selectors import EventsAfter, match_membership
from games.matches.serializers import MAX_SEQ, ActionInputSerializer, MatchSerializer
from games.turns import presence
from players.authentication import MAX_TOKEN_LENGTH
from players.models import Player
from players.selectors import player_by_token
from tute_api import json_codec
from tute_api.errors import problem, problem_of
from tute_api.idempotency import idempotency_for
from tute_api.threads import Lane, in_thread
from tute_api.throttling import PlayerRateThrottle

from . import channels, watchers
from .slots import connection_lifetime, connection_slot
from .stream import BATCH, events_read, keepalive_seconds, presence_counts
from .waits import kept_or_read

logger = logging.getLogger(__name__)

#: Seconds a socket without an ``Authorization`` header has to send its ``auth`` frame.
AUTH_SECONDS = 10.0

#: The close codes, each with what the client should do.
CLOSE_CODES = {
    1000: "match_over: every event was sent and nothing more will happen; do not reconnect",
    4000: "lifetime: the socket reached its lifetime (STREAM_MAX_SECONDS at most); reconnect with ?after=<last seq>",
    4400: "bad_request: a malformed query or frame; fix the client",
    4401: "not_authenticated or authentication_failed: no token, or not a valid one; do not retry it",
    4404: "not_found: no such match, or not one the caller may watch; do not retry",
    4429: "too_many_connections or too_many_spectators: wait retry_after seconds, close another connection",
    4503: "service_unavailable: a dependency is away; reconnect after a pause with ?after=<last seq>",
}
#: The server going away (a deploy) closes with 1001 or 1012 (the server's): reconnect with ?after=<last seq>.

_CLOSE_OF_STATUS = {400: 4400, 401: 4401, 403: 4404, 404: 4404, 429: 4429, 503: 4503}


@dataclass
class _Read:
    events: list[dict[str, Any]]
    last_seq: int
    over: bool
    turn: dict[str, Any] | None  # the caller's view, when the events leave the match at their turn


def header_token(scope: dict[str, Any]) -> str | None:
    """The bearer token of a socket's handshake (``""`` for another scheme), or None without the header."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return None


async def socket_player(token: str) -> Player | None:
    """The player of a socket's token, looked up as the HTTP API does; None for a token that is not valid."""
    valid = 0 < len(token) <= MAX_TOKEN_LENGTH  # as the HTTP API reads the header
    return await in_thread(player_by_token)(token) if valid else None


#: The refusal of a token that is not valid.
BAD_TOKEN = problem(401, "authentication_failed", "The token is not valid (it may have been rotated).")
#: The refusal of a socket that sent no token in time, or another frame first.
NO_TOKEN = problem(401, "not_authenticated", 'Send {"type": "auth", "token": …} first.')


def close_code(status: int) -> int:
    """The close code of a refusal's HTTP status (:data:`CLOSE_CODES`)."""
    return _CLOSE_OF_STATUS.get(status, 4503)


def unavailable() -> dict[str, Any]:
    return problem(503, "service_unavailable", "A dependency of the service is away; try again in a moment.")


def act(*, player: Player, match_id: UUID, frame: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """An ``action`` frame, as ``POST /matches/{id}/actions`` would answer it: (status, body)."""
    body = frame.get("action")
    try:
        throttle = PlayerRateThrottle()  # an action over the socket counts as a request of the player
        if not throttle.allow_request(SimpleNamespace(user=player), None):  # type: ignore[arg-type]
            raise exceptions.Throttled(throttle.wait())
        serializer = ActionInputSerializer(data=body)
        serializer.is_valid(raise_exception=True)
        key = frame.get("idempotency_key")
        path = reverse("api_v1:match-actions", kwargs={"match_id": match_id}) if key is not None else ""
        idempotency = idempotency_for(key, "POST", path, body)

        def respond() -> Response:
            played = services.match_act(
                player=player,
                match_id=match_id,
                action=serializer.action(),
                expected_seq=serializer.validated_data.get("expected_seq"),
            )
            return Response(MatchSerializer(match_view(played.match, played.seat, played.state)).data)

        answer = answer_once(player, idempotency, respond)
        return answer.status_code, dict(answer.data)
    except exceptions.APIException as exc:
        return exc.status_code, problem_of(exc)
    except DatabaseError:
        logger.exception("The database failed a socket's action on match %s", match_id)
        return 503, unavailable()


class AuthenticatedSocket(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """What the service's sockets share: the token of the handshake or of a first ``auth`` frame (within
    :data:`AUTH_SECONDS`), refusals as an error frame and a close code (:data:`CLOSE_CODES`), background
    tasks cancelled and what the socket holds given back (:meth:`_leave`) once it closes. A subclass
    starts in :meth:`_start` and holds ``player`` from then on."""

    player: Player | None
    closed: bool
    tasks: list[asyncio.Task[None]]

    async def _authenticate(self) -> None:
        """Start with the handshake's token, or wait for the ``auth`` frame."""
        token = header_token(self.scope)
        if token is not None:
            await self._start(token)
        else:
            self.tasks.append(asyncio.create_task(self._auth_deadline()))

    async def _start(self, token: str) -> None:
        """The token's player, then :meth:`_open` (refusals as problems; a dependency away: 4503), then
        :meth:`_opened`."""
        try:
            player = await socket_player(token)
            if player is None:
                await self._refuse(BAD_TOKEN)
                return
            await self._open(player)
        except exceptions.APIException as exc:
            await self._refuse(problem_of(exc))
            return
        except Exception:  # the database or Redis is away
            logger.exception("A socket of %s could not start", self.scope.get("path"))
            await self._refuse(unavailable())
            return
        await self._opened()

    async def _open(self, player: Player) -> None:
        """Take the socket's seat, slot and leases for ``player``; raise an ``APIException`` to refuse."""
        raise NotImplementedError

    async def _opened(self) -> None:
        """The socket is open: say ``ready`` and send what the client missed."""
        raise NotImplementedError

    async def _before_start(self, kind: str | None, content: Any) -> bool:
        """A frame before the socket started: the ``auth`` frame starts it, any other is refused. False
        once started: the subclass reads the frame."""
        if self.player is not None:
            return False
        if kind == "auth" and isinstance(content.get("token"), str):
            await self._start(content["token"])
        else:
            await self._refuse(NO_TOKEN)
        return True

    async def _auth_deadline(self) -> None:
        await asyncio.sleep(AUTH_SECONDS)
        if self.player is None:
            await self._refuse(NO_TOKEN)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        """A frame's JSON, compact, through orjson (a socket sends several frames an action); what orjson
        cannot write (a client's ``ref`` of more than 64 bits) through ``json``."""
        try:
            return json_codec.dumps(content).decode()
        except TypeError:
            return await super().encode_json(content)  # type: ignore[no-any-return]

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        try:
            return await super().decode_json(text_data)
        except ValueError:
            return None  # answered as a frame of no type

    async def _refuse(self, body: dict[str, Any]) -> None:
        """An error frame with the problem, then the close code of its status."""
        if self.closed:
            return
        await self.send_json({"type": "error", "status": body["status"], "problem": body})
        await self._close(close_code(body["status"]), body["code"])

    async def _close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            await self.close(code=code, reason=reason[:120])
            await in_thread(self._leave)()  # now, not when the server reports the disconnection

    async def disconnect(self, code: int) -> None:
        self.closed = True
        current = asyncio.current_task()
        for task in self.tasks:
            if task is not current:
                task.cancel()
        # Forgotten (the loop runs them to their end): a cancelled task keeps its CancelledError, whose
        # traceback holds the task's frame and this socket, a cycle through this list (tute_api/cycles.py).
        self.tasks.clear()
        await in_thread(self._leave)()

    def _leave(self) -> None:
        """Give back what the socket holds (a slot of the player's cap, a spectator's lease); once."""


class MatchSocket(AuthenticatedSocket):
    """One client's socket on one match."""

    async def connect(self) -> None:
        self.match_id: UUID = self.scope["url_route"]["kwargs"]["match_id"]
        self.player: Player | None = None
        self.seat: int | None = None
        self.after = 0
        self.over = False
        self.closed = False
        self.leases: list[watchers._Lease] = []
        self.slot: connection_slot | None = None
        self.ticks = False
        self.tasks: list[asyncio.Task[None]] = []
        self.reading = asyncio.Lock()
        self.keepalive = float(settings.STREAM_KEEPALIVE_SECONDS)
        self.last_sent = 0.0
        self.turn_seq = -1  # the seq of the last view that showed the seat its turn
        await self.accept()  # refusals are then a frame and a close code with a reason
        after = parse_qs(self.scope.get("query_string", b"").decode()).get("after", ["0"])[-1]
        if not after.isdigit() or int(after) > MAX_SEQ:
            await self._refuse(problem(400, "invalid", f"after must be a whole number from 0 to {MAX_SEQ}."))
            return
        self.after = int(after)
        await self._authenticate()

    async def _open(self, player: Player) -> None:
        membership = await in_thread(match_membership)(match_id=self.match_id, player=player)
        self.player, self.seat = player, membership.seat
        self.spectator, self.opened_at_seq = membership.spectator, membership.match.seq
        await in_thread(self._lease)(membership.spectator)
        # What an idle tick owes: a spectator's lease, or a seat's presence where the match counts it
        # (M2), or may once it starts; a seat against bots (M3) owes nothing, costs no thread and wakes
        # only as often as a proxy needs.
        keeps_present, self.keepalive = await in_thread(self._liveness)(membership.match, membership.seat, player.pk)
        self.ticks = membership.spectator or keeps_present

    async def _opened(self) -> None:
        await self.send_json(
            {
                "type": "ready",
                "match_id": str(self.match_id),
                "seat": self.seat,
                "spectator": self.spectator,
                "seq": self.opened_at_seq,
            }
        )
        listening = asyncio.Event()
        self.tasks.append(asyncio.create_task(self._listen(listening)))
        await listening.wait()  # subscribed before the first read: no news is missed in between
        await self._catch_up()
        if not self.closed:
            self.tasks.append(asyncio.create_task(self._tick()))

    def _lease(self, spectator: bool) -> None:
        """Count the socket against the player's cap of live connections (its long polls and streams
        too), and a spectator's against the match's (429s)."""
        assert self.player is not None
        self.slot = connection_slot(self.player.pk, "socket").acquire()
        if spectator:
            lease = watchers.Watch(self.match_id)
            lease.enter()
            self.leases.append(lease)

    def _liveness(self, match: Match, seat: int | None, player_id: object) -> tuple[bool, float]:
        """Whether the socket keeps its seat present (M2), and how often it wakes when idle: one thread hop."""
        keeps_present = presence_counts(match, seat, player_id)
        return keeps_present, keepalive_seconds(self.match_id, keeps_present=keeps_present, spectator=self.spectator)

    def _read(self) -> _Read:
        """The events after the last sent, redacted for the seat, and the seat's view if they leave the
        match at its turn; the seat is seen (M2), a lease renewed."""
        close_old_connections()
        read = events_read(self.match_id, self.after)
        self._seen()
        rows = read.events
        events = [event_body(row, self.seat) for row in rows]
        last = rows[-1].seq if rows else self.after
        over = read.status in (MatchStatus.FINISHED, MatchStatus.CANCELLED, None) and len(rows) < BATCH
        return _Read(events, last, over, self._turn(read, last))

    def _turn(self, read: EventsAfter, last: int) -> dict[str, Any] | None:
        """The seat's view (``GET /matches/{id}``'s body) when the events sent up to ``last`` leave the match at
        the seat's turn, once a seq: what the player may do now, with no read of their own. The match row is
        the one kept past the last event (the long polls' rows), else read; None if it has moved on since (the
        news of that move comes next)."""
        if self.seat is None or read.status != MatchStatus.ACTIVE or read.turn != self.seat:
            return None
        if read.seq != last or last <= self.turn_seq:  # events still to send, or the turn already shown
            return None
        match = kept_or_read(self.match_id, last - 1)
        if match is None or match.seq != last:  # at the read's seq, the row is the read's match: same turn, status
            return None
        self.turn_seq = last
        return dict(MatchSerializer(match_view(match, self.seat)).data)

    def _seen(self) -> None:
        # Only a seated human of a match with presence (M2), as the middleware decides: a spectator, a
        # match against bots (M3) or one over costs no UPDATE.
        if self.player is not None and str(self.player.pk) in presence.tracked_players(self.match_id):
            presence.touch(match_id=self.match_id, player_id=self.player.pk)
        for lease in self.leases:
            lease.renew()

    async def _catch_up(self) -> None:
        """Send every event after the last sent; close once the match is over and all is sent."""
        async with self.reading:
            while not self.closed:
                try:
                    read = await in_thread(self._read, lane=Lane.NEWS)()
                except Exception:
                    logger.exception("A socket on match %s could not read its events", self.match_id)
                    await self._refuse(unavailable())
                    return
                for event in read.events:
                    await self.send_json({"type": "event", "event": event})
                if read.turn is not None:
                    await self.send_json({"type": "turn", "match": read.turn})
                self.after = read.last_seq
                self.last_sent = asyncio.get_running_loop().time()
                if read.over:
                    await self._close(1000, "match_over")
                    return
                if len(read.events) < BATCH:
                    return

    async def _tick(self) -> None:
        """Pings while idle, the seat kept present, and the socket's lifetime."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + connection_lifetime()
        while not self.closed:
            left = deadline - loop.time()
            if left <= 0:
                await self._close(4000, f"lifetime: reconnect with ?after={self.after}")
                return
            await asyncio.sleep(min(self.keepalive, left))
            if self.closed or loop.time() >= deadline:
                continue
            try:
                if self.ticks:
                    await in_thread(self._seen)()
            except Exception:
                logger.exception("A socket on match %s could not refresh its presence", self.match_id)
            if loop.time() - self.last_sent >= self.keepalive * 0.9:
                await self.send_json({"type": "ping"})
                self.last_sent = loop.time()

    async def _listen(self, listening: asyncio.Event) -> None:
        """Send what is new each time the match's channel has news, for as long as the socket lives."""
        try:
            async with channels.asubscribe(channels.match_channel(self.match_id)) as subscription:
                listening.set()
                while not self.closed:
                    if await subscription.wait(settings.STREAM_MAX_SECONDS) and not self.closed:
                        await self._catch_up()
        finally:
            listening.set()

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if await self._before_start(kind, content):
            return
        if kind == "ping":
            await self.send_json({"type": "pong"})
        elif kind == "action":
            await self._act(content)
        else:
            body = problem(400, "invalid_frame", "A frame's type is `action` or `ping`.")
            await self.send_json({"type": "error", "ref": content.get("ref") if kind else None, "status": 400,
                                  "problem": body})  # fmt: skip

    async def _act(self, frame: dict[str, Any]) -> None:
        assert self.player is not None
        # The answer first, then what the action caused (a read of the news waits for it), so that a turn
        # the answer shows (the player won the trick and leads) is not shown again by a turn frame.
        async with self.reading:
            status, body = await in_thread(act, lane=Lane.MOVE)(player=self.player, match_id=self.match_id, frame=frame)
            ref = frame.get("ref")
            if status < 400:
                if body.get("legal_actions"):
                    self.turn_seq = max(self.turn_seq, body["seq"])
                await self.send_json({"type": "result", "ref": ref, "status": status, "match": body})
            else:
                await self.send_json({"type": "error", "ref": ref, "status": status, "problem": body})

    def _leave(self) -> None:
        if self.slot is not None:
            self.slot.release()
            self.slot = None
        for lease in self.leases:
            lease.leave()
        self.leases = []
