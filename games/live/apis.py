"""The live updates' HTTP API: every read that may wait for news.

``GET /matches/{id}`` and ``GET /matches/{id}/events`` with ``?after=&wait=`` (long polls), the
event stream (SSE), and ``GET /me/turns?wait=`` (the turns a player must play). Each subscribes
before it reads (:mod:`.waits`, :mod:`.stream`) and shows the match as the caller's seat may see it:
a spectator of a public match (seat None, RULES.md M5) sees what the table shows everyone, and is
counted while a stream or long poll of theirs is open (:mod:`.watchers`). ``GET /matches/live``
lists the public matches in play, the most watched first.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.http import HttpResponse, HttpResponseBase, StreamingHttpResponse
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAcceptable
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.matches import examples
from games.matches.bodies import event_body, match_view
from games.matches.selectors import (
    LIVE_MATCHES_RANKED,
    MAX_WAIT_SECONDS,
    Membership,
    live_match_ids,
    match_events,
    match_membership,
    matches_in_order,
)
from games.matches.serializers import EVENT, MAX_SEQ, MatchSerializer
from games.turns.feed import turns_of
from games.turns.serializers import TurnSerializer
from tute_api.fields import QueryInteger
from tute_api.pagination import MAX_PAGE, Pagination
from tute_api.parsers import WHOLE_NUMBER, resume_after
from tute_api.renderers import JSONRenderer
from tute_api.schema import problems
from tute_api.serializers import FlatSerializer

from . import channels, waits, watchers
from .bodies import LiveEntry
from .deferred import DeferrableApi
from .serializers import LIVE_PAGE, LiveMatchPageSerializer, LiveMatchSerializer
from .slots import TOO_MANY_CONNECTIONS, connection_lifetime, connection_slot
from .stream import aevent_stream, event_stream, keepalive_seconds, presence_counts

MATCH_ID = OpenApiParameter("match_id", UUID, OpenApiParameter.PATH, description="The match's id.")


# One message of the event stream, as a client's EventSource hands it over: the stream's
# schema describes each message (as OpenAPI 3.2's itemSchema does), `: keep-alive` comments and the
# opening `retry:` aside, which carry no data.
class StreamMessageSerializer(serializers.Serializer):
    id = serializers.RegexField(r"^[0-9]+$", help_text="The event's `seq`: resume with `Last-Event-ID`.")
    event = serializers.CharField(help_text="The event's `type` (`card_played`, `trick_won`, ...).")
    data = serializers.CharField(
        help_text="The event as `GET /matches/{id}/events` gives it, in JSON: `seq`, `type`, `seat`, `data`, `at`."
    )


STREAM = OpenApiExample(
    "An event",
    value={
        "id": "7",
        "event": "card_played",
        "data": '{"seq":7,"type":"card_played","seat":1,"data":{"card":"O1"},"at":"2026-01-01T12:00:00Z"}',
    },
    response_only=True,
)


class WaitQuerySerializer(FlatSerializer):
    """A long poll's query; the schema documents each query of this module from its serializer."""

    after = QueryInteger(
        required=False,
        min_value=0,
        max_value=MAX_SEQ,
        help_text="With `wait`: answer as soon as the match's `seq` is past this one.",
    )
    wait = QueryInteger(
        required=False,
        min_value=0,
        max_value=MAX_WAIT_SECONDS,
        help_text="Whole seconds to wait for the match to move past `after` before answering (a long poll); "
        "0 by default. Without `after`, or for a match that is over, it answers at once.",
    )


#: A spectator's long poll or stream beyond the match's cap (M5); any wait beyond the player's cap.
S429 = (
    "Too many requests (`throttled`); `Retry-After` says how long to wait. A spectator's long poll "
    "beyond the match's cap of watchers (`SPECTATORS_PER_MATCH`): `too_many_spectators`. A long poll "
    "beyond the caller's cap of open waits, streams and sockets (`LIVE_CONNECTIONS_PER_PLAYER`): "
    f"`{TOO_MANY_CONNECTIONS}`."
)


def _long_poll(request: Request, match_id: UUID, query: WaitQuerySerializer, answer: Any) -> HttpResponseBase:
    """``answer`` the caller's membership of the match, after a long poll if the query asks for one."""
    data = query.validated_data
    return waits.match_long_poll(
        match_id=match_id, player=request.user, after=data.get("after"), wait=data.get("wait") or 0, answer=answer
    )


class MatchLongPollApi(DeferrableApi):
    """A read of a match that may be a long poll: it waits on the match's channel."""

    @classmethod
    def channel_of(cls, kwargs: dict[str, Any]) -> str | None:
        return channels.match_channel(kwargs["match_id"])


class MatchDetailApi(MatchLongPollApi):
    @extend_schema(
        operation_id="matches_retrieve",
        summary="The match as the caller sees it",
        description="With `after` and `wait`, a long poll: the answer comes as soon as the match moves past "
        "`after` (a bot played, someone joined), or after `wait` seconds. Any player may read a public match "
        "(RULES.md M5) as a spectator: `my_seat` null, no hand, no invite code, what the table shows everyone.",
        parameters=[MATCH_ID, WaitQuerySerializer],
        responses={200: MatchSerializer, **problems(400, 401, 404, 429, s429=S429)},
        examples=[examples.MATCH_VIEW, examples.SPECTATOR_VIEW],
        tags=["matches"],
    )
    def get(self, request: Request, match_id: UUID) -> HttpResponseBase:
        query = WaitQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)

        def answer(membership: Membership) -> Response:
            view = match_view(membership.match, membership.seat, spectator=membership.spectator)
            return Response(MatchSerializer(view).data)

        return _long_poll(request, match_id, query, answer)


class MatchEventsApi(MatchLongPollApi):
    class QuerySerializer(WaitQuerySerializer):
        after = QueryInteger(
            required=False, default=0, min_value=0, max_value=MAX_SEQ, help_text="Only events with a greater seq."
        )
        limit = QueryInteger(
            required=False, default=1000, min_value=1, max_value=1000, help_text="At most this many events."
        )

    @extend_schema(
        operation_id="matches_events_list",
        summary="The match's events after a seq",
        description="Oldest first, each as the caller may see it (other hands and the stock are hidden; a "
        "spectator of a public match sees no hand at all). With `wait`, a long poll: the answer comes as soon as "
        "there is an event after `after`. Pushed as they happen: the event stream (`…/stream`) or the WebSocket "
        '`/api/v1/matches/{id}/ws` (docs/clients.md, "Transports").',
        parameters=[
            MATCH_ID,
            QuerySerializer,
        ],
        responses={200: EVENT, **problems(400, 401, 404, 429, s429=S429)},
        examples=examples.EVENTS,
        tags=["matches"],
    )
    def get(self, request: Request, match_id: UUID) -> HttpResponseBase:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data

        def answer(membership: Membership) -> Response:
            rows = match_events(match=membership.match, after=data["after"], limit=data["limit"])
            return Response([event_body(row, membership.seat) for row in rows])

        return _long_poll(request, match_id, query, answer)


class EventStreamRenderer(BaseRenderer):
    """Lets ``Accept: text/event-stream`` through content negotiation; errors are still JSON problems."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return JSONRenderer().render(data)


class MatchStreamApi(DeferrableApi):
    # An event stream for any Accept that admits one (none, */*, text/*); problems are JSON either way.
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    class QuerySerializer(FlatSerializer):
        after = QueryInteger(
            required=False,
            min_value=0,
            max_value=MAX_SEQ,
            help_text="Start after this seq (default: `Last-Event-ID`, else 0).",
        )

    @extend_schema(
        operation_id="matches_stream",
        summary="Server-sent events: the match's events as they happen",
        description="`text/event-stream`: each event of the log, redacted for the caller, with `id:` its seq and "
        "`event:` its type; `: keep-alive` comments while nothing happens. A connection lasts a few minutes; "
        "reconnect with `Last-Event-ID` (or `?after=`) to resume without losing or repeating an event. A server "
        "that shuts down (a deploy) ends the stream with an event `server_closing` "
        '(`data: {"reason": "shutdown", "retry_ms": 1000}`): reconnect the same way. The '
        "stream ends once the match is over and every event is sent; 204 if there is nothing more to send. An "
        "`Accept` header that admits no `text/event-stream` gets 406. A spectator of a public match (M5) gets the "
        "events as the table shows them to everyone; beyond the match's cap of watchers, 429 "
        "`too_many_spectators`; beyond the caller's cap of open waits and streams, 429 "
        f"`{TOO_MANY_CONNECTIONS}`. The same events also come over a WebSocket, `/api/v1/matches/{{id}}/ws` "
        "(resumed with `?after=`, which also takes actions; the schema cannot describe it: docs/clients.md, "
        '"Transports").',
        parameters=[
            MATCH_ID,
            QuerySerializer,
            OpenApiParameter(
                "Last-Event-ID", WHOLE_NUMBER, OpenApiParameter.HEADER, description="The last seq received."
            ),
            OpenApiParameter("format", exclude=True),  # DRF's ?format= names renderers: JSON here is for problems
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                StreamMessageSerializer,
                description="Each message of the stream: `id:` the seq, `event:` the type, `data:` the event.",
                examples=[STREAM],
            ),
            204: OpenApiResponse(description="The match is over and every event was sent."),
            **problems(400, 401, 404, 406, 429, s429=S429.replace("long poll", "stream")),
        },
        tags=["matches"],
    )
    def get(self, request: Request, match_id: UUID) -> HttpResponse:
        if request.accepted_renderer.media_type != EventStreamRenderer.media_type:
            raise NotAcceptable("This is an event stream: send Accept: text/event-stream (or */*).")
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after = resume_after(request, query.validated_data.get("after"))
        membership = match_membership(match_id=match_id, player=request.user)
        match = membership.match
        if match.status in ("finished", "cancelled") and after >= match.seq:
            return HttpResponse(status=204)
        # A seated viewer's stream keeps the seat connected (where the match counts it): it wakes well
        # within the timeout; a spectator's renews its lease as it wakes (M5).
        keeps_present = presence_counts(match, membership.seat, request.user.pk)
        keepalive = keepalive_seconds(match.id, keeps_present=keeps_present, spectator=membership.spectator)
        slot = connection_slot(request.user.pk, "stream").acquire()  # 429 beyond the player's cap
        watch = None
        try:
            if membership.spectator:
                watch = watchers.Watch(match.id)
                watch.enter()
        except Exception:
            slot.release()
            raise
        stream = dict(
            match_id=match.id,
            seat=membership.seat,
            player_id=request.user.pk,
            after=after,
            lifetime=connection_lifetime(),
            keepalive=keepalive,
            watch=watch,
            slot=slot,
            keeps_present=keeps_present,
        )
        content = aevent_stream(**stream) if waits.deferring() else event_stream(**stream)  # type: ignore[arg-type]
        response = StreamingHttpResponse(content, content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
        return response


LivePagination = Pagination


class LiveMatchesApi(APIView):
    class QuerySerializer(FlatSerializer):
        page = QueryInteger(required=False, min_value=1, max_value=MAX_PAGE, help_text="1 by default.")
        page_size = QueryInteger(
            required=False, min_value=1, max_value=LivePagination.max_page_size, help_text="20 by default."
        )

    @extend_schema(
        operation_id="matches_live",
        summary="Public matches in play, the most watched first",
        description="The TV page (RULES.md M5): matches created `public` that are being played, the most "
        "watched first (spectators with a stream or a long poll open now), then the latest moved; paginated, no "
        "card. Watch one with `GET /matches/{id}`, its `/events` or its `/stream`. Ranks the "
        f"{LIVE_MATCHES_RANKED:,} public matches that moved last.",
        parameters=[QuerySerializer],
        responses={
            200: LiveMatchPageSerializer,
            **problems(400, 401, 404, 429, s404="`not_found`: a page past the last."),
        },
        examples=[LIVE_PAGE],
        tags=["matches"],
    )
    def get(self, request: Request) -> Response:
        self.QuerySerializer(data=request.query_params).is_valid(raise_exception=True)
        ids = live_match_ids()
        watching = watchers.counts(ids)
        ranked = sorted(ids, key=lambda match_id: -watching[str(match_id)])  # stable: the latest moved first
        paginator = LivePagination()
        page = paginator.paginate_queryset(ranked, request, view=self) or []  # type: ignore[arg-type]
        entries = [LiveEntry(match, watching[str(match.id)]) for match in matches_in_order(list(page))]
        return paginator.get_paginated_response(LiveMatchSerializer(entries, many=True).data)


class TurnsOutputSerializer(serializers.Serializer):
    turns = TurnSerializer(many=True)


class MyTurnsApi(DeferrableApi):
    class QuerySerializer(FlatSerializer):
        wait = QueryInteger(
            required=False,
            default=0,
            min_value=0,
            max_value=MAX_WAIT_SECONDS,
            help_text="Whole seconds to wait for a turn.",
        )

    @extend_schema(
        operation_id="me_turns",
        summary="The matches where the caller must act (a long poll)",
        description="Every active match where it is the caller's turn, with the caller's view and "
        "`legal_actions`. With `wait`, answers as soon as there is one, or with an empty list after `wait` "
        "seconds. Answer each with `POST /matches/{match_id}/actions` and `expected_seq`. For an app, the "
        '"your turn in 3 matches" of its home screen; for a `poll` bot, how it gets its turns '
        "(docs/http-bots.md), within its `timeout_ms` (`deadline_ms` says what is left).",
        parameters=[QuerySerializer],
        responses={200: TurnsOutputSerializer, **problems(400, 401, 429, s429=S429)},
        examples=[
            OpenApiExample(
                "A turn",
                value={
                    "turns": [
                        {
                            "match_id": examples.MATCH_VIEW.value["id"],
                            "seq": examples.MATCH_VIEW.value["seq"],
                            "seat": examples.MATCH_VIEW.value["my_seat"],
                            "deadline_ms": 1850,
                            "view": examples.MATCH_VIEW.value,
                            "legal_actions": examples.MATCH_VIEW.value["legal_actions"],
                        }
                    ]
                },
                response_only=True,
            ),
            OpenApiExample("No turn yet", value={"turns": []}, response_only=True),
        ],
        tags=["matches"],
    )
    def get(self, request: Request) -> HttpResponseBase:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return waits.player_long_poll(
            player=request.user,
            kind="turns",
            timeout=query.validated_data["wait"],
            read=lambda: turns_of(player=request.user),
            answer=lambda found: Response(TurnsOutputSerializer({"turns": found}).data),
        )
