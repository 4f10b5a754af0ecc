"""A 201 answer names what it created: ``Location``, the path of the new resource (RFC 9110 15.3.2)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework.response import Response


def location(name: str, **kwargs: Any) -> str:
    """The path of the API's route ``name`` (``"match"``, ``"room"``…) with its arguments."""
    return reverse(f"api_v1:{name}", kwargs=kwargs)


def created(data: Any, where: str, headers: dict[str, str] | None = None) -> Response:
    """201 with ``data``, and ``where`` (a path: :func:`location`) as its ``Location``."""
    return Response(data, status=201, headers={"Location": where, **(headers or {})})
