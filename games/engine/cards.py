"""Cards of the Spanish deck as small ints (RULES.md C1–C4): a public module of the engine.

A card is ``suit * 10 + strength``: suits are ``O C E B`` (0–3) and strength runs
from 0 (the 2, weakest) to 9 (the 1, strongest), so inside a suit a bigger int is a
stronger card (C3). Sets of cards are ints used as bit sets (``1 << card``), like a chess
library's squares and bitboards. Cards are written as their C2 codes (``"O1"``, ``"E12"``):
:data:`CODES` by card, :func:`parse` back.

With ``games.engine`` itself this module is the engine's public surface: the fast path
(:func:`games.engine.legal_cards`, :func:`games.engine.play_card`), the state's hands and the bots
work in these ints; every name of ``__all__`` here stays.

>>> code(parse("E12")), POINTS[parse("O1")], POINTS[parse("B7")]
('E12', 11, 0)
"""

from __future__ import annotations

from typing import Final

SUITS: Final = "OCEB"
#: Ranks from weakest to strongest (C3 read backwards).
RANKS: Final = (2, 4, 5, 6, 7, 10, 11, 12, 3, 1)
#: Points of each strength (C4).
_RANK_POINTS: Final = {1: 11, 3: 10, 12: 4, 11: 3, 10: 2}

TWO, FOUR, SEVEN, SOTA, KNIGHT, KING, THREE, ACE = 0, 1, 4, 5, 6, 7, 8, 9

#: Every card of the 40-card deck, in int order.
ALL_CARDS: Final = tuple(range(40))
CODES: Final = tuple(f"{SUITS[c // 10]}{RANKS[c % 10]}" for c in ALL_CARDS)
POINTS: Final = tuple(_RANK_POINTS.get(RANKS[c % 10], 0) for c in ALL_CARDS)
_BY_CODE: Final = {name: c for c, name in enumerate(CODES)}

SUIT_MASK: Final = tuple(0x3FF << (10 * s) for s in range(4))
#: ``ABOVE[c]``: the cards of c's suit that beat c.
ABOVE: Final = tuple(SUIT_MASK[c // 10] & ~((2 << c) - 1) for c in ALL_CARDS)
DECK_40: Final = (1 << 40) - 1
#: The 36-card deck drops the four 2s (C1).
DECK_36: Final = DECK_40 & ~sum(1 << (s * 10 + TWO) for s in range(4))
KINGS: Final = sum(1 << (s * 10 + KING) for s in range(4))
KNIGHTS: Final = sum(1 << (s * 10 + KNIGHT) for s in range(4))

# Card lists of every 10-bit suit pattern, so that a bit set unpacks with four lookups.
_SUIT_CARDS: Final = tuple(
    tuple(tuple(s * 10 + i for i in range(10) if pattern >> i & 1) for pattern in range(1024))
    for s in range(4)
)


def cards_of(mask: int) -> list[int]:
    """The cards of a bit set, weakest suit-by-suit first."""
    return [
        *_SUIT_CARDS[0][mask & 0x3FF],
        *_SUIT_CARDS[1][mask >> 10 & 0x3FF],
        *_SUIT_CARDS[2][mask >> 20 & 0x3FF],
        *_SUIT_CARDS[3][mask >> 30 & 0x3FF],
    ]


def mask_of(cards: list[int] | tuple[int, ...]) -> int:
    """The bit set of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def suit_of(card: int) -> int:
    return card // 10


def code(card: int) -> str:
    """The card's code of C2, e.g. ``"O1"``."""
    return CODES[card]


def codes(mask: int) -> list[str]:
    return [CODES[c] for c in cards_of(mask)]


def parse(name: object) -> int:
    """The card named by a C2 code; raises ``KeyError`` for anything else."""
    if not isinstance(name, str):
        raise KeyError(name)
    return _BY_CODE[name]


def parse_suit(letter: object) -> int:
    """The suit named by its letter; raises ``KeyError`` for anything else."""
    if not isinstance(letter, str) or len(letter) != 1 or letter not in SUITS:
        raise KeyError(letter)
    return SUITS.index(letter)


def king(suit: int) -> int:
    return suit * 10 + KING


def knight(suit: int) -> int:
    return suit * 10 + KNIGHT


__all__ = [
    "ABOVE",
    "ACE",
    "ALL_CARDS",
    "CODES",
    "DECK_36",
    "DECK_40",
    "FOUR",
    "KING",
    "KINGS",
    "KNIGHT",
    "KNIGHTS",
    "POINTS",
    "RANKS",
    "SEVEN",
    "SOTA",
    "SUITS",
    "SUIT_MASK",
    "THREE",
    "TWO",
    "cards_of",
    "code",
    "codes",
    "king",
    "knight",
    "mask_of",
    "parse",
    "parse_suit",
    "suit_of",
]
