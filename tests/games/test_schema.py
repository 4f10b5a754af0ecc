"""The OpenAPI schema: valid, warning-free, every operation typed and with an example."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command

from tests.games.openapi import validate


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("schema") / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(path))
    return yaml.safe_load(path.read_text())


def test_the_schema_validates_with_no_warning(schema):
    assert schema["openapi"].startswith("3.")


def test_the_schema_is_openapi_3_1_that_a_strict_validator_accepts_and_nullables_admit_null(schema):
    from openapi_spec_validator import validate as validate_spec

    assert schema["openapi"] == "3.1.0"
    validate_spec(schema)

    def keywords(node: object) -> set[str]:
        if isinstance(node, dict):
            return set(node) | {k for value in node.values() for k in keywords(value)}
        if isinstance(node, list):
            return {k for item in node for k in keywords(item)}
        return set()

    assert "nullable" not in keywords(schema["components"]), "3.0's nullable beside allOf admits no null"
    public = {(path, method) for path, item in schema["paths"].items() for method, op in item.items()
              if op.get("security") == []}  # fmt: skip
    anyone = {("/api/v1/players/", "post"), ("/api/v1/variants/", "get"), ("/api/v1/rules", "get")}
    assert public == anyone, "anyone may call these"
    seat = schema["components"]["schemas"]["Seat"]["properties"]["player"]
    assert {"type": "null"} in seat["oneOf"], "a bot's seat has player: null"


def test_every_operation_is_typed_and_has_an_example(schema):
    operations = [(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()]
    assert len(operations) >= 12
    for path, method, op in operations:
        if not path.startswith("/api/v1/"):
            continue
        name = f"{method.upper()} {path}"
        ok = [s for s in op["responses"] if s.startswith("2")]
        assert ok, f"{name} documents no success"
        for status in ok:
            if status == "204":
                continue  # no content (the event stream of a match that is over)
            media = op["responses"][status]["content"]
            # JSON, server-sent events, or the rules' Markdown
            content = media.get("application/json") or media.get("text/event-stream") or media["text/markdown"]
            assert content.get("schema"), f"{name} {status} is untyped"
            assert content.get("examples"), f"{name} {status} has no example"
        errors = [s for s in op["responses"] if s[0] in "45"]
        assert "429" in errors, f"{name} does not document the rate limit"
        for status in errors:
            assert "application/problem+json" in op["responses"][status]["content"], f"{name} {status}"
        if method == "post" and "requestBody" in op:
            assert op["requestBody"]["content"]["application/json"]["schema"], name


def test_the_action_body_is_a_one_of_by_type(schema):
    request = schema["components"]["schemas"]["ActionRequest"]
    assert request["discriminator"]["propertyName"] == "type"
    kinds = {"play", "bid", "pass", "choose_trump", "sing", "tute", "exchange"}
    assert set(request["discriminator"]["mapping"]) == kinds
    assert len(request["oneOf"]) == 7
    assert schema["paths"]["/api/v1/matches/{match_id}/actions"]["post"]["requestBody"]["required"] is True


@pytest.mark.parametrize(
    "component, field",
    [("MatchCreateInput", "variant"), ("MatchJoinInput", "invite_code"), ("RoomInput", "variant"),
     ("RoomInput", "bot"), ("PatchedRoomInput", "bot"), ("RoomJoinInput", "code"), ("RoomJoinInput", "invite_code")],
)  # fmt: skip
def test_a_string_the_service_refuses_blank_is_documented_non_blank(schema, component, field):
    assert schema["components"]["schemas"][component]["properties"][field]["minLength"] == 1


def test_the_examples_match_their_schemas(schema):
    for item in schema["paths"].values():
        for op in item.values():
            for response in op["responses"].values():
                content = response.get("content", {}).get("application/json")
                if not content:
                    continue
                shape = content.get("schema", {})
                if "$ref" in shape:
                    component = shape["$ref"].rsplit("/", 1)[-1]
                    for example in content.get("examples", {}).values():
                        validate(component, example["value"])
                elif shape.get("type") == "array" and "$ref" in shape["items"]:
                    component = shape["items"]["$ref"].rsplit("/", 1)[-1]
                    for example in content.get("examples", {}).values():
                        assert isinstance(example["value"], list), example
                        for item in example["value"]:
                            validate(component, item)


@pytest.mark.parametrize("key", ["k", "~" * 255, "a b", "é", "a" * 256, "a\tb", "\x7f"])
def test_the_idempotency_key_is_documented_as_the_service_checks_it(schema, key):
    """A key the schema admits is accepted; one it does not is refused with 400 (API clients and
    fuzzers generate keys from the schema)."""
    import re

    from rest_framework.parsers import JSONParser
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from tute_api.idempotency import InvalidIdempotencyKey as BadRequest
    from tute_api.idempotency import idempotency_of

    parameters = [p for item in schema["paths"].values() for op in item.values() for p in op.get("parameters", [])]
    documented = [p["schema"] for p in parameters if p["name"] == "Idempotency-Key"]
    assert len(documented) >= 2  # creating a match, and an action
    rule = documented[0]
    admitted = rule["minLength"] <= len(key) <= rule["maxLength"] and re.fullmatch(rule["pattern"], key) is not None
    posted = APIRequestFactory().post("/", {}, format="json", HTTP_IDEMPOTENCY_KEY=key)
    request = Request(posted, parsers=[JSONParser()])
    try:
        accepted = idempotency_of(request) is not None
    except BadRequest:
        accepted = False
    assert accepted == admitted


def _bounded_query_parameters(schema: dict) -> list[tuple[str, str, dict]]:
    return [
        (path, p["name"], p["schema"])
        for path, item in schema["paths"].items()
        if path.startswith("/api/v1/") and "get" in item
        for p in item["get"].get("parameters", [])
        if p["in"] == "query" and p["schema"].get("type") == "integer" and "minimum" in p["schema"]
    ]


@pytest.mark.django_db
def test_every_bounded_query_parameter_is_checked_as_documented(schema):
    """Each documented range is the service's: a value just outside it is a 400 naming the parameter,
    the lowest value inside it is not (a client that builds queries from the schema is never refused)."""
    from tests.games.helpers import new_player

    me = new_player()
    bounded = _bounded_query_parameters(schema)
    assert {name for _, name, _ in bounded} >= {"after", "wait", "limit", "seq", "page", "page_size"}
    for path, name, rule in bounded:
        url = path.replace("{match_id}", "00000000-0000-4000-8000-000000000000")
        outside = [rule["minimum"] - 1] + ([rule["maximum"] + 1] if "maximum" in rule else [])
        for value in outside:
            response = me.get(url, {name: value})
            assert response.status_code == 400, (path, name, value)
            assert name in response.json()["errors"], (path, name, value)
        lowest = me.get(url, {name: rule["minimum"]})
        assert lowest.status_code != 400, (path, name, lowest.json())


def test_the_action_bodies_are_documented_with_the_bounds_the_service_checks(schema):
    """Each bounded integer of an action body: its documented bounds are accepted, one past them refused."""
    from games.matches.serializers import ActionInputSerializer

    components = schema["components"]["schemas"]
    checked = set()
    for ref in schema["components"]["schemas"]["ActionRequest"]["discriminator"]["mapping"].values():
        body = components[ref.rsplit("/", 1)[-1]]
        kind = body["properties"]["type"]["$ref"].rsplit("/", 1)[-1]
        action_type = components[kind]["enum"][0]
        needed = {"play": {"card": "O1"}, "bid": {"amount": 70}, "choose_trump": {"suit": "O"}, "sing": {"suit": "O"}}
        needed = needed.get(action_type, {})
        for name, rule in body["properties"].items():
            if rule.get("type") != "integer":
                continue
            assert {"minimum", "maximum"} <= set(rule), (action_type, name)
            for value, valid in ((rule["minimum"], True), (rule["maximum"], True),
                                 (rule["minimum"] - 1, False), (rule["maximum"] + 1, False)):  # fmt: skip
                data = {"type": action_type, **needed, name: value}
                assert ActionInputSerializer(data=data).is_valid() == valid, (data, valid)
            checked.add((action_type, name))
    assert {("bid", "amount"), ("play", "expected_seq")} <= checked


def test_every_payload_is_typed(schema):
    """No object of unknown shape in what the service answers (Problem's per-field errors aside): the record's
    events, a replay's event and table, a hand's result are components a generator can type."""

    def untyped(node: object, where: str) -> list[str]:
        if isinstance(node, dict):
            found = [where] if node.get("additionalProperties") == {} and "properties" not in node else []
            return found + [f for key, value in node.items() for f in untyped(value, f"{where}/{key}")]
        if isinstance(node, list):
            return [f for i, item in enumerate(node) for f in untyped(item, f"{where}[{i}]")]
        return []

    assert untyped(schema["components"]["schemas"], "") == ["/Problem/properties/errors"]
    schemas = schema["components"]["schemas"]
    assert schemas["Record"]["properties"]["events"]["items"] == {"$ref": "#/components/schemas/RecordedEvent"}
    recorded = {ref["$ref"].rsplit("/", 1)[-1] for ref in schemas["RecordedEvent"]["oneOf"]}
    assert "RecordedHandStartedEvent" in recorded and "HandStartedEvent" not in recorded, "the record deals in full"
    assert {"$ref": "#/components/schemas/RecordedEvent"} in schemas["Replay"]["properties"]["event"]["allOf"]
    assert {"$ref": "#/components/schemas/ReplayTable"} in schemas["Replay"]["properties"]["table"]["oneOf"]


def test_no_description_carries_the_generators_choice_lists(schema):
    assert "* `" not in yaml.safe_dump(schema), "drf-spectacular's '* `True` - True' enum descriptions"


def test_every_201_names_what_it_created(schema):
    created = [(path, method, op["responses"]["201"]) for path, item in schema["paths"].items()
               for method, op in item.items() if "201" in op["responses"]]  # fmt: skip
    assert len(created) >= 7  # players, token, matches, rooms, bots, bot token, ladder runs
    for path, method, answer in created:
        assert answer["headers"]["Location"]["required"] is True, f"{method.upper()} {path}"


@pytest.mark.parametrize(
    "component, old, new",
    [("Room", "code", "invite_code"), ("Room", "state", "status"), ("RoomJoinInput", "code", "invite_code"),
     ("LadderRun", "state", "status")],
)  # fmt: skip
def test_an_old_name_is_deprecated_beside_its_new_one(schema, component, old, new):
    properties = schema["components"]["schemas"][component]["properties"]
    assert properties[old]["deprecated"] is True and "deprecated" not in properties[new]
