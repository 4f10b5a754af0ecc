"""The shapes of the matches' API: input serializers that validate, and output serializers that
render the views of :mod:`.bodies` and are what the schema documents (a test checks every answer
against the schema). What the engine shows (a hand, the seats as stored, legal actions) is passed
through as it is: those serializers document the engine's shapes. Action types and phases are the
engine's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django.core.validators import RegexValidator
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers
from rest_framework.fields import is_simple_callable

from games.engine import ACTION_TYPES, PHASES, SUITS
from tute_api.fields import JSONBoolean, JSONInteger, JSONString
from tute_api.schema import NOT_BLANK_NO_NUL
from tute_api.serializers import FlatSerializer, InputSerializer

from .bodies import event_body_full
from .models import MatchStatus

SUIT_CHOICES = tuple(SUITS)
#: The largest seq a query or an action may name: the range of the seq columns on PostgreSQL.
MAX_SEQ = 2**31 - 1
#: What the action serializers accept (the engine judges the rest): a card or suit code's length, a bid's amount.
MAX_CODE_LENGTH = 8
MAX_BID_AMOUNT = 10_000

# -- actions ------------------------------------------------------------------------------------


class PlayActionSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["play"])
    # min_length and the pattern explicitly: this component also types the views' legal actions (a response),
    # where the schema's request-only additions do not apply.
    card = serializers.CharField(
        min_length=1,
        max_length=MAX_CODE_LENGTH,
        validators=[RegexValidator(NOT_BLANK_NO_NUL)],
        help_text="A card code of docs/RULES.md C2: `O1`, `E12`.",
    )


class BidActionSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["bid"])
    amount = JSONInteger(min_value=0, max_value=MAX_BID_AMOUNT, help_text="Points promised (SU2, SP1).")


class PassActionSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["pass"])


class ChooseTrumpActionSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["choose_trump"])
    suit = serializers.ChoiceField(choices=SUIT_CHOICES)


class SingActionSerializer(serializers.Serializer):
    """With `declarations: manual` (docs/RULES.md C10m): sing the king and the knight of `suit` (C7)."""

    type = serializers.ChoiceField(choices=["sing"])
    suit = serializers.ChoiceField(choices=SUIT_CHOICES)


class TuteActionSerializer(serializers.Serializer):
    """With `declarations: manual` (docs/RULES.md C10m): the four kings or the four knights win the hand (C9)."""

    type = serializers.ChoiceField(choices=["tute"])


class ExchangeActionSerializer(serializers.Serializer):
    """With `declarations: manual` in `dos` (docs/RULES.md C10m): the 7 or the 2 of trump for the face-up card (D4)."""

    type = serializers.ChoiceField(choices=["exchange"])


ACTION = PolymorphicProxySerializer(
    component_name="Action",
    serializers={
        "play": PlayActionSerializer,
        "bid": BidActionSerializer,
        "pass": PassActionSerializer,
        "choose_trump": ChooseTrumpActionSerializer,
        "sing": SingActionSerializer,
        "tute": TuteActionSerializer,
        "exchange": ExchangeActionSerializer,
    },
    resource_type_field_name="type",
)


def _with_expected_seq(base: type[serializers.Serializer], name: str) -> type[serializers.Serializer]:
    fields = {
        "expected_seq": JSONInteger(
            required=False,
            min_value=0,
            max_value=MAX_SEQ,
            help_text="The `seq` the caller last saw; 409 `stale_seq` if the game has moved on since (a seat "
            "disconnected or back, which changes no card, bid or turn, does not count).",
        ),
        "Meta": type("Meta", (), {"ref_name": name}),
    }
    return type(name, (base,), fields)


ACTION_REQUEST = PolymorphicProxySerializer(
    component_name="ActionRequest",
    serializers={
        "play": _with_expected_seq(PlayActionSerializer, "PlayActionRequest"),
        "bid": _with_expected_seq(BidActionSerializer, "BidActionRequest"),
        "pass": _with_expected_seq(PassActionSerializer, "PassActionRequest"),
        "choose_trump": _with_expected_seq(ChooseTrumpActionSerializer, "ChooseTrumpActionRequest"),
        "sing": _with_expected_seq(SingActionSerializer, "SingActionRequest"),
        "tute": _with_expected_seq(TuteActionSerializer, "TuteActionRequest"),
        "exchange": _with_expected_seq(ExchangeActionSerializer, "ExchangeActionRequest"),
    },
    resource_type_field_name="type",
)


class ActionInputSerializer(FlatSerializer):
    """Parses any action: the fields each type needs, as the engine takes them."""

    type = serializers.ChoiceField(choices=ACTION_TYPES)
    card = JSONString(required=False, max_length=MAX_CODE_LENGTH, trim_whitespace=False)
    amount = JSONInteger(required=False, min_value=0, max_value=MAX_BID_AMOUNT)
    suit = JSONString(required=False, max_length=MAX_CODE_LENGTH, trim_whitespace=False)
    expected_seq = JSONInteger(required=False, min_value=0, max_value=MAX_SEQ)

    _NEEDS = {"play": "card", "bid": "amount", "choose_trump": "suit", "sing": "suit"}

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        needed = self._NEEDS.get(attrs["type"])
        if needed and needed not in attrs:
            raise serializers.ValidationError({needed: [f"A {attrs['type']} action needs its {needed}."]})
        return attrs

    def action(self) -> dict[str, Any]:
        data = self.validated_data
        needed = self._NEEDS.get(data["type"])
        return {"type": data["type"], needed: data[needed]} if needed else {"type": data["type"]}


# -- creating and joining -------------------------------------------------------------------------

#: C12v: a client seed is 1 to 64 printable ASCII characters, stored and hashed exactly as given.
CLIENT_SEED_MAX_LENGTH = 64


def _client_seed(when: str) -> JSONString:
    return JSONString(
        required=False,
        min_length=1,
        max_length=CLIENT_SEED_MAX_LENGTH,
        trim_whitespace=False,
        validators=[RegexValidator(r"^[ -~]+$", "A client seed is printable ASCII characters (space to ~).")],
        help_text=f"Your contribution to the deals (docs/RULES.md C12v, docs/fair-deals.md): any string of 1 to "
        f"{CLIENT_SEED_MAX_LENGTH} printable ASCII characters, {when}. Every deck of the match is derived from "
        "the service's secret key, whose SHA-256 (`deal_commitment`) is published first, and every seat's seed; "
        "the record reveals both once the match is over. Not with a `seed` (422 `client_seed_not_allowed`).",
    )


class MeSeatSerializer(serializers.Serializer):
    player = serializers.ChoiceField(choices=["me"], help_text="The caller sits here.")


class OpenSeatSerializer(serializers.Serializer):
    open = serializers.ChoiceField(choices=[True], help_text="Left open for a human who joins with the invite code.")


class BotSeatSerializer(serializers.Serializer):
    bot = serializers.CharField(
        help_text="A built-in bot (`level-1`, `level-2`, …) or the id of a registered bot (docs/http-bots.md)."
    )


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="SeatSpec",
        serializers=[MeSeatSerializer, OpenSeatSerializer, BotSeatSerializer],
        resource_type_field_name=None,
    )
)
class SeatSpecField(serializers.JSONField):
    """Any JSON: the service checks seat specs and answers 422 ``invalid_seats`` naming the seat."""


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {
            "oneOf": [
                {"type": "integer"},
                {"type": "string"},
                {"type": "boolean"},
            ]
        },
    }
)
class OptionsField(serializers.DictField):
    """The variant's options by name (see GET /variants/); the engine checks names and values."""

    def to_representation(self, value: Any) -> Any:
        return value  # as the engine checked and stored them


class MatchCreateInputSerializer(InputSerializer):
    variant = JSONString(min_length=1, max_length=64, help_text="A variant name of GET /api/v1/variants/.")
    options = OptionsField(required=False, help_text="Options of the variant; defaults fill in the rest.")
    seed = JSONInteger(
        required=False, allow_null=True, min_value=0, max_value=2**63 - 1,
        help_text="Deals are reproducible with a seed (C12); without one they are securely shuffled. Whoever "
        "knows the seed knows every deal, so a seeded match seats only you, built-in bots and your own bots "
        "(else 422 `seed_not_allowed`), unless the service sets `SEEDS_AT_SHARED_TABLES`.",
    )  # fmt: skip
    seats = serializers.ListField(child=SeatSpecField(), max_length=8, help_text="One entry per seat, in seat order.")
    public = JSONBoolean(
        required=False,
        default=False,
        help_text="Any player may watch the match live, seeing what the table shows everyone and never a hand "
        "(RULES.md M5); false by default.",
    )
    rated = JSONBoolean(
        required=False,
        default=True,
        help_text="The match counts for the players' ratings (docs/ratings.md); false for a friendly match, "
        "which counts as played but changes no rating. A seeded match is never rated (C12).",
    )
    client_seed = _client_seed(
        "for your seat (422 `client_seed_not_allowed` if you take none). The service draws the match's key "
        "before it uses this field, but in the same request; to give your seed after seeing the commitment, "
        "create the match with an open seat for yourself and join it"
    )


class MatchJoinInputSerializer(InputSerializer):
    invite_code = JSONString(
        min_length=1, max_length=64, help_text="The code shown to the match's players, in either case."
    )
    seat = JSONInteger(required=False, min_value=0, max_value=7, help_text="Default: the first open seat.")
    client_seed = _client_seed("given after the match's `deal_commitment` was published")


# -- the match view -----------------------------------------------------------------------------


class PlaySerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    card = serializers.CharField()


class CantoSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    suit = serializers.ChoiceField(choices=SUIT_CHOICES)
    points = serializers.IntegerField()


class BidSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    amount = serializers.IntegerField(allow_null=True, help_text="null for a pass.")


class ContractSerializer(serializers.Serializer):
    seat = serializers.IntegerField(help_text="The auction's winner (the soloist).")
    bid = serializers.IntegerField()


# An output serializer whose fields are built once per class, not once per answer. DRF deep-copies a
# serializer's declared fields each time one is made: for a match, seven eighths of the time it takes to
# render (0.35 of 0.4 ms; 0.05 ms with this). Rendering only reads each field's source and converts its
# value, so the fields of the first instance serve them all. Never for input: validation keeps state in
# its fields. It renders as DRF's ``Serializer.to_representation`` does, from a plan made once per class:
# each readable field's name, the path of its source, and its conversion (``int``, ``str`` for the plain
# fields whose own conversion is that, else the field's); a field that reads its source its own way, or
# a source that is not there, takes DRF's path. (A comment, not a docstring: drf-spectacular would put a
# docstring in every schema.)
class OutputSerializer(serializers.Serializer):
    _shared: ClassVar[dict[type, Any]] = {}
    _plans: ClassVar[dict[type, tuple[tuple[str, list[str], Any], ...] | None]] = {}

    @property
    def fields(self) -> Any:  # type: ignore[override]
        cls = type(self)
        shared = OutputSerializer._shared.get(cls)
        if shared is None:
            shared = OutputSerializer._shared[cls] = super().fields
        return shared

    def to_representation(self, instance: Any) -> Any:
        plan = OutputSerializer._plans.get(type(self), ())
        if plan == ():
            plan = OutputSerializer._plans[type(self)] = _plan_of(self)
        if plan is None:
            return super().to_representation(instance)
        answer = {}
        try:
            for name, source, convert in plan:
                value = instance
                for attr in source:
                    value = value[attr] if isinstance(value, Mapping) else getattr(value, attr)
                    if callable(value) and is_simple_callable(value):
                        value = value()
                answer[name] = None if value is None else convert(value)
        except (AttributeError, KeyError):  # a source not there: DRF's answer (a default, or its error)
            return super().to_representation(instance)
        return answer


def _plan_of(serializer: serializers.Serializer) -> tuple[tuple[str, list[str], Any], ...] | None:
    """How :class:`OutputSerializer` renders ``serializer``'s class; None if a field reads its own way."""
    plan = []
    for field in serializer._readable_fields:
        if type(field).get_attribute is not serializers.Field.get_attribute:
            return None
        convert = field.to_representation
        plain = type(field) is serializers.CharField
        plain |= type(field) is serializers.UUIDField and field.uuid_format == "hex_verbose"
        if type(field) is serializers.IntegerField:
            convert = int
        elif plain:
            convert = str
        plan.append((field.field_name, list(field.source_attrs), convert))
    return tuple(plan)


# Documents a shape the engine (or the stored seating) writes, and renders it as it is. (Comments, not
# docstrings, on the output serializers: drf-spectacular puts a docstring in the schema.)
class EngineShape(serializers.Serializer):
    def to_representation(self, instance: Any) -> Any:
        return instance


class HandSerializer(EngineShape):
    number = serializers.IntegerField(help_text="1 for the first hand of the match.")
    dealer = serializers.IntegerField()
    mano = serializers.IntegerField(help_text="The seat after the dealer (C11).")
    phase = serializers.ChoiceField(choices=PHASES)
    turn = serializers.IntegerField(allow_null=True, help_text="The seat to act, or null.")
    trump = serializers.ChoiceField(choices=SUIT_CHOICES, allow_null=True)
    trump_card = serializers.CharField(allow_null=True, help_text="The dealer's card shown for trump (CL1, IN1).")
    face_up = serializers.CharField(allow_null=True, help_text="The face-up card under the stock (D1).")
    stock_count = serializers.IntegerField()
    trick = PlaySerializer(many=True, help_text="The trick in progress, in the order played.")
    last_trick = PlaySerializer(
        many=True,
        help_text="The last completed trick (M4), shown until the next one is won: at the start of a hand, the "
        "last trick of the hand before.",
    )
    last_trick_winner = serializers.IntegerField(allow_null=True, help_text="The seat that won `last_trick`.")
    tricks = serializers.ListField(child=PlaySerializer(many=True), help_text="Every completed trick of the hand.")
    hand_sizes = serializers.ListField(child=serializers.IntegerField())
    shown = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Per seat, cards known to be in its hand (a canto, an exchange, the trump card).",
    )
    tricks_won = serializers.ListField(child=serializers.IntegerField())
    points = serializers.ListField(child=serializers.IntegerField(), help_text="Per seat: cards, last ten, cantos.")
    cantos = CantoSerializer(many=True)
    bids = BidSerializer(many=True)
    contract = ContractSerializer(allow_null=True)


class PlayerRefSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    username = serializers.CharField()


class SeatSerializer(EngineShape):
    seat = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["player", "bot", "open"])
    player = PlayerRefSerializer(allow_null=True)
    bot = serializers.CharField(allow_null=True, help_text="The built-in bot's level.")


@extend_schema_field(ACTION)
class ActionField(serializers.DictField):
    def to_representation(self, value: Any) -> Any:
        return value  # as the engine writes it (Action.to_json)


@extend_schema_field({"$ref": "#/components/schemas/HandFinishedData"})
class HandResultField(serializers.DictField):
    """A finished hand's result, as the engine writes it in its ``hand_finished`` event."""

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_field(ACTION_REQUEST)
class LegalActionField(ActionField):
    """An action the caller may post, typed as the request body it is: a typed client posts it as it is
    (adding ``expected_seq``), with no mapping between two classes of one action."""


# Renders a bodies.MatchView.
class MatchSerializer(OutputSerializer):
    """The match as the caller may see it."""

    id = serializers.UUIDField(source="match.id")
    variant = serializers.CharField(source="match.variant")
    options = OptionsField(source="table.options")
    status = serializers.ChoiceField(choices=MatchStatus.values, source="match.status")
    public = serializers.BooleanField(help_text="Any player may watch it (RULES.md M5).", source="match.public")
    rated = serializers.BooleanField(
        help_text="It will count for the players' ratings once finished: asked so and not seeded (docs/ratings.md)."
    )
    seq = serializers.IntegerField(
        help_text="The seq of the latest event; send it back as `expected_seq`.", source="match.seq"
    )
    players = serializers.IntegerField(source="table.players")
    seats = SeatSerializer(many=True, source="match.seating")
    invite_code = serializers.CharField(allow_null=True, help_text="While the match waits for players.")
    my_seat = serializers.IntegerField(
        allow_null=True, help_text="null for a creator who watches, or a spectator of a public match.", source="seat"
    )
    my_hand = serializers.ListField(child=serializers.CharField())
    legal_actions = serializers.ListField(
        child=LegalActionField(), help_text="Every action the caller may post now, exactly as to post it; empty unless "
        "it is the caller's turn.", source="table.legal_actions",
    )  # fmt: skip
    scoreboard = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Per side: games won, CABRÓN letters, or points.",
        source="table.scoreboard",
    )
    sides = serializers.ListField(child=serializers.IntegerField(), help_text="Each seat's side.", source="table.sides")
    results = serializers.ListField(
        child=HandResultField(), help_text="Each finished hand's result.", source="table.results"
    )
    winners = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Winning sides (see `sides`); null until the "
        "match is over.", source="table.winners",
    )  # fmt: skip
    winner_seats = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="The seats of the winning sides; null until "
        "the match is over."
    )  # fmt: skip
    my_turn = serializers.BooleanField(help_text="The caller's seat is to act (as in the list of matches).")
    hand = HandSerializer(allow_null=True, help_text="null until the cards are dealt.", source="table.hand")
    deal_commitment = serializers.CharField(
        allow_null=True,
        help_text="The SHA-256 (hex) of the match's secret deal key, published from its creation (C12v); the "
        "record reveals the key once the match is over. null for a seeded match (C12).",
    )
    created_at = serializers.DateTimeField(source="match.created_at")
    updated_at = serializers.DateTimeField(
        help_text="The latest activity (as in the list of matches, which it orders).", source="match.updated_at"
    )
    started_at = serializers.DateTimeField(allow_null=True, source="match.started_at")
    finished_at = serializers.DateTimeField(allow_null=True, source="match.finished_at")


# Renders a bodies.MatchEntry: a match in the caller's list.
class MatchSummarySerializer(OutputSerializer):
    id = serializers.UUIDField(source="match.id")
    variant = serializers.CharField(source="match.variant")
    options = OptionsField(source="match.options")
    status = serializers.ChoiceField(choices=MatchStatus.values, source="match.status")
    public = serializers.BooleanField(help_text="Any player may watch it (RULES.md M5).", source="match.public")
    rated = serializers.BooleanField(
        help_text="It will count for the players' ratings once finished: asked so and not seeded (docs/ratings.md)."
    )
    seq = serializers.IntegerField(source="match.seq")
    seats = SeatSerializer(many=True, source="match.seating")
    my_seat = serializers.IntegerField(allow_null=True)
    turn = serializers.IntegerField(allow_null=True, source="match.turn")
    my_turn = serializers.BooleanField()
    invite_code = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField(source="match.created_at")
    updated_at = serializers.DateTimeField(source="match.updated_at")


# -- variants -----------------------------------------------------------------------------------


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}, {"type": "boolean"}]})
class OptionValueField(serializers.JSONField):
    pass


class OptionSerializer(OutputSerializer):
    name = serializers.CharField()
    default = OptionValueField()
    choices = serializers.ListField(child=OptionValueField())
    rule = serializers.CharField(help_text="The rule of docs/RULES.md that the option changes.")
    description = serializers.CharField()


class VariantSerializer(OutputSerializer):
    name = serializers.CharField()
    title = serializers.CharField()
    rule = serializers.CharField(help_text="The section of docs/RULES.md.")
    players = serializers.ListField(child=serializers.IntegerField(), help_text="Allowed numbers of players.")
    options = OptionSerializer(many=True)


# -- events -------------------------------------------------------------------------------------


# A seat's rating change in a rated match (games.ratings.services), as stored in its ratings_updated event.
class RatingChangeSerializer(EngineShape):
    seat = serializers.IntegerField()
    player = serializers.UUIDField(allow_null=True, help_text="The player or registered bot; null for a built-in bot.")
    bot = serializers.CharField(allow_null=True, help_text="A built-in bot's level, whose rating is fixed.")
    rating_before = serializers.FloatField()
    rating = serializers.FloatField(help_text="The Glicko-2 rating after the match.")
    change = serializers.FloatField(help_text="`rating` - `rating_before`; 0 for a built-in bot.")
    deviation = serializers.FloatField(help_text="The rating deviation after the match.")


def _data(name: str, fields: dict[str, serializers.Field]) -> type[serializers.Serializer]:
    return type(name, (serializers.Serializer,), dict(fields))


def _cards(help_text: str = "", allow_null: bool = False) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(), help_text=help_text, allow_null=allow_null)


def _declared() -> serializers.BooleanField:
    return serializers.BooleanField(
        required=False,
        help_text="true when the player declared it (`declarations: manual`, C10m): it records their action; "
        "absent when the table declared it (C10).",
    )


_EVENT_DATA: dict[str, type[serializers.Serializer]] = {
    "hand_started": _data(
        "HandStartedData",
        {
            "hand": serializers.IntegerField(),
            "dealer": serializers.IntegerField(),
            "mano": serializers.IntegerField(),
            "trump": serializers.ChoiceField(choices=SUIT_CHOICES, allow_null=True),
            "trump_card": serializers.CharField(allow_null=True),
            "face_up": serializers.CharField(allow_null=True),
            "hand_sizes": serializers.ListField(child=serializers.IntegerField()),
            "my_hand": _cards("The caller's cards as dealt; null for a spectator.", allow_null=True),
            "stock_count": serializers.IntegerField(),
        },
    ),
    "bid": _data("BidData", {"amount": serializers.IntegerField()}),
    "pass": _data("PassData", {}),
    "trump_chosen": _data("TrumpChosenData", {"suit": serializers.ChoiceField(choices=SUIT_CHOICES)}),
    "card_played": _data("CardPlayedData", {"card": serializers.CharField()}),
    "trick_won": _data(
        "TrickWonData",
        {
            "trick": PlaySerializer(many=True),
            "points": serializers.IntegerField(),
            "last": serializers.BooleanField(),
        },
    ),
    "canto": _data(
        "CantoData",
        {
            "suit": serializers.ChoiceField(choices=SUIT_CHOICES),
            "points": serializers.IntegerField(),
            "cards": _cards("The king and the knight sung."),
            "declared": _declared(),
        },
    ),
    "tute": _data(
        "TuteData",
        {"kind": serializers.ChoiceField(choices=["kings", "knights"]), "cards": _cards(), "declared": _declared()},
    ),
    "exchange": _data(
        "ExchangeData", {"gave": serializers.CharField(), "took": serializers.CharField(), "declared": _declared()}
    ),
    "draw": _data(
        "DrawData",
        {
            "card": serializers.CharField(
                allow_null=True, help_text="null unless the caller drew it or it was face up."
            ),
            "face_up": serializers.BooleanField(required=False),
        },
    ),
    "hand_finished": _data(
        "HandFinishedData",
        {
            "hand": serializers.IntegerField(),
            "dealer": serializers.IntegerField(help_text="A seat."),
            "scoreboard": serializers.ListField(
                child=serializers.IntegerField(), help_text="Per side, after the hand (as the match's)."
            ),
            "points": serializers.ListField(
                child=serializers.IntegerField(),
                required=False,
                help_text="Per side (see the match's `sides`): cards, last ten, cantos. The hand's own `points` are "
                "per seat; in a variant without partners a side is a seat.",
            ),
            "winner": serializers.IntegerField(required=False, help_text="The side that won the hand."),
            "losers": serializers.ListField(
                child=serializers.IntegerField(), required=False, help_text="Sides that take a letter (CB4)."
            ),
            "passed": serializers.BooleanField(required=False, help_text="Nobody bid: the hand was not played."),
            "soloist": serializers.IntegerField(required=False, help_text="The seat that won the auction."),
            "bid": serializers.IntegerField(required=False),
            "made": serializers.BooleanField(required=False),
            "gains": serializers.ListField(
                child=serializers.IntegerField(), required=False, help_text="Per side: what the hand added."
            ),
            "tute": _data(
                "HandTute",
                {
                    "seat": serializers.IntegerField(help_text="The seat that declared it."),
                    "kind": serializers.ChoiceField(choices=["kings", "knights"]),
                },
            )(required=False, help_text="The tute that won the hand (C9)."),
        },
    ),
    "match_finished": _data(
        "MatchFinishedData",
        {
            "winners": serializers.ListField(child=serializers.IntegerField(), help_text="Winning sides."),
            "winner_seats": serializers.ListField(
                child=serializers.IntegerField(), help_text="The seats of the winning sides."
            ),
            "scoreboard": serializers.ListField(child=serializers.IntegerField()),
        },
    ),
    "match_cancelled": _data(
        "MatchCancelledData",
        {
            "reason": serializers.CharField(help_text="`cancelled_by_creator` or `seat_abandoned` (M2)."),
            "seat": serializers.IntegerField(required=False, help_text="With `seat_abandoned`: the seat not back."),
        },
    ),
    # Not the engine's (games/turns: presence, clock): a seat's player stopped calling, came back, or ran out
    # of time.
    "seat_disconnected": _data(
        "SeatDisconnectedData",
        {
            "grace_seconds": serializers.IntegerField(help_text="How long the seat is held (M2)."),
            "reconnect_by": serializers.DateTimeField(help_text="After this the match is cancelled."),
        },
    ),
    "seat_reconnected": _data("SeatReconnectedData", {"away_seconds": serializers.FloatField()}),
    "turn_timed_out": _data(
        "TurnTimedOutData",
        {
            "turn_seconds": serializers.IntegerField(),
            "action": ActionField(
                help_text="The level-2 move played for the seat (a pass in a declaration turn, C10m); its events "
                "follow."
            ),
        },
    ),
    # Not the engine's: a registered bot's reply was replaced by the level-2 move whose events follow.
    "bot_fallback": _data(
        "BotFallbackData",
        {
            "reason": serializers.ChoiceField(choices=["timeout", "error", "illegal"]),
            "detail": serializers.CharField(),
            "level": serializers.CharField(help_text="The built-in level that played instead: level-2."),
        },
    ),
    # Not the engine's (games/ratings): the rating changes of a rated match, right after its match_finished.
    "ratings_updated": _data(
        "RatingsUpdatedData",
        {"seats": RatingChangeSerializer(many=True, help_text="Every seat, in seat order (docs/ratings.md).")},
    ),
}


#: A hand's start as the log stores it (records and replays of matches that are over): every hand and the stock,
#: where a seat's event (``HandStartedData``) shows its own hand and the sizes of the others.
_RECORDED_HAND_STARTED = _data(
    "RecordedHandStartedData",
    {
        "hand": serializers.IntegerField(),
        "dealer": serializers.IntegerField(),
        "mano": serializers.IntegerField(),
        "deck": _cards("The deck as shuffled; dealt one card at a time from the mano (C11)."),
        "hands": serializers.ListField(child=_cards(), help_text="Every seat's cards as dealt, in seat order."),
        "trump": serializers.ChoiceField(choices=SUIT_CHOICES, allow_null=True),
        "trump_card": serializers.CharField(allow_null=True),
        "face_up": serializers.CharField(allow_null=True),
        "stock": _cards("The stock, in the order it is drawn (D1)."),
    },
)


@extend_schema_field({"type": "object", "properties": {}, "additionalProperties": False})
class EmptyObjectField(serializers.DictField):
    pass


def _event(kind: str, data: type[serializers.Serializer], name: str = "") -> type[serializers.Serializer]:
    name = name or "".join(part.title() for part in kind.split("_")) + "Event"
    return type(
        name,
        (serializers.Serializer,),
        {
            "seq": serializers.IntegerField(),
            "type": serializers.ChoiceField(choices=[kind]),
            "seat": serializers.IntegerField(allow_null=True),
            "data": data() if data().fields else EmptyObjectField(),
            "at": serializers.DateTimeField(),
        },
    )


_EVENTS = {kind: _event(kind, data) for kind, data in _EVENT_DATA.items()}

EVENT = PolymorphicProxySerializer(
    component_name="Event",
    serializers=_EVENTS,
    resource_type_field_name="type",
    many=True,
)

#: An event as the log stores it, unredacted: a seat's event but for ``hand_started``, which carries every hand.
RECORDED_EVENT = PolymorphicProxySerializer(
    component_name="RecordedEvent",
    serializers={
        **_EVENTS,
        "hand_started": _event("hand_started", _RECORDED_HAND_STARTED, "RecordedHandStartedEvent"),
    },
    resource_type_field_name="type",
    many=False,
)


@extend_schema_field(RECORDED_EVENT)
class RecordedEventField(serializers.DictField):
    """An event of the log, unredacted (a match that is over)."""

    def to_representation(self, row: Any) -> dict[str, Any]:
        return event_body_full(row)


class RecordedActionSerializer(OutputSerializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = ActionField()


class RecordedHandSerializer(OutputSerializer):
    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    deck = _cards("The deck as shuffled; dealt one card at a time from the mano (C11).")
    result = HandResultField(allow_null=True, help_text="null while the hand is played.")
    started_seq = serializers.IntegerField()


# Renders the deals of a bodies.RecordView: what verifies every deck (C12v, docs/fair-deals.md).
class RecordedDealsSerializer(EngineShape):
    procedure = serializers.CharField(help_text="The procedure of docs/fair-deals.md: `tute-deals-v1`.")
    commitment = serializers.CharField(help_text="The SHA-256 (hex) of `key`, as the match showed it from its start.")
    key = serializers.CharField(help_text="The secret match key, hex (32 bytes).")
    client_seeds = serializers.ListField(
        child=serializers.CharField(allow_null=True), help_text="Per seat, the seed its player gave, or null."
    )
    deck_order = _cards("The cards that each deck shuffles, in the order the procedure starts from.")
    first_dealer = serializers.ChoiceField(
        choices=["drawn", "fixed"],
        help_text="`drawn`: the first dealer comes from the key and the seeds, as every deck; `fixed`: the rules "
        "fix it (a ladder match, L1: the bot deals first), and only the decks are derived.",
    )


# Renders a bodies.RecordView: everything about a match that is over.
class RecordSerializer(OutputSerializer):
    id = serializers.UUIDField(source="record.match.id")
    variant = serializers.CharField(source="record.match.variant")
    options = OptionsField(source="record.match.options")
    seed = serializers.IntegerField(allow_null=True, source="record.match.seed")
    status = serializers.ChoiceField(
        choices=MatchStatus.values, help_text="finished or cancelled.", source="record.match.status"
    )
    seq = serializers.IntegerField(source="record.match.seq")
    seats = SeatSerializer(many=True, source="record.match.seating")
    scoreboard = serializers.ListField(child=serializers.IntegerField(), source="final.table.scoreboard")
    winners = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Winning sides.", source="final.table.winners"
    )
    winner_seats = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="The seats of the winning sides.",
        source="final.winner_seats",
    )  # fmt: skip
    created_at = serializers.DateTimeField(source="record.match.created_at")
    started_at = serializers.DateTimeField(allow_null=True, source="record.match.started_at")
    finished_at = serializers.DateTimeField(allow_null=True, source="record.match.finished_at")
    hands = RecordedHandSerializer(many=True, source="record.hands")
    deals = RecordedDealsSerializer(
        allow_null=True,
        help_text="What verifies every deck and the first dealer (C12v): recompute them with docs/fair-deals.md "
        "or `examples/verify_deals.py`. null for a seeded match (C12), or one created before C12v.",
    )
    actions = RecordedActionSerializer(many=True)
    events = serializers.ListField(
        child=RecordedEventField(),
        help_text="Every event unredacted: `hand_started` carries the deck, every hand and the stock.",
        source="record.events",
    )
    rating_changes = RatingChangeSerializer(
        many=True,
        allow_null=True,
        help_text="Each seat's rating change (the `ratings_updated` event's), or null for a match not rated "
        "(docs/ratings.md).",
    )


# The hand of a replay's table: a seat's hand (HandSerializer) with every seat's cards and the stock.
class ReplayHandSerializer(HandSerializer):
    hands = serializers.ListField(child=_cards(), help_text="Every seat's cards, in seat order.")
    stock = _cards("The stock, in the order it is drawn (D1).")


# The whole table of a replay (games.engine.table): the engine's view of nobody's seat, every card face up.
class ReplayTableSerializer(EngineShape):
    variant = serializers.CharField()
    options = OptionsField()
    players = serializers.IntegerField()
    status = serializers.ChoiceField(choices=MatchStatus.values, help_text="`active` until the match is over.")
    scoreboard = serializers.ListField(
        child=serializers.IntegerField(), help_text="Per side: games won, CABRÓN letters, or points."
    )
    sides = serializers.ListField(child=serializers.IntegerField(), help_text="Each seat's side.")
    results = serializers.ListField(child=HandResultField(), help_text="Each finished hand's result.")
    winners = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Winning sides, once the match is over."
    )
    my_seat = serializers.IntegerField(allow_null=True, help_text="null: a replay is nobody's seat.")
    my_hand = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="null (see `hand.hands`)."
    )
    legal_actions = serializers.ListField(child=LegalActionField(), help_text="Empty: a replay takes no action.")
    hand = ReplayHandSerializer()


# Renders a replays.Replay: the table after an event of a match that is over.
class ReplaySerializer(OutputSerializer):
    id = serializers.UUIDField(source="match.id")
    variant = serializers.CharField(source="match.variant")
    status = serializers.ChoiceField(choices=MatchStatus.values, source="match.status")
    seq = serializers.IntegerField(help_text="The event the table is shown after.")
    last_seq = serializers.IntegerField(help_text="The last event of the log.")
    engine_events = serializers.IntegerField(
        help_text="How many of the first `seq` events are the engine's (service events aside)."
    )
    event = RecordedEventField(help_text="Event `seq`, unredacted.")
    table = ReplayTableSerializer(
        allow_null=True,
        help_text="The whole table, every hand face up (`hand.hands`, `hand.stock`); null before the first "
        "engine event.",
    )
