"""Verifiable deals (RULES.md C12v): every deck and the first dealer of a match, from a secret key
and the players' seeds, by the procedure that ``docs/fair-deals.md`` publishes.

The service draws a key (:func:`new_key`) and publishes :func:`commitment` before it learns any
seed; once the match is over it reveals the key and the seeds, and anyone can recompute every deck
with this module or the standalone ``examples/verify_deals.py``. Pure and deterministic: the same
key, seeds and hand number give the same deck in any language that has HMAC-SHA256.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .cards import CODES, cards_of
from .variants import rules_for

#: The version of the procedure, the first bytes of what the key mixes with the seeds.
VERSION = b"tute-deals-v1"
#: The key's length in bytes.
KEY_BYTES = 32


def new_key() -> bytes:
    """A fresh secret match key, from the operating system's secure generator."""
    return secrets.token_bytes(KEY_BYTES)


def commitment(key: bytes) -> str:
    """The SHA-256 of the key, in lowercase hex: what the service publishes before any seed."""
    return hashlib.sha256(key).hexdigest()


def _mixed(key: bytes, seeds: Sequence[str | None]) -> bytes:
    """HMAC-SHA256 under the key of the version and each seat's seed (UTF-8, 2-byte length first;
    a seat without a seed counts as an empty one)."""
    message = bytearray(VERSION)
    for seed in seeds:
        data = (seed or "").encode()
        message += len(data).to_bytes(2, "big") + data
    return hmac.new(key, bytes(message), hashlib.sha256).digest()


def _numbers(key: bytes, seeds: Sequence[str | None], label: str) -> Iterator[int]:
    """The random stream of one label: HMAC-SHA256(mixed, label ":" counter) for counter 0, 1, 2…
    (4 bytes big-endian), read as 4-byte big-endian unsigned numbers."""
    mixed = _mixed(key, seeds)
    prefix = label.encode() + b":"
    counter = 0
    while True:
        block = hmac.new(mixed, prefix + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        counter += 1


def _below(numbers: Iterator[int], n: int) -> int:
    """A uniform number in 0…n-1: the next number of the stream under the largest multiple of n
    (the others are skipped), modulo n."""
    limit = 2**32 - 2**32 % n
    while (x := next(numbers)) >= limit:
        pass
    return x % n


def deck_for(key: bytes, seeds: Sequence[str | None], hand_number: int, deck_order: Sequence[int]) -> list[int]:
    """The deck of hand ``hand_number`` (1 for the first): a Fisher–Yates shuffle of ``deck_order``
    (the variant's cards in the engine's order) drawn from the stream of label ``deck:<hand>``."""
    deck = list(deck_order)
    numbers = _numbers(key, seeds, f"deck:{hand_number}")
    for i in range(len(deck) - 1, 0, -1):
        j = _below(numbers, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def first_dealer(key: bytes, seeds: Sequence[str | None], players: int) -> int:
    """The first dealer (C11), drawn from the stream of label ``dealer``."""
    return _below(_numbers(key, seeds, "dealer"), players)


def deck_order(variant: str, options: Mapping[str, Any]) -> list[str]:
    """The cards a deck of the variant shuffles, as C2 codes, in the order the shuffle starts from:
    the engine's card order (suits O C E B, each from its 2 to its 1; the 36-card deck has no 2s)."""
    return [CODES[c] for c in cards_of(rules_for(variant, dict(options)).deck)]


__all__ = ["KEY_BYTES", "VERSION", "commitment", "deck_for", "deck_order", "first_dealer", "new_key"]
