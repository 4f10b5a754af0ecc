"""The API's request parser: DRF's JSON parser, reading through orjson (:mod:`tute_api.json_codec`),
with a clear 400 for JSON nested too deeply; and :func:`whole_number` for values read outside DRF's
serializers (a query string, a header).

A body orjson refuses or could read otherwise is read by DRF's parser, as before: the same value, or
the same 400 with the same words.

Python's JSON decoder raises ``RecursionError``, not ``ValueError``, when arrays or objects nest
deeper than the interpreter's recursion limit (``[[[[…]]]]``, a few kilobytes), which DRF's parser
lets through as a 500.
"""

from __future__ import annotations

import io
import re
from typing import Any

from rest_framework import exceptions, parsers

from . import json_codec


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        body = stream.read()
        if parsers.get_encoding(parser_context or {}).lower().replace("_", "-") in ("utf-8", "utf8"):
            try:
                return json_codec.loads(body)
            except json_codec.Unsure:
                pass
        try:
            return super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply.") from None


_DIGITS = re.compile(r"[0-9]{1,9}")
#: The largest :func:`whole_number`, and the schema of a value it reads (a query's or a header's).
WHOLE_NUMBER_MAX = 999_999_999
WHOLE_NUMBER = {"type": "integer", "minimum": 0, "maximum": WHOLE_NUMBER_MAX}


def whole_number(text: str) -> int | None:
    """``text`` as a whole number of up to nine ASCII digits, else None. ``str.isdigit`` alone admits
    ``²`` and digits without end, on which ``int`` raises."""
    return int(text) if _DIGITS.fullmatch(text) else None


def resume_after(request: Any, after: int | None) -> int:
    """Where an event stream resumes: ``after`` (the query's, already checked) if given, else the
    ``Last-Event-ID`` header, else 0. A header that is not a whole number is refused (400 ``invalid``
    naming it), with ``after`` or without, as a bad ``after`` is: the stream never silently starts over."""
    raw = request.headers.get("Last-Event-ID")
    found = whole_number(raw.strip()) if raw is not None else None
    if raw is not None and found is None:
        raise exceptions.ValidationError({"Last-Event-ID": ["A whole number."]})
    if after is not None:
        return after
    return found if found is not None else 0
