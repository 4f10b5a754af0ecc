"""The turn takers' HTTP API: the heartbeat that keeps a seat connected (M2)."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.matches.bodies import MatchView, match_view
from games.matches.selectors import match_membership
from tute_api.schema import problems

from . import presence
from .models import Presence
from .serializers import HEARTBEAT, HeartbeatSerializer

MATCH_ID = OpenApiParameter("match_id", UUID, OpenApiParameter.PATH, description="The match's id.")


@dataclass(frozen=True)
class Heartbeat:
    """Every tracked human seat's presence, and the match as the caller sees it."""

    presence: list[Presence]
    match: MatchView


class HeartbeatApi(APIView):
    @extend_schema(
        operation_id="matches_heartbeat",
        summary="I am here",
        description="Keeps the caller's seat connected (any authenticated call on the match does too; a "
        "spectator's, M5, keeps nothing). A seat "
        f"silent for `presence_timeout` seconds (default {settings.PRESENCE_TIMEOUT}) is disconnected and "
        f"held for `reconnect_grace` seconds (default {settings.RECONNECT_GRACE}); a call within the grace "
        "reconnects it (`seat_reconnected`), after it the match is cancelled (M2). Answers with every human "
        "seat's presence and the caller's full view.",
        request=None,
        parameters=[MATCH_ID],
        responses={200: HeartbeatSerializer, **problems(401, 404, 429)},
        examples=[HEARTBEAT],
        tags=["matches"],
    )
    def post(self, request: Request, match_id: UUID) -> Response:
        if match_membership(match_id=match_id, player=request.user).seat is not None:  # a spectator's is not (M5)
            presence.touch(match_id=match_id, player_id=request.user.pk)
        membership = match_membership(match_id=match_id, player=request.user)
        seats = presence.presence_of(match_id=match_id)
        view = match_view(membership.match, membership.seat, spectator=membership.spectator)
        return Response(HeartbeatSerializer(Heartbeat(seats, view)).data)
