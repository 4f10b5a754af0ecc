"""The rules of Tute (``../shared/RULES.md``) as a small, pure library.

No Django, no I/O: a match is a :class:`State`; :func:`new_match` deals it, :func:`legal_actions`
lists what the seat to act may do, :func:`apply_action` (or :func:`push`, in place) plays,
:func:`view` and :func:`redact` decide what each seat may see. An action is its JSON or an
:class:`Action`; :func:`to_json` and :func:`from_json` write a state as a snapshot and read it back.

The public surface is this package's names (``__all__``) and the module :mod:`games.engine.cards`,
the encoding of cards (ints and bit sets, their C2 codes) that the fast path (:func:`legal_cards`,
:func:`play_card`) and the bots work in, and :mod:`games.engine.fair_deals`, the verifiable deals
(C12v). The other modules are the engine's insides, free to change: import from ``games.engine``
instead, as the bots (``games.bots``) do. ``python -m games.engine.bench``
measures the engine's speed.
"""

from . import fair_deals
from .actions import ACTION_TYPES, Action
from .cards import CODES, SUITS
from .declarations import EXCHANGEABLE
from .errors import Code, EngineError, IllegalAction, InvalidOptions
from .game import Step, apply_action, current_seat, legal_actions, new_match, play_card, push, rules_of
from .options import VARIANTS, Option, VariantInfo, player_count, validate_options, variant_info
from .replay import actions_of, replay, table_after
from .snapshot import from_json, to_json
from .state import PHASES, Event, Rules, State
from .tricks import legal_cards
from .variants import VARIANT_CLASSES, Variant, rules_for
from .views import redact, table, view

__all__ = [
    "ACTION_TYPES",
    "CODES",
    "EXCHANGEABLE",
    "PHASES",
    "SUITS",
    "VARIANTS",
    "VARIANT_CLASSES",
    "Action",
    "Code",
    "EngineError",
    "Event",
    "IllegalAction",
    "InvalidOptions",
    "Option",
    "Rules",
    "State",
    "Step",
    "Variant",
    "VariantInfo",
    "actions_of",
    "apply_action",
    "current_seat",
    "fair_deals",
    "from_json",
    "legal_actions",
    "legal_cards",
    "new_match",
    "player_count",
    "play_card",
    "push",
    "redact",
    "replay",
    "rules_for",
    "rules_of",
    "table",
    "table_after",
    "to_json",
    "validate_options",
    "variant_info",
    "view",
]
