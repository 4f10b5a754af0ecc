"""The OpenAPI schema at /api/schema/ and Swagger UI at /api/docs/, served with no internet."""

import re
from urllib.parse import urlsplit

from django.contrib.staticfiles import finders
from django.test import Client


def test_schema_is_openapi_3_for_the_service(client: Client):
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "tute-api"


def test_every_operation_documents_the_503_of_a_database_out_of_reach(client: Client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operations = [op for path in schema["paths"].values() for op in path.values()]
    assert len(operations) > 20
    for operation in operations:
        assert "application/problem+json" in operation["responses"]["503"]["content"], operation["operationId"]


def test_every_operation_with_a_body_documents_the_415_of_a_body_that_is_not_json(client: Client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    with_body = [op for path in schema["paths"].values() for op in path.values() if "requestBody" in op]
    assert len(with_body) > 5
    for operation in with_body:
        content = operation["responses"]["415"]["content"]["application/problem+json"]
        assert content["schema"]["$ref"] == "#/components/schemas/Problem", operation["operationId"]
    answer = client.post("/api/v1/players/", "username=ana", content_type="text/plain")
    assert (answer.status_code, answer.json()["code"]) == (415, "unsupported_media_type")


def test_the_stream_documents_no_format_parameter(client: Client):
    """DRF's ?format= picks a renderer; the stream's JSON one only writes its problems (406 otherwise)."""
    schema = client.get("/api/schema/", {"format": "json"}).json()
    parameters = schema["paths"]["/api/v1/matches/{match_id}/stream"]["get"]["parameters"]
    assert "format" not in {p["name"] for p in parameters} and "after" in {p["name"] for p in parameters}


def test_schema_defaults_to_yaml(client: Client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert response.content.startswith(b"openapi: 3.")


def test_docs_page_is_swagger_ui_with_no_external_host(client: Client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "SwaggerUIBundle" in html or "swagger-ui" in html
    urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    urls += re.findall(r"""https?://[^\s"'<>)]+""", html)
    assert urls, "the page references no assets at all"
    for url in urls:
        parts = urlsplit(url)
        assert not parts.netloc and parts.scheme in ("", "data"), f"external reference: {url}"


def test_docs_page_assets_are_in_our_static_files(client: Client):
    html = client.get("/api/docs/").content.decode()
    assets = re.findall(r"""["']/static/([^"']+)["']""", html)
    assert any(asset.endswith(".js") for asset in assets)
    for asset in assets:
        assert finders.find(asset), f"missing static file: {asset}"
