"""The players' HTTP API: one small view per operation, no logic (HackSoft style)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db import transaction
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tute_api.created import created, location
from tute_api.fields import JSONInteger, JSONString
from tute_api.idempotency import IDEMPOTENCY_HEADER, idempotency_of
from tute_api.schema import problems
from tute_api.serializers import InputSerializer as RequestSerializer

from .errors import UsernameTaken
from .models import Bot, BotDelivery
from .selectors import bot_owned, bot_stats, bots_of
from .services import (
    bot_credentials_rotate,
    bot_register,
    bot_retire,
    bot_update,
    player_create,
    player_token_rotate,
)
from .signup import signup_answer_first, signup_answer_keep

USERNAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{2,29}$"
USERNAME_RULE = "3–30 letters, digits, underscores, dots or hyphens, starting with a letter or digit"


class NameField(JSONString, serializers.RegexField):
    """A username: a JSON string only (DRF would take the number 1234 as the name "1234")."""


class PlayerOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    username = serializers.CharField()
    created_at = serializers.DateTimeField()


class PlayerWithTokenOutputSerializer(PlayerOutputSerializer):
    token = serializers.CharField(help_text="Send it as `Authorization: Bearer <token>`. Shown only now.")


_PLAYER_EXAMPLE = {
    "id": "5f0c8a9e-3d1b-4c55-9a3e-0f6f2a1b7c11",
    "username": "ana",
    "created_at": "2026-01-01T12:00:00Z",
}
_TOKEN_EXAMPLE = {**_PLAYER_EXAMPLE, "token": "kq3oV1p6l2Rk5cE0nqCwK1m7d3nVt2b6Zr0mQe8uYxA"}


class PlayerCreateApi(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    class InputSerializer(RequestSerializer):
        class Meta:
            ref_name = "PlayerCreateInput"  # its component's name (generated clients name their class after it)

        username = NameField(
            USERNAME_PATTERN,
            help_text=f"{USERNAME_RULE}; unique regardless of case.",
            error_messages={"invalid": f"A username is {USERNAME_RULE}."},
        )

    @extend_schema(
        operation_id="players_create",
        summary="Create a player",
        description="Creates a player and returns its bearer token, once. Tokens are stored hashed. With an "
        "`Idempotency-Key` (a fresh random UUID), a retry of the same sign-up within 24 hours gets the first "
        "answer again, token included (`Idempotent-Replayed: true`), instead of 409 `username_taken`: a lost "
        "answer loses no account. The first answer is kept sealed under the key, which the service never "
        "stores.",
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: PlayerWithTokenOutputSerializer, **problems(400, 409, 422, 429)},
        examples=[
            OpenApiExample("A new player", value={"username": "ana"}, request_only=True),
            OpenApiExample("Created", value=_TOKEN_EXAMPLE, response_only=True, status_codes=["201"]),
        ],
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        idempotency = idempotency_of(request)
        if idempotency is None:
            data = self._create(serializer.validated_data)
            return created(data, _profile(data))
        replayed = {"Idempotent-Replayed": "true"}
        if (first := signup_answer_first(idempotency)) is not None:
            return created(first, _profile(first), replayed)
        try:
            with transaction.atomic():
                data = self._create(serializer.validated_data)
                signup_answer_keep(idempotency, data)
        except UsernameTaken:  # the same sign-up, at the same moment, may have taken the name first
            if (first := signup_answer_first(idempotency)) is not None:
                return created(first, _profile(first), replayed)
            raise
        return created(data, _profile(data))

    @staticmethod
    def _create(validated: dict[str, Any]) -> dict[str, Any]:
        player, token = player_create(**validated)
        # (the serializer's own ReturnDict: the answer's closer unties the serializer, tute_api/cycles.py)
        data: dict[str, Any] = PlayerWithTokenOutputSerializer({**_fields(player), "token": token}).data
        return data


class PlayerMeApi(APIView):
    @extend_schema(
        operation_id="players_me",
        summary="The calling player",
        responses={200: PlayerOutputSerializer, **problems(401, 429)},
        examples=[OpenApiExample("Me", value=_PLAYER_EXAMPLE, response_only=True)],
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        return Response(PlayerOutputSerializer(_fields(request.user)).data)


class PlayerTokenRotateApi(APIView):
    @extend_schema(
        operation_id="players_me_token_rotate",
        summary="Rotate the calling player's token",
        description="Issues a new token and revokes the one used for this call (and any other). A bot's "
        "credentials are rotated by its owner (`POST /bots/{id}/token`): 403 `not_your_bot` for a bot.",
        request=None,
        responses={
            201: PlayerWithTokenOutputSerializer,
            **problems(401, 403, 429, s403="`not_your_bot`: the caller is a bot."),
        },
        examples=[OpenApiExample("Rotated", value=_TOKEN_EXAMPLE, response_only=True, status_codes=["201"])],
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        token = player_token_rotate(player=request.user)
        data = PlayerWithTokenOutputSerializer({**_fields(request.user), "token": token}).data
        return created(data, location("players-me"))  # the player whose new token it is


def _fields(player: object) -> dict[str, object]:
    return {name: getattr(player, name) for name in ("id", "username", "created_at")}


def _profile(player: dict[str, Any]) -> str:
    """The path of a new player's public profile."""
    return location("players-profile", player_id=player["id"])


# -- bots over HTTP (docs/http-bots.md) --------------------------------------------------------------


class BotOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField(help_text="The bot's id, which is also its player's id: seat it with `{\"bot\": id}`.")
    name = serializers.CharField(help_text="The bot's player's username.")
    delivery = serializers.ChoiceField(choices=BotDelivery.choices)
    webhook_url = serializers.CharField(allow_null=True)
    timeout_ms = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class BotWithCredentialsOutputSerializer(BotOutputSerializer):
    token = serializers.CharField(help_text="The bot's bearer token. Shown only now.")
    secret = serializers.CharField(help_text="Keys the HMAC-SHA256 of each webhook call. Shown only now.")


class LatencySerializer(serializers.Serializer):
    p50 = serializers.IntegerField(allow_null=True)
    p95 = serializers.IntegerField(allow_null=True)
    p99 = serializers.IntegerField(allow_null=True)
    samples = serializers.IntegerField(help_text="The latest turns the percentiles are over (at most 1000).")


class RecentFallbackSerializer(serializers.Serializer):
    match_id = serializers.UUIDField()
    seq = serializers.IntegerField(help_text="The match's seq when the bot was to act.")
    outcome = serializers.ChoiceField(choices=["timeout", "error", "illegal"])
    detail = serializers.CharField(
        allow_blank=True,
        help_text="What went wrong, for the owner only: the rule the reply broke (it may name a card the bot "
        "held), the call's error. The players saw only the reason.",
    )
    at = serializers.DateTimeField()


class BotStatsOutputSerializer(serializers.Serializer):
    bot_id = serializers.UUIDField()
    delivery = serializers.ChoiceField(choices=BotDelivery.choices)
    turns = serializers.IntegerField(
        help_text="Turns since the bot was registered: webhook calls, or a poll bot's turns."
    )
    ok = serializers.IntegerField(help_text="Turns whose reply (or polled action) was played.")
    timeouts = serializers.IntegerField(help_text="Replies (or polled actions) later than `timeout_ms`, or none.")
    errors = serializers.IntegerField(help_text="Calls that failed or whose reply was not an action.")
    illegal = serializers.IntegerField(help_text="Replies that the rules refused.")
    fallbacks = serializers.IntegerField(help_text="Level-2 moves played for the bot: timeouts + errors + illegal.")
    latency_ms = LatencySerializer()
    recent_fallbacks = RecentFallbackSerializer(many=True, help_text="The latest 20 fallbacks, latest first.")


_BOT_EXAMPLE = {
    "id": "0b7e3c1a-9f5d-4e2b-8a61-3c4d5e6f7a8b",
    "name": "arrastre",
    "delivery": "webhook",
    "webhook_url": "https://bots.example.com/tute",
    "timeout_ms": 2000,
    "created_at": "2026-01-01T12:00:00Z",
}
_BOT_CREDENTIALS_EXAMPLE = {
    **_BOT_EXAMPLE,
    "token": "Zr0mQe8uYxAkq3oV1p6l2Rk5cE0nqCwK1m7d3nVt2b6",
    "secret": "4f9c0e7d2a1b8c3d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d",
}
BOT_ID = OpenApiParameter("bot_id", UUID, OpenApiParameter.PATH, description="The bot's id.")
_NOT_YOUR_BOT = "`not_your_bot`: the bot is someone else's."
_UNKNOWN_BOT = "`unknown_bot`: no such bot, or it was retired."
_TIMEOUT_HELP = (
    "100 to 10000 ms: how long the bot may take on a turn (a webhook call, or a polled turn), after which "
    "a level-2 move is played for it."
)


def _bot_fields(bot: Bot) -> dict[str, object]:
    return {
        "id": bot.pk,
        "name": bot.player.username,
        "delivery": bot.delivery,
        "webhook_url": bot.webhook_url or None,
        "timeout_ms": bot.timeout_ms,
        "created_at": bot.created_at,
    }


class BotsApi(APIView):
    """``GET``: the caller's bots; ``POST``: register a bot."""

    class BotInputSerializer(RequestSerializer):
        name = NameField(
            USERNAME_PATTERN,
            help_text="The bot's username, as for a player.",
            error_messages={"invalid": f"A bot's name is {USERNAME_RULE}."},
        )
        delivery = serializers.ChoiceField(choices=BotDelivery.choices)
        webhook_url = serializers.CharField(
            required=False, max_length=500, help_text="With `webhook`: the http(s) URL the turns are POSTed to."
        )
        timeout_ms = JSONInteger(
            required=False, min_value=100, max_value=10_000, help_text=_TIMEOUT_HELP + " 2000 by default."
        )

    @extend_schema(
        operation_id="bots_list",
        summary="The caller's bots",
        responses={200: BotOutputSerializer(many=True), **problems(401, 429)},
        examples=[OpenApiExample("My bots", value=_BOT_EXAMPLE, response_only=True)],  # shown as a list of one
        tags=["bots"],
    )
    def get(self, request: Request) -> Response:
        return Response(BotOutputSerializer([_bot_fields(b) for b in bots_of(owner=request.user)], many=True).data)

    @extend_schema(
        operation_id="bots_create",
        summary="Register a bot",
        description="The bot is a player of its own that the caller owns. The answer carries its token and "
        "its signing secret, once. Webhook URLs are http(s) and must resolve only to public addresses "
        "(422 `invalid_webhook_url`, `webhook_address_not_allowed`). See docs/http-bots.md.",
        request=BotInputSerializer,
        responses={
            201: BotWithCredentialsOutputSerializer,
            **problems(400, 401, 403, 409, 422, 429,
                       s403="`not_your_bot`: a bot registers no bots.",
                       s409="`username_taken`: the name is taken; `too_many_bots`: the caller owns 20 bots.",
                       s422="`invalid_webhook_url` or `webhook_address_not_allowed`."),
        },  # fmt: skip
        examples=[
            OpenApiExample("A poll bot", value={"name": "arrastre", "delivery": "poll"}, request_only=True),
            OpenApiExample(
                "A webhook bot",
                value={"name": "arrastre", "delivery": "webhook", "webhook_url": "https://bots.example.com/tute",
                       "timeout_ms": 2000},
                request_only=True,
            ),  # fmt: skip
            OpenApiExample("Registered", value=_BOT_CREDENTIALS_EXAMPLE, response_only=True, status_codes=["201"]),
        ],
        tags=["bots"],
    )
    def post(self, request: Request) -> Response:
        serializer = self.BotInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        bot, token = bot_register(owner=request.user, **serializer.validated_data)
        data = BotWithCredentialsOutputSerializer({**_bot_fields(bot), "token": token, "secret": bot.secret}).data
        return created(data, location("bot", bot_id=bot.pk))


class BotTokenRotateApi(APIView):
    @extend_schema(
        operation_id="bots_token_rotate",
        summary="Rotate a bot's token and signing secret",
        description="Only the bot's owner. The old token and secret stop working at once.",
        request=None,
        parameters=[BOT_ID],
        responses={
            201: BotWithCredentialsOutputSerializer,
            **problems(401, 403, 404, 429, s403="`not_your_bot`.", s404="`unknown_bot`."),
        },
        examples=[OpenApiExample("Rotated", value=_BOT_CREDENTIALS_EXAMPLE, response_only=True, status_codes=["201"])],
        tags=["bots"],
    )
    def post(self, request: Request, bot_id: UUID) -> Response:
        bot = bot_owned(bot_id=bot_id, owner=request.user)
        token = bot_credentials_rotate(bot=bot)
        data = BotWithCredentialsOutputSerializer({**_bot_fields(bot), "token": token, "secret": bot.secret}).data
        return created(data, location("bot", bot_id=bot.pk))  # the bot whose new credentials they are


class BotStatsApi(APIView):
    @extend_schema(
        operation_id="bots_stats",
        summary="How a bot's turns went",
        description="Only the bot's owner. Counts every webhook call, and every turn of a poll bot, by outcome; "
        "a timeout, an error or an illegal reply was replaced by a level-2 move (a `bot_fallback` event in the "
        "match's log). A poll bot's latency runs from the start of its turn to its action.",
        parameters=[BOT_ID],
        responses={200: BotStatsOutputSerializer, **problems(401, 403, 404, 429, s403="`not_your_bot`.",
                                                             s404="`unknown_bot`.")},  # fmt: skip
        examples=[
            OpenApiExample(
                "Stats",
                value={"bot_id": _BOT_EXAMPLE["id"], "delivery": "webhook", "turns": 120, "ok": 117, "timeouts": 2,
                       "errors": 1, "illegal": 0, "fallbacks": 3,
                       "latency_ms": {"p50": 12, "p95": 40, "p99": 1900, "samples": 120},
                       "recent_fallbacks": [
                           {"match_id": "5d0c2f4e-8a1b-4c3d-9e2f-0a1b2c3d4e5f", "seq": 41, "outcome": "illegal",
                            "detail": "must_beat: B5 does not beat B6: play a higher B", "at": "2026-01-01T12:00:00Z"},
                       ]},
                response_only=True,
            )
        ],  # fmt: skip
        tags=["bots"],
    )
    def get(self, request: Request, bot_id: UUID) -> Response:
        bot = bot_owned(bot_id=bot_id, owner=request.user)
        return Response(BotStatsOutputSerializer(bot_stats(bot=bot)).data)


class BotApi(APIView):
    """One of the caller's bots: ``GET`` it, ``PATCH`` how it gets its turns, ``DELETE`` (retire) it."""

    class BotUpdateInputSerializer(RequestSerializer):
        delivery = serializers.ChoiceField(choices=BotDelivery.choices, required=False)
        webhook_url = serializers.CharField(
            required=False,
            allow_null=True,
            max_length=500,
            help_text="The http(s) URL of a webhook bot, checked as at registration; null for none. Turning a "
            "bot to `poll` drops its URL.",
        )
        timeout_ms = JSONInteger(required=False, min_value=100, max_value=10_000, help_text=_TIMEOUT_HELP)

    @extend_schema(
        operation_id="bots_retrieve",
        summary="One of the caller's bots",
        description="As `GET /api/v1/bots/` lists it. Only the owner (anyone else: 403 `not_your_bot`).",
        parameters=[BOT_ID],
        responses={200: BotOutputSerializer, **problems(401, 403, 404, 429, s403=_NOT_YOUR_BOT, s404=_UNKNOWN_BOT)},
        examples=[OpenApiExample("My bot", value=_BOT_EXAMPLE, response_only=True)],
        tags=["bots"],
    )
    def get(self, request: Request, bot_id: UUID) -> Response:
        bot = bot_owned(bot_id=bot_id, owner=request.user)
        return Response(BotOutputSerializer(_bot_fields(bot)).data)

    @extend_schema(
        operation_id="bots_update",
        summary="Change how a bot gets its turns",
        description="Any of `delivery`, `webhook_url` and `timeout_ms`; the others keep their values. The "
        "result is checked as at registration (a webhook bot needs an http(s) URL that resolves only to public "
        "addresses); if it is refused, nothing changes. The change applies from the bot's next turn. Only "
        "the owner.",
        request=BotUpdateInputSerializer,
        parameters=[BOT_ID],
        responses={
            200: BotOutputSerializer,
            **problems(400, 401, 403, 404, 422, 429, s403=_NOT_YOUR_BOT, s404=_UNKNOWN_BOT,
                       s422="`invalid_webhook_url` (also: a webhook bot without a URL, a poll bot with one) or "
                       "`webhook_address_not_allowed`."),
        },  # fmt: skip
        examples=[
            OpenApiExample(
                "To webhook",
                value={"delivery": "webhook", "webhook_url": "https://bots.example.com/tute", "timeout_ms": 2000},
                request_only=True,
            ),
            OpenApiExample("Back to polling", value={"delivery": "poll"}, request_only=True),
            OpenApiExample("Changed", value=_BOT_EXAMPLE, response_only=True),
        ],
        tags=["bots"],
    )
    def patch(self, request: Request, bot_id: UUID) -> Response:
        bot = bot_owned(bot_id=bot_id, owner=request.user)  # first: a stranger gets 403, not a 400
        serializer = self.BotUpdateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        bot = bot_update(bot=bot, **serializer.validated_data)
        return Response(BotOutputSerializer(_bot_fields(bot)).data)

    @extend_schema(
        operation_id="bots_retire",
        summary="Retire a bot",
        description="Its token stops working at once, it is no longer listed and no match can seat it; its "
        "finished matches and records stay. Refused while the bot sits in a match that is waiting or active "
        "(409 `bot_in_play`, with that `match_id`). Only the owner.",
        parameters=[BOT_ID],
        responses={
            204: None,
            **problems(401, 403, 404, 409, 429, s403=_NOT_YOUR_BOT, s404=_UNKNOWN_BOT,
                       s409="`bot_in_play`: the bot sits in a waiting or active match (`match_id`)."),
        },  # fmt: skip
        tags=["bots"],
    )
    def delete(self, request: Request, bot_id: UUID) -> Response:
        bot_retire(bot=bot_owned(bot_id=bot_id, owner=request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)
