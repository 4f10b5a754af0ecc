"""The variants of RULES.md and their match options: names, defaults and allowed values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import Code, InvalidOptions

OptionValue = int | str | bool


@dataclass(frozen=True)
class Option:
    """One match option: its default and the values a client may choose."""

    name: str
    default: OptionValue
    choices: tuple[OptionValue, ...]
    rule: str
    description: str

    def check(self, value: object) -> OptionValue:
        # bool is an int in Python: compare types exactly so that true never passes for 1.
        ok = any(type(value) is type(choice) and value == choice for choice in self.choices)
        if not ok:
            allowed = ", ".join(str(c).lower() if isinstance(c, bool) else str(c) for c in self.choices)
            raise InvalidOptions(
                Code.INVALID_OPTION,
                f"option {self.name!r} must be one of {allowed}; got {value!r}",
                rule=self.rule,
                field=self.name,
            )
        return value  # type: ignore[return-value]


@dataclass(frozen=True)
class VariantInfo:
    """A variant's name, its player counts and its options."""

    name: str
    title: str
    rule: str
    players: tuple[int, ...]
    options: tuple[Option, ...]

    def defaults(self) -> dict[str, OptionValue]:
        return {o.name: o.default for o in self.options}


def _games(default: int, rule: str) -> Option:
    return Option("games_to_win", default, tuple(range(1, 10)), rule, "hands to win the match")


def _players(rule: str) -> Option:
    return Option("players", 4, (3, 4), rule, "number of players")


_DECLARATIONS = Option(
    "declarations", "auto", ("auto", "manual"), "C10",
    "auto: the table declares cantos, tute and exchanges (C10); manual: the entitled player does (C10m)",
)
_TUTE_ON_DEAL = Option(
    "tute_on_deal", False, (False, True), "C9", "a tute held from the deal wins before the first trick"
)
_BID_STEP = Option("bid_step", 5, (5, 10), "SU2", "bids go up in steps of this many points")


def _min_bid(default: int, rule: str) -> Option:
    return Option("min_bid", default, (50, 60, 70), rule, "the lowest bid")


def _target(default: int, rule: str) -> Option:
    return Option("target", default, (500, 1000), rule, "points that win the match")


VARIANTS: dict[str, VariantInfo] = {
    v.name: v
    for v in (
        VariantInfo(
            "clasico", "Tute clásico, two pairs", "CL", (4,),
            (_games(4, "CL5"), _TUTE_ON_DEAL, _DECLARATIONS),
        ),
        VariantInfo(
            "cabron", "Tute cabrón, each for themselves", "CB", (3, 4),
            (
                _players("CB1"),
                Option("letters", 6, tuple(range(1, 11)), "CB5", "letters of CABRÓN that end the match"),
                Option("zero_rule", "points", ("points", "tricks"), "CB6", "who loses for 0"),
            ),
        ),
        VariantInfo(
            "subastado", "Tute subastado, three players", "SU", (3,),
            (
                Option("auction_rounds", 1, (1, "many"), "SU2", "one round of bids, or until all but one pass"),
                _BID_STEP,
                _min_bid(60, "SU2"),
                Option("failed_bid", "each", ("each", "split"), "SU5", "what the rivals score on a failed bid"),
                _target(500, "SU6"),
                _DECLARATIONS,
            ),
        ),
        VariantInfo(
            "dos", "Two players with a stock", "D", (2,),
            (
                Option("hand_size", 8, (8, 6), "D1", "cards dealt to each player"),
                _games(1, "D6"),
                Option("cantos_in_arrastre", False, (False, True), "D5", "cantos also once the stock is empty"),
                _TUTE_ON_DEAL,
                _DECLARATIONS,
            ),
        ),
        VariantInfo(
            "individual", "Individual, three or four players", "IN", (3, 4),
            (_players("IN1"), _games(4, "IN3"), _TUTE_ON_DEAL, _DECLARATIONS),
        ),
        VariantInfo(
            "subastado_parejas", "Tute subastado in pairs", "SP", (4,),
            (Option("bid_step", 5, (5, 10), "SP1", _BID_STEP.description), _min_bid(70, "SP1"),
             _target(1000, "SP3"), _DECLARATIONS),
        ),
    )
}


def variant_info(variant: object) -> VariantInfo:
    """The variant of that name, or :class:`InvalidOptions` naming the known ones."""
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise InvalidOptions(
            Code.UNKNOWN_VARIANT,
            f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}",
            field="variant",
        )
    return VARIANTS[variant]


def validate_options(variant: str, options: Mapping[str, Any] | None) -> dict[str, OptionValue]:
    """Every option of the variant, defaults filled in; unknown names and bad values are refused."""
    info = variant_info(variant)
    given = dict(options or {})
    known = {o.name: o for o in info.options}
    for name in given:
        if name not in known:
            raise InvalidOptions(
                Code.INVALID_OPTION,
                f"unknown option {name!r} for {variant}; known: {', '.join(known) or 'none'}",
                field=name,
            )
    return {o.name: o.check(given[o.name]) if o.name in given else o.default for o in info.options}


def player_count(variant: str, options: Mapping[str, OptionValue]) -> int:
    """How many seats a match of this variant and these (validated) options has."""
    info = VARIANTS[variant]
    players = options.get("players", info.players[0])
    assert isinstance(players, int)
    return players
