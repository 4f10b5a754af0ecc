"""Check response bodies against the service's own OpenAPI 3.1 schema as published (JSON Schema 2020-12),
strictly: every documented object is closed (``additionalProperties: false``), so an undocumented field
fails too. Nothing else is rewritten: a null the schema does not admit fails, as in a strict client.

The validators are jsonschema-rs's (in Rust: the suite checks every answer it gets, which Python's
``jsonschema`` made most of the time of the longest tests); each schema is first checked against the
metaschema by ``jsonschema``."""

from __future__ import annotations

import functools
from typing import Any

import jsonschema
import jsonschema_rs
from drf_spectacular.generators import SchemaGenerator


def _strict(node: Any) -> Any:
    """Objects closed; ``discriminator`` (OpenAPI's, not JSON Schema's) left out."""
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _strict(value) for key, value in node.items() if key != "discriminator"}
    if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


@functools.cache
def _components() -> dict[str, Any]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components: dict[str, Any] = _strict(schema["components"])
    return components


def strict_validator(schema: dict[str, Any]) -> jsonschema_rs.Validator:
    """A JSON Schema 2020-12 validator of ``schema`` (formats are annotations, as in ``jsonschema``)."""
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema_rs.Draft202012Validator(schema, validate_formats=False)


@functools.cache
def _validator(component: str, many: bool) -> jsonschema_rs.Validator:
    ref = {"$ref": f"#/components/schemas/{component}"}
    return strict_validator({**({"type": "array", "items": ref} if many else ref), "components": _components()})


def validate(component: str, body: Any, many: bool = False) -> None:
    """Assert that ``body`` is a ``component`` (a list of them with ``many``)."""
    _validator(component, many).validate(body)
