"""Every error is RFC 9457 problem details with a stable code, in and outside DRF views."""

import json
from http import HTTPStatus
from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import Http404
from django.urls import path
from rest_framework import exceptions, serializers
from rest_framework.authentication import BasicAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from tute_api import urls as project_urls
from tute_api.errors import ApiError

PROBLEM = "application/problem+json"
factory = APIRequestFactory()


class NotYourTurn(ApiError):
    status_code = 422
    default_code = "not_your_turn"
    default_detail = "It is not your turn."


class Raising(APIView):
    """Raises whatever the test gives it."""

    authentication_classes: list[type] = []
    permission_classes: list[type] = []
    exc: Exception = Exception()

    def get(self, request):
        raise self.exc


class Echo(serializers.Serializer):
    card = serializers.CharField(max_length=3)
    amount = serializers.IntegerField(min_value=70)


class Posting(APIView):
    authentication_classes: list[type] = []
    permission_classes: list[type] = []

    def post(self, request):
        Echo(data=request.data).is_valid(raise_exception=True)
        return Response({})


class Private(APIView):
    authentication_classes = [BasicAuthentication]
    permission_classes = [IsAuthenticated]

    def get(self, request):
        return Response({})


class AlwaysThrottled(BaseThrottle):
    def allow_request(self, request, view):
        return False

    def wait(self):
        return 41.2


class Throttled(APIView):
    authentication_classes: list[type] = []
    permission_classes: list[type] = []
    throttle_classes = [AlwaysThrottled]

    def get(self, request):
        return Response({})


def problem_of(response):
    response.render()
    assert response["Content-Type"] == PROBLEM
    body = json.loads(response.content)
    assert body["status"] == response.status_code
    assert body["type"] == f"urn:tute:problem:{body['code']}"
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    return body


def raised(exc):
    return problem_of(Raising.as_view(exc=exc)(factory.get("/")))


def test_api_error_renders_its_status_code_detail_and_extra_members():
    response = Raising.as_view(exc=NotYourTurn(seat=2, turn=1))(factory.get("/"))
    assert response.status_code == 422
    assert problem_of(response) == {
        "type": "urn:tute:problem:not_your_turn",
        "title": HTTPStatus(422).phrase,
        "status": 422,
        "detail": "It is not your turn.",
        "code": "not_your_turn",
        "seat": 2,
        "turn": 1,
    }


def test_api_error_detail_code_and_title_can_be_given():
    class Stale(ApiError):
        status_code = 409
        default_code = "stale_seq"
        default_detail = "The match has moved on."
        title = "Stale sequence number"

    body = raised(Stale("Expected seq 7, the match is at 9.", expected_seq=7, seq=9))
    assert body["title"] == "Stale sequence number"
    assert body["detail"] == "Expected seq 7, the match is at 9."
    assert (body["code"], body["expected_seq"], body["seq"]) == ("stale_seq", 7, 9)


def test_extra_members_cannot_override_the_standard_ones():
    body = raised(NotYourTurn(status=200, code_extra="x"))
    assert body["status"] == 422
    assert body["code_extra"] == "x"


def test_validation_error_is_400_invalid_with_the_field_errors():
    response = Posting.as_view()(factory.post("/", {"card": "O1000"}, format="json"))
    assert response.status_code == 400
    body = problem_of(response)
    assert body["code"] == "invalid"
    assert set(body["errors"]) == {"card", "amount"}
    assert body["errors"]["amount"] == ["This field is required."]


def test_validation_error_without_fields_lands_under_non_field_errors():
    body = raised(exceptions.ValidationError("Bad combination."))
    assert body["errors"] == {"non_field_errors": ["Bad combination."]}


def test_malformed_json_is_400_parse_error():
    request = factory.post("/", "{not json", content_type="application/json")
    response = Posting.as_view()(request)
    assert response.status_code == 400
    assert problem_of(response)["code"] == "parse_error"


def test_a_body_that_is_not_json_is_415_unsupported_media_type():
    response = Posting.as_view()(factory.post("/", {"card": "O1"}))  # multipart form
    assert response.status_code == 415
    assert problem_of(response)["code"] == "unsupported_media_type"


def test_missing_credentials_are_401_not_authenticated_with_a_challenge():
    response = Private.as_view()(factory.get("/"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Basic")
    assert problem_of(response)["code"] == "not_authenticated"


def test_wrong_credentials_are_401_authentication_failed():
    response = Private.as_view()(factory.get("/", HTTP_AUTHORIZATION="Basic !!!"))
    assert response.status_code == 401
    assert problem_of(response)["code"] == "authentication_failed"


def test_throttled_is_429_with_retry_after():
    response = Throttled.as_view()(factory.get("/"))
    assert response.status_code == 429
    assert response["Retry-After"] == "42"
    body = problem_of(response)
    assert (body["code"], body["retry_after"]) == ("throttled", 42)


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (Http404("No Match matches the given query."), 404, "not_found"),
        (exceptions.NotFound(), 404, "not_found"),
        (DjangoPermissionDenied(), 403, "permission_denied"),
        (exceptions.PermissionDenied(), 403, "permission_denied"),
        (exceptions.MethodNotAllowed("PUT"), 405, "method_not_allowed"),
        (exceptions.NotAcceptable(), 406, "not_acceptable"),
    ],
)
def test_drf_and_django_exceptions_keep_stable_codes(exc, status, code):
    body = raised(exc)
    assert (body["status"], body["code"]) == (status, code)


@pytest.mark.parametrize("exc", [OperationalError("could not connect to server"), InterfaceError("connection closed")])
def test_a_database_that_fails_is_503_service_unavailable_with_retry_after(exc, caplog):
    response = Raising.as_view(exc=exc)(factory.get("/"))
    body = problem_of(response)
    assert (body["status"], body["code"]) == (503, "service_unavailable")
    assert response["Retry-After"] == "5"
    assert "could not connect" not in body["detail"] and "connection closed" not in body["detail"]
    assert any(r.levelname == "ERROR" and r.exc_info for r in caplog.records), "the operator is told, with the cause"


@pytest.mark.django_db
def test_an_action_whose_database_fails_answers_503(client):
    """End to end: the token's query fails as a lost connection does."""
    with mock.patch("players.models.PlayerManager.by_token_digest", side_effect=OperationalError("gone")):
        response = client.get("/api/v1/players/me", headers={"Authorization": "Bearer x"})
    assert response.status_code == 503 and response.json()["code"] == "service_unavailable"


def test_an_unknown_exception_is_not_swallowed():
    with pytest.raises(ZeroDivisionError):
        Raising.as_view(exc=ZeroDivisionError())(factory.get("/"))


def test_an_unknown_path_is_a_json_404(client):
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "not_found"


def test_an_unknown_api_path_is_a_json_404(client):
    response = client.post("/api/v1/no-such-endpoint", {})
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


# The project's URLs and error handlers, plus plain Django views that fail.
def crash(request):
    raise RuntimeError("boom")


def forbid(request):
    raise DjangoPermissionDenied


def suspicious(request):
    raise SuspiciousOperation("odd")


def database_gone(request):
    raise OperationalError("server closed the connection unexpectedly")


urlpatterns = [
    *project_urls.urlpatterns,
    path("crash", crash),
    path("forbid", forbid),
    path("suspicious", suspicious),
    path("database-gone", database_gone),
]
handler400 = project_urls.handler400
handler403 = project_urls.handler403
handler404 = project_urls.handler404
handler500 = project_urls.handler500


@pytest.mark.urls(__name__)
@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/crash", 500, "server_error"),
        ("/forbid", 403, "permission_denied"),
        ("/suspicious", 400, "bad_request"),
        ("/database-gone", 503, "service_unavailable"),
    ],
)
def test_errors_outside_drf_views_are_json_problems(client, path, status, code):
    client.raise_request_exception = False
    response = client.get(path)
    assert response.status_code == status
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert (body["status"], body["code"]) == (status, code)
    assert "boom" not in body["detail"]
    assert ("Retry-After" in response) is (status == 503)


def test_json_nested_too_deeply_is_400_parse_error_not_500():
    body = "[" * 5000 + "]" * 5000
    response = Posting.as_view()(factory.post("/", body, content_type="application/json"))
    assert response.status_code == 400
    assert problem_of(response)["code"] == "parse_error"
    assert "nested too deeply" in problem_of(response)["detail"]


def test_a_body_over_the_size_limit_is_413_request_too_large(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"card": "O1" * 1000})
    response = Posting.as_view()(factory.post("/", body, content_type="application/json"))
    assert response.status_code == 413
    assert problem_of(response)["code"] == "request_too_large"
    assert "1,000 bytes" in problem_of(response)["detail"]


@pytest.mark.django_db
def test_the_api_answers_deep_or_huge_bodies_with_problems(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    deep = client.post("/api/v1/players/", "[" * 5000 + "]" * 5000, content_type="application/json")
    huge = client.post("/api/v1/players/", json.dumps({"username": "x" * 20_000}), content_type="application/json")
    assert (deep.status_code, deep.json()["code"]) == (400, "parse_error")
    assert (huge.status_code, huge.json()["code"]) == (413, "request_too_large")
    assert deep["Content-Type"] == huge["Content-Type"] == "application/problem+json"


def test_an_over_long_url_is_a_414_problem(client):
    from django.conf import settings

    answer = client.get("/healthz?x=" + "a" * settings.MAX_URL_LENGTH)  # any path: before routing
    assert answer.status_code == 414
    assert answer["Content-Type"] == "application/problem+json"
    assert answer.json()["code"] == "uri_too_long"
    assert client.get("/healthz?x=" + "a" * 100).status_code == 200
