"""The API's request parser: DRF's JSON parser, with a clear 400 for JSON nested too deeply.

Python's JSON decoder raises ``RecursionError``, not ``ValueError``, when arrays or objects nest
deeper than the interpreter's recursion limit (``[[[[…]]]]``, a few kilobytes), which DRF's parser
lets through as a 500.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, parsers


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply.") from None
