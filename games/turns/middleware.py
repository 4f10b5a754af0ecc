"""Every authenticated call on a match by one of its seated humans counts as their being there
(RULES.md M2); a spectator's never does (M5)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from rest_framework.exceptions import AuthenticationFailed

from games.matches.selectors import MAX_WAIT_SECONDS
from players.authentication import bearer_player
from players.models import Player
from tute_api.parsers import whole_number
from tute_api.threads import in_thread

from . import presence

logger = logging.getLogger(__name__)

MATCH_PATH = re.compile(r"^/api/v1/matches/(?P<match_id>[0-9a-f-]{36})(?:/|$)")


class PresenceMiddleware:
    """After a call under ``/api/v1/matches/{id}`` by an authenticated player seated at it, touch their
    seat; anyone else's calls (a creator who watches, a spectator) touch nothing.

    A long poll (``?wait=``) is also counted when it starts, as there until its wait is over: a
    poll may wait longer than the presence timeout, and waiting counts as being there.
    """

    sync_capable = async_capable = True  # under ASGI, a sync middleware would hold a thread while a view waits

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        return self._call(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        found = MATCH_PATH.match(request.path)
        if found is None:
            return await self.get_response(request)  # type: ignore[no-any-return,misc]
        match_id = found["match_id"]
        seated = presence.tracked_players_known(match_id)
        if seated is None:  # the first call of this process on the match: one query, in a thread
            seated = await in_thread(presence.tracked_players)(match_id)
        if not seated:
            return await self.get_response(request)  # type: ignore[no-any-return,misc]
        if wait := _wait_seconds(request):
            until = timezone.now() + timedelta(seconds=wait)
            await in_thread(lambda: self._touch(match_id, seated, _bearer_player(request), until=until))()
        response: HttpResponse = await self.get_response(request)  # type: ignore[misc]
        user = getattr(request, "user", None)
        if isinstance(user, Player) and response.status_code < 500:
            await in_thread(self._touch)(match_id, seated, user)
        return response

    def _call(self, request: HttpRequest) -> HttpResponse:
        found = MATCH_PATH.match(request.path)
        if found is None:
            return self.get_response(request)
        match_id = found["match_id"]
        seated = presence.tracked_players(match_id)
        if not seated:  # one human against bots (M3), or not started or over
            return self.get_response(request)
        if wait := _wait_seconds(request):
            self._touch(match_id, seated, _bearer_player(request), until=timezone.now() + timedelta(seconds=wait))
        response = self.get_response(request)
        user = getattr(request, "user", None)  # DRF sets it on the request once it has authenticated
        if isinstance(user, Player) and response.status_code < 500:
            self._touch(match_id, seated, user)
        return response

    @staticmethod
    def _touch(match_id: str, seated: frozenset[str], player: Player | None, until: datetime | None = None) -> None:
        if player is None or str(player.pk) not in seated:  # not one of its seated humans: a spectator
            return
        try:
            presence.touch(match_id=match_id, player_id=player.pk, until=until)
        except Exception:  # presence must never break a call that succeeded
            logger.exception("Could not record the presence of %s at match %s", player.pk, match_id)


def _wait_seconds(request: HttpRequest) -> int:
    """The long poll's ``wait`` in whole seconds, as the API reads it (0 if none, or not one it takes)."""
    wait = whole_number(request.GET.get("wait", ""))
    return wait if wait is not None and wait <= MAX_WAIT_SECONDS else 0


def _bearer_player(request: HttpRequest) -> Player | None:
    """The caller, as the API authenticates them (looked up once for the request); None if it would not."""
    try:
        found = bearer_player(request)
    except AuthenticationFailed:
        return None
    return found[0] if found is not None else None
