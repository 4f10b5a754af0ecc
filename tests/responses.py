"""Every answer the tests receive from the API is checked against the OpenAPI schema: the operation its
path and method resolve to must document its status, and its JSON body must be what that status's schema
says (objects closed, as in tests/games/openapi.py), with the headers it requires (a 201's Location). A test
that gets an undocumented answer fails."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import jsonschema_rs
from django.urls import Resolver404, resolve

from tests.games.openapi import _components, _strict, strict_validator

_CONVERTER = re.compile(r"<(?:[^:>]+:)?([^>]+)>")


@functools.cache
def _schema_paths() -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    paths: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    return paths


def _required_headers(path: str, method: str, status: str) -> list[str]:
    headers = _schema_paths()[path][method]["responses"].get(status, {}).get("headers", {})
    return [name for name, header in headers.items() if header.get("required")]


@functools.cache
def _validator(path: str, method: str, status: str, media: str) -> jsonschema_rs.Validator | None:
    operation = _schema_paths()[path][method]
    responses = operation["responses"]
    assert status in responses, f"{method.upper()} {path} answered {status}, which its schema does not document"
    content = responses[status].get("content", {})
    if media not in content:
        return None  # documented without this body (a 204, or a media type the schema gives no shape)
    shape = _strict(content[media]["schema"])
    return strict_validator({**shape, "components": _components()})


def check(method: str, request_path: str, response: Any) -> None:
    """Assert that ``response`` to ``method request_path`` is one the schema documents."""
    if not request_path.startswith("/api/v1/") or getattr(response, "streaming", False):
        return
    try:
        route = resolve(request_path).route
    except Resolver404:
        return
    if not route.startswith("api/v1/") or route.startswith("api/v1/^"):
        return  # the catch-all of unknown paths
    path = "/" + _CONVERTER.sub(r"{\1}", route)
    operations = _schema_paths().get(path, {})
    if method.lower() not in operations:
        return  # a method the route does not take (405), or OPTIONS
    for header in _required_headers(path, method.lower(), str(response.status_code)):
        assert response.has_header(header), f"{method.upper()} {path} answered {response.status_code} without {header}"
    media = response.get("Content-Type", "").split(";")[0].strip()
    if media not in ("application/json", "application/problem+json"):
        return  # the rules' Markdown, an event stream: no JSON body to check
    validator = _validator(path, method.lower(), str(response.status_code), media)
    if validator is None or not response.content:
        return
    validator.validate(json.loads(response.content))
