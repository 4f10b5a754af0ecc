"""JSON through orjson, read and written as the standard library's ``json`` reads and writes it.

orjson does in C what ``json`` does in Python, several times faster: the request bodies, the response
bodies and the JSON columns of every action go through it (docs/performance.md). Where the two would
differ, the standard library decides: :func:`loads` raises :class:`Unsure` for a text orjson refuses
(the caller then reads it as before, with the same answer or the same error) and for a text with a
number of 19 digits or more (orjson reads an integer beyond 64 bits as a float); :func:`dumps` raises
``TypeError`` for what orjson cannot write (an integer beyond 64 bits, an unknown type its ``default``
refuses). Two differences are kept, in what the service never writes: a float in exponent notation is
written as ``1e-7``, not ``1e-07`` (the same number), and a NaN or an infinity as ``null``, where
``json`` with ``allow_nan=False`` raises.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson

_LONG_NUMBER = re.compile(r"[0-9]{19}")
_LONG_NUMBER_BYTES = re.compile(rb"[0-9]{19}")
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_UTC_Z  # keys 1 -> "1" and UTC as "Z", as DRF's encoder
#: What ``json.dumps`` refuses without an encoder, orjson refuses too (it would write datetimes and dataclasses).
_PLAIN = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


class Unsure(ValueError):
    """orjson refuses this text, or could read it otherwise than ``json``: read it with ``json``."""


def loads(data: bytes | str) -> Any:
    """The value of a JSON text, as ``json.loads`` reads it; :class:`Unsure` where orjson cannot tell."""
    if (_LONG_NUMBER_BYTES if isinstance(data, bytes) else _LONG_NUMBER).search(data):  # type: ignore[arg-type]
        raise Unsure("a number of 19 digits or more")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise Unsure(str(error)) from None


def dumps(value: Any, default: Callable[[Any], Any] | None = None, *, plain: bool = False) -> bytes:
    """``value`` as compact UTF-8 JSON; ``default`` turns what orjson does not know into what it does.
    ``plain``: only what ``json.dumps`` writes with no encoder (no datetime, no dataclass), as a JSON
    column takes it. ``TypeError`` for what cannot be written so."""
    return orjson.dumps(value, default=default, option=_PLAIN if plain else _OPTIONS)
