"""Content negotiation: DRF's, but an unknown ``?format=`` is bad input, not a missing page."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation


class ContentNegotiation(DefaultContentNegotiation):
    """``?format=`` names one of the view's renderers (``GET /rules?format=md``). DRF answers any other
    value 404 (``Http404``), which no operation documents for it: here it is 400 ``invalid``, naming
    ``format`` and the formats the view has."""

    def select_renderer(self, request: Any, renderers: list[Any], format_suffix: str | None = None) -> Any:
        name = self.settings.URL_FORMAT_OVERRIDE
        # Nearly every request: no ?format= and an Accept of */* (or none) or of the view's first renderer.
        # DRF's answer is then that renderer and its media type; found here without parsing the query
        # and the Accept header (2.5% of a server process's samples under load, docs/performance.md).
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        query = request.META.get("QUERY_STRING", "")
        named = name and (name in query or "%" in query)  # (``?format`` alone, or a name percent-encoded)
        if not format_suffix and accept in ("*/*", renderers[0].media_type) and not named:
            return renderers[0], renderers[0].media_type
        if not format_suffix and name and request.query_params.get(name, None) == "":
            raise ValidationError({name: ["An empty format: leave it out, or name one."]})  # DRF: as if absent
        return super().select_renderer(request, renderers, format_suffix)

    def filter_renderers(self, renderers: list[Any], format: str) -> list[Any]:
        found = [renderer for renderer in renderers if renderer.format == format]
        if not found:
            known = ", ".join(renderer.format for renderer in renderers)
            raise ValidationError({"format": [f"No format {format!r} here: {known}."]})
        return found
