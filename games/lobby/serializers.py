"""The bodies of play-now's API, with the schema's examples. Output serializers carry comments, not
docstrings (drf-spectacular would put a docstring in the schema)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from games.matches.serializers import OptionsField, SeatSpecField
from tute_api.fields import JSONBoolean, JSONInteger, JSONString, QueryInteger
from tute_api.parsers import WHOLE_NUMBER_MAX
from tute_api.serializers import InputSerializer

from .models import NoticeKind

MATCH_ID = "3f0c2a1e-8b7d-4c55-9e21-6a4f0d9b7c10"
PLAYER_ID = "9b2f6d1a-4e3c-4a8b-b1d7-2c5e8f0a6d34"


class QueueInputSerializer(InputSerializer):
    variant = JSONString(min_length=1, max_length=64, help_text="A variant name of GET /api/v1/variants/.")
    options = OptionsField(required=False, help_text="Options of the variant; defaults fill in the rest.")
    rated = JSONBoolean(
        required=False,
        default=True,
        help_text="Wait in the rated pool (true by default); false: the friendly pool, whose matches change no "
        "rating (their `rated` is false).",
    )
    humans_only = JSONBoolean(
        required=False, default=False, help_text="No registered HTTP bot at the table (built-in bots still fill "
        "the seats nobody takes after the maximum wait)."
    )  # fmt: skip


class StandingSerializer(serializers.Serializer):
    # Where the caller stands in the queue.
    variant = serializers.CharField(source="entry.variant")
    options = OptionsField(source="entry.options")
    rated = serializers.BooleanField(source="entry.rated")
    humans_only = serializers.BooleanField(source="entry.humans_only")
    rating = serializers.FloatField(source="entry.rating", help_text="The caller's rating when they queued.")
    since = serializers.DateTimeField(source="entry.entered_at")
    waited_seconds = serializers.FloatField(source="waited")
    rating_min = serializers.IntegerField(help_text="The range searched now: it widens with the wait.")
    rating_max = serializers.IntegerField()
    bots_at = serializers.DateTimeField(help_text="When built-in bots fill the seats nobody took.")
    match_id = serializers.UUIDField(source="entry.match_id", allow_null=True, help_text="Once seated.")
    seated_at = serializers.DateTimeField(source="entry.seated_at", allow_null=True)


STANDING = OpenApiExample(
    "Waiting",
    value={
        "variant": "clasico",
        "options": {"games_to_win": 1},
        "rated": True,
        "humans_only": False,
        "rating": 1500.0,
        "since": "2026-01-01T12:00:00Z",
        "waited_seconds": 4.2,
        "rating_min": 1295,
        "rating_max": 1705,
        "bots_at": "2026-01-01T12:00:20Z",
        "match_id": None,
        "seated_at": None,
    },
    response_only=True,
)
QUEUE_ENTER = OpenApiExample(
    "Play clásico now", value={"variant": "clasico", "options": {"games_to_win": 1}}, request_only=True
)


class NoticeDataSerializer(serializers.Serializer):
    # What a message says besides its kind: which members come with which kind.
    seat = serializers.IntegerField(
        required=False, help_text="`match_ready`: the caller's seat; `seat_taken`: the seat taken."
    )
    variant = serializers.CharField(required=False, help_text="`match_ready`: the match's variant.")
    seq = serializers.IntegerField(required=False, help_text="`your_turn`: the match's seq at the caller's turn.")
    seats_free = serializers.IntegerField(required=False, help_text="`seat_taken`: the seats still free.")
    reason = serializers.ChoiceField(
        choices=["gone", "cannot_sit"], required=False,
        help_text="`queue_left`: `gone` (no sign of life), `cannot_sit` (the table could not start).",
    )


class NoticeSerializer(serializers.Serializer):
    # One message of the caller's own channel; ids only, never a card.
    id = serializers.IntegerField(help_text="The cursor: read on with `?after=` this id.")
    kind = serializers.ChoiceField(choices=NoticeKind.choices)
    match_id = serializers.UUIDField(allow_null=True)
    data = NoticeDataSerializer(
        help_text="`match_ready`: seat, variant; `your_turn`: seq; `seat_taken`: seat, seats_free; "
        "`queue_left`: reason."
    )
    at = serializers.DateTimeField()


# The messages after the cursor (a component named "Notices" would clash in generated clients with its
# own "notices" list).
class NoticeListSerializer(serializers.Serializer):
    notices = NoticeSerializer(many=True)


NOTICES = OpenApiExample(
    "Seated, then your turn",
    value={
        "notices": [
            {"id": 41, "kind": "match_ready", "match_id": MATCH_ID, "data": {"seat": 2, "variant": "clasico"},
             "at": "2026-01-01T12:00:05Z"},
            {"id": 42, "kind": "your_turn", "match_id": MATCH_ID, "data": {"seq": 9}, "at": "2026-01-01T12:00:09Z"},
        ]
    },
    response_only=True,
)  # fmt: skip


class NoticesQuerySerializer(InputSerializer):
    after = QueryInteger(
        required=False, default=0, min_value=0, max_value=WHOLE_NUMBER_MAX, help_text="Messages after this id."
    )
    wait = QueryInteger(
        required=False, default=0, min_value=0, max_value=30, help_text="Whole seconds to wait for a message."
    )


class HostSerializer(serializers.Serializer):
    # The table's host and their rating in its variant.
    id = serializers.UUIDField()
    username = serializers.CharField()
    rating = serializers.FloatField()


class OpenTableSerializer(serializers.Serializer):
    # A match anyone may sit at (POST /tables/{id}/seat), or an open room anyone may join (POST /rooms/{id}/join).
    kind = serializers.ChoiceField(
        choices=["match", "room"], help_text="`match`: sit with `POST /tables/{id}/seat`; `room`: join with "
        "`POST /rooms/{id}/join`."
    )  # fmt: skip
    id = serializers.UUIDField(help_text="The match's id, or the room's.")
    match_id = serializers.UUIDField(allow_null=True, help_text="The match's id; null for a room.")
    variant = serializers.CharField()
    options = OptionsField()
    seats = serializers.IntegerField(help_text="The seats of the match (of a room's next match).")
    seats_free = serializers.IntegerField(
        help_text="Seats nobody took (in a room: seats beyond its members, which bots take if nobody joins)."
    )
    host = HostSerializer()
    created_at = serializers.DateTimeField()


OPEN_TABLES = OpenApiExample(
    "One table",
    value={
        "kind": "match",
        "id": MATCH_ID,
        "match_id": MATCH_ID,
        "variant": "dos",
        "options": {"games_to_win": 1, "hand_size": 8, "declarations": "auto"},
        "seats": 2,
        "seats_free": 1,
        "host": {"id": PLAYER_ID, "username": "ana", "rating": 1532.5},
        "created_at": "2026-01-01T12:00:00Z",
    },
    response_only=True,
)


class TableInputSerializer(InputSerializer):
    variant = JSONString(min_length=1, max_length=64, help_text="A variant name of GET /api/v1/variants/.")
    options = OptionsField(required=False, help_text="Options of the variant; defaults fill in the rest.")
    seats = serializers.ListField(
        child=SeatSpecField(),
        max_length=8,
        help_text='One entry per seat, in seat order; one `{"open": true}` at least.',
    )


TABLE_CREATE = OpenApiExample(
    "A dos table, one seat free",
    value={"variant": "dos", "options": {"games_to_win": 1}, "seats": [{"player": "me"}, {"open": True}]},
    request_only=True,
)


class SitInputSerializer(InputSerializer):
    seat = JSONInteger(required=False, min_value=0, max_value=7, help_text="A free seat; the first free by default.")
