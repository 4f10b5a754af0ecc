"""OpenAPI pieces shared by the apps: the problem-details response of every error."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.core.validators import ProhibitNullCharactersValidator, RegexValidator
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from .errors import PROBLEM_CONTENT_TYPE


class ProblemSerializer(serializers.Serializer):
    """An RFC 9457 problem: the standard members, a stable ``code``, and the error's own members."""

    type = serializers.CharField(help_text="`urn:tute:problem:<code>`.")
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    code = serializers.CharField(help_text="Stable and machine-readable, e.g. `must_follow_suit`, `stale_seq`.")
    rule = serializers.CharField(
        required=False, help_text="The rule that an illegal action breaks, an id of `GET /api/v1/rules`."
    )
    field = serializers.CharField(required=False, help_text="The input that was refused (`options.letters`).")
    seq = serializers.IntegerField(required=False, help_text="The match's current `seq` (with `stale_seq`).")
    errors = serializers.DictField(required=False, help_text="Per-field messages of a 400 `invalid`.")
    retry_after = serializers.IntegerField(required=False, help_text="Seconds to wait (with a 429).")
    username = serializers.CharField(required=False, help_text="The name that is taken (with `username_taken`).")
    address = serializers.CharField(
        required=False, help_text="The refused address a webhook's host resolves to (`webhook_address_not_allowed`)."
    )
    match_id = serializers.UUIDField(required=False, help_text="The match a bot sits at (with `bot_in_play`).")
    limit = serializers.IntegerField(required=False, help_text="How many one may have (with `too_many_bots`).")


_DESCRIPTIONS = {
    400: "Bad input (`parse_error`, `invalid` with per-field `errors`).",
    401: "No token, or a bad one (`not_authenticated`, `authentication_failed`).",
    403: "Not allowed (see `code`).",
    404: "No such match, or not one of the caller's (`not_found`).",
    406: "The Accept header admits no response this operation gives (`not_acceptable`).",
    409: "A conflict with the match's current state (see `code`).",
    422: "A rule or a constraint refuses the request (see `code`, and `rule` or `field`).",
    429: "Too many requests (`throttled`); `Retry-After` says how long to wait.",
    503: "The database cannot be reached, or gave up the transaction (`service_unavailable`); nothing was "
    "changed. `Retry-After` says when to try again (an action with the same `Idempotency-Key`).",
}


#: A string with no NUL character (U+0000), which DRF's text fields refuse (PostgreSQL cannot store one).
NO_NUL = "^[^\\u0000]*$"
#: The characters Python's ``str.strip()`` removes (``str.isspace()``), which DRF trims off a text field
#: before it checks that the field is not blank; JSON Schema's ``\s`` is another set (it lacks U+0085
#: and U+001C–U+001F, and has U+FEFF), so they are named one by one.
_TRIMMED = "\\t\\n\\u000b\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
#: A string with no NUL and at least one character that trimming leaves: what a text field that may not be
#: blank takes.
NOT_BLANK_NO_NUL = f"^[^\\u0000]*[^\\u0000{_TRIMMED}][^\\u0000]*$"


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's, saying what every text field of a request body checks that its generator leaves
    out: a field that may not be blank has ``minLength: 1``; no text field takes a NUL character; and a
    trimmed field that may not be blank takes no string of whitespace only (a ``pattern``, unless the field's
    own pattern or enum already says what it takes). Either way the service answers 400 ``invalid`` naming
    the field; the schema now says so beforehand."""

    def _map_serializer_field(self, field: Any, direction: str, bypass_extensions: bool = False) -> Any:
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction != "request" or not isinstance(field, serializers.CharField) or field.read_only:
            return schema
        if not isinstance(schema, dict) or "string" not in _types(schema):
            return schema
        if not field.allow_blank and "minLength" not in schema:
            schema["minLength"] = 1
        refuses_nul = any(isinstance(v, ProhibitNullCharactersValidator) for v in field.validators)
        has_pattern = any(isinstance(v, RegexValidator) for v in field.validators)  # mapped after this
        if refuses_nul and not has_pattern and not {"pattern", "enum", "format"} & schema.keys():
            schema["pattern"] = NOT_BLANK_NO_NUL if field.trim_whitespace and not field.allow_blank else NO_NUL
        return schema


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def problems(*statuses: int, **descriptions: str) -> dict[Any, OpenApiResponse]:
    """Problem-details responses for some statuses, and the 503 that any operation may answer, for
    ``extend_schema(responses=...)``."""
    return {
        (status, PROBLEM_CONTENT_TYPE): OpenApiResponse(
            ProblemSerializer, description=descriptions.get(f"s{status}", _DESCRIPTIONS[status])
        )
        for status in (*statuses, 503)
    }


def _operations(result: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every operation of a generated schema (a path's entries that are not operations are skipped)."""
    for operations in result.get("paths", {}).values():
        yield from (operation for operation in operations.values() if isinstance(operation, dict))


def document_unsupported_media_type(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook: the answers any operation may get from the plumbing, which
    no view lists among its own statuses: a body that is not JSON (415, DRF's parsers) or too large (413,
    the request-size limit), for every operation that takes one; a host the service does not answer to
    (400 ``disallowed_host``, ``tute_api.hosts``) and a URL longer than ``MAX_URL_LENGTH`` (414
    ``uri_too_long``, ``tute_api.errors``), for every operation."""
    problem = {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    for operation in _operations(result):
        responses = operation["responses"]
        responses.setdefault("400", {
            "description": "The request names a host the service does not answer to (`disallowed_host`).",
            "content": problem,
        })  # fmt: skip
        responses.setdefault("414", {
            "description": "The URL (path and query) is longer than the service takes (`uri_too_long`).",
            "content": problem,
        })  # fmt: skip
        if "requestBody" in operation:
            responses.setdefault("413", {
                "description": "The body is larger than the service takes (`request_too_large`).",
                "content": problem,
            })  # fmt: skip
            responses.setdefault("415", {
                "description": "The body is not JSON: send `Content-Type: application/json` "
                "(`unsupported_media_type`).",
                "content": problem,
            })  # fmt: skip
    return result


def require_one_of_bodies(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook: mark a request body ``required`` when its schema is a
    ``oneOf`` whose every member has required properties (the action: its ``type``). The generator
    marks a body required only from its component's own ``required`` list, which a ``oneOf`` has not."""
    schemas = result.get("components", {}).get("schemas", {})

    def component(ref: str) -> dict[str, Any]:
        found: dict[str, Any] = schemas.get(ref.rsplit("/", 1)[-1], {})
        return found

    for operation in _operations(result):
        body = operation.get("requestBody")
        for content in (body or {}).get("content", {}).values():
            members = component(content.get("schema", {}).get("$ref", "")).get("oneOf", [])
            if members and all(component(m.get("$ref", "")).get("required") for m in members):
                body["required"] = True
    return result


def public_operations_take_no_token(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook: an operation anyone may call (no authentication, such as
    signing up or listing the variants) says so, ``security: []``. drf-spectacular writes
    ``security: [{}]`` ("optionally anonymous"), which client generators read as "needs a configured
    authenticated client": a new app could not create its first player without a token."""
    for operation in _operations(result):
        if operation.get("security") == [{}]:
            operation["security"] = []
    return result


def created_answers_name_what_they_created(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook: every 201 carries ``Location`` (``tute_api.created``), the path of
    what it created: the new player's profile, match, room, bot; the current ladder run; for a rotated token,
    the player or bot it belongs to."""
    for operation in _operations(result):
        answer = operation["responses"].get("201")
        if answer is not None:
            answer.setdefault("headers", {})["Location"] = {
                "description": "The path of what was created (for a new token: the player or bot it belongs to).",
                "required": True,
                "schema": {"type": "string", "format": "uri-reference"},
            }
    return result


def event_streams_are_text_too(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook: an event stream's schema describes each message (as OpenAPI
    3.2's ``itemSchema`` does; schemathesis checks each against it), but a client generator reads a
    ``text/*`` body whole, as text: the schema says either, so that its code types both (a string, or one
    message parsed by an SSE reader)."""
    for operation in _operations(result):
        for answer in operation["responses"].values():
            media = answer.get("content", {}).get("text/event-stream")
            if media is not None and "oneOf" not in media.get("schema", {}):
                media["schema"] = {
                    "oneOf": [
                        media["schema"],
                        {"type": "string", "description": "The stream read whole: its messages, one after another."},
                    ]
                }
    return result


#: Request bodies that need one of several fields (a name and its deprecated alias): the component and
#: its alternatives, each a list of the fields that alternative requires.
ONE_OF_FIELDS_REQUIRED = {"RoomJoinInput": [["invite_code"], ["code"]]}


def alternatives_required(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook: a body that takes a field under its new name or its deprecated
    one requires either (``anyOf`` of ``required`` lists), as the serializer does (400 ``invalid`` without)."""
    schemas = result.get("components", {}).get("schemas", {})
    for name, alternatives in ONE_OF_FIELDS_REQUIRED.items():
        if name in schemas:
            schemas[name]["anyOf"] = [{"required": fields} for fields in alternatives]
    refs = {f"#/components/schemas/{name}" for name in ONE_OF_FIELDS_REQUIRED}
    for operation in _operations(result):
        body = operation.get("requestBody")
        if body and any(c.get("schema", {}).get("$ref") in refs for c in body.get("content", {}).values()):
            body["required"] = True  # no body has neither field
    return result
