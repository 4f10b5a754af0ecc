"""The API's JSON renderer: DRF's, writing through orjson (:mod:`tute_api.json_codec`).

The bytes are DRF's: compact, UTF-8, datetimes in ISO 8601 with ``Z`` for UTC, U+2028 and U+2029
escaped; what orjson does not know (a lazy translation, a ``Decimal``) goes through DRF's own encoder.
A pretty-printed answer (``Accept: application/json; indent=4``), or a value orjson cannot write, is
DRF's renderer's.
"""

from __future__ import annotations

from typing import Any

from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder

from . import json_codec

_DRF_DEFAULT = JSONEncoder().default


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        if data is None or self.get_indent(accepted_media_type, renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)  # type: ignore[no-any-return]
        try:
            body = json_codec.dumps(data, _DRF_DEFAULT)
        except TypeError:
            return super().render(data, accepted_media_type, renderer_context)  # type: ignore[no-any-return]
        if b"\xe2\x80\xa8" in body or b"\xe2\x80\xa9" in body:  # a strict subset of JavaScript, as DRF's
            body = body.replace("\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")
        return body
