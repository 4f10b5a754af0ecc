"""The engine's one exception family; every error carries a stable code of API.md."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    """Stable machine-readable codes, shared with the HTTP API."""

    NOT_YOUR_TURN = "not_your_turn"
    MATCH_NOT_ACTIVE = "match_not_active"
    INVALID_ACTION = "invalid_action"
    ACTION_NOT_ALLOWED_NOW = "action_not_allowed_now"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_BEAT = "must_beat"
    MUST_TRUMP = "must_trump"
    MUST_OVERTRUMP = "must_overtrump"
    BID_TOO_LOW = "bid_too_low"
    INVALID_BID = "invalid_bid"
    INVALID_SUIT = "invalid_suit"
    CANNOT_DECLARE = "cannot_declare"
    UNKNOWN_VARIANT = "unknown_variant"
    INVALID_OPTION = "invalid_option"


class EngineError(ValueError):
    """Base of every error the engine raises: a code, a human message, and the rule broken."""

    def __init__(self, code: Code, message: str, *, rule: str | None = None, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.field = field


class IllegalAction(EngineError):
    """An action that the rules do not allow now; nothing was changed."""


class InvalidOptions(EngineError):
    """An unknown variant, an unknown option or a value out of range."""
