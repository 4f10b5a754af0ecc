"""Errors as data: every error leaves the service as RFC 9457 problem details.

A problem is a JSON object served as ``application/problem+json`` with the members ``type``,
``title``, ``status``, ``detail`` and ``code`` (stable and machine-readable), plus any extra
members the error carries. Raise an :class:`ApiError` subclass from a view or service::

    class NotYourTurn(ApiError):
        status_code = 422
        default_code = "not_your_turn"
        default_detail = "It is not your turn."

    raise NotYourTurn(seat=2)

DRF's own exceptions keep their stable codes (``invalid``, ``parse_error``,
``not_authenticated``, ``authentication_failed``, ``permission_denied``, ``not_found``,
``method_not_allowed``, ``not_acceptable``, ``unsupported_media_type``, ``throttled``; a body over
``DATA_UPLOAD_MAX_MEMORY_SIZE`` is 413 ``request_too_large``), and the
Django handlers below answer the same way outside DRF views. A database that cannot be reached, or
that gives up a transaction (a lost connection, a deadlock), is logged and answers 503
``service_unavailable`` with ``Retry-After``. Any other exception is left to Django: it is logged
and becomes a 500 ``server_error``.
"""

from __future__ import annotations

import logging
import math
import sys
from http import HTTPStatus
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_TYPE_PREFIX = "urn:tute:problem:"
#: Seconds a client is asked to wait (``Retry-After``) when the database is unreachable or gave up
#: on a transaction (a lost connection, a deadlock): a 503 that a retry may get past.
UNAVAILABLE_RETRY_SECONDS = 5

logger = logging.getLogger(__name__)


class ApiError(exceptions.APIException):
    """Base class of the service's errors: a status, a stable code, a detail and extra members.

    Subclasses set ``status_code``, ``default_code`` and ``default_detail`` (and may set
    ``title``); keyword arguments given to the constructor become extra problem members.
    """

    status_code = 400
    default_code = "error"
    default_detail = "The request could not be processed."
    title: str | None = None

    def __init__(self, detail: str | None = None, code: str | None = None, **extra: Any) -> None:
        super().__init__(detail, code)
        self.extra = extra


def problem(
    status: int,
    code: str,
    detail: str,
    title: str | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The problem-details body for an error; the standard members win over extra ones."""
    return {
        **(extra or {}),
        "type": PROBLEM_TYPE_PREFIX + code,
        "title": title or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }


class RequestTooLarge(ApiError):
    status_code = 413
    default_code = "request_too_large"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's ``EXCEPTION_HANDLER``: DRF's own handling, with the body rendered as a problem."""
    if isinstance(exc, RequestDataTooBig):  # Django's, raised as DRF reads the body
        exc = RequestTooLarge(f"A request body is at most {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes.")
    if isinstance(exc, (OperationalError, InterfaceError)):
        logger.error("The database failed a request: %s", exc, exc_info=exc)
        body = problem(503, "service_unavailable", _UNAVAILABLE)
        return Response(body, status=503, headers=_RETRY_LATER, content_type=PROBLEM_CONTENT_TYPE)
    if isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
        exc = _counted_against_the_address(exc, context)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # Not an API error: Django logs it and answers 500 (see server_error).
    if isinstance(exc, exceptions.APIException):
        api_exc = exc
    else:  # Django's Http404 and PermissionDenied, which DRF turned into a response.
        api_exc = exceptions.NotFound() if response.status_code == 404 else exceptions.PermissionDenied()
    response.data = _problem_from_api_exception(api_exc, response.status_code)
    response.content_type = PROBLEM_CONTENT_TYPE
    return response


def _counted_against_the_address(exc: exceptions.APIException, context: dict[str, Any]) -> exceptions.APIException:
    """A request that fails to authenticate never reaches DRF's throttles (they run after
    authentication): count it against its client address's limit (``anon``), as any request without
    a player; past the limit it is a 429. A made-up token costs a lookup, so guessing is limited."""
    from .throttling import AnonRateThrottle  # imported here: the throttles import DRF's settings

    request = context.get("request")
    throttle = AnonRateThrottle()
    if request is not None and not throttle.allow_request(request, context.get("view")):
        return exceptions.Throttled(throttle.wait())
    return exc


def problem_of(exc: exceptions.APIException) -> dict[str, Any]:
    """The problem-details body of an API error, as the HTTP API would answer it (a WebSocket's
    error frame carries the same)."""
    return _problem_from_api_exception(exc, exc.status_code)


def _problem_from_api_exception(exc: exceptions.APIException, status: int) -> dict[str, Any]:
    extra: dict[str, Any] = dict(getattr(exc, "extra", {}))
    if isinstance(exc, exceptions.ValidationError):
        errors = exc.detail
        if not isinstance(errors, dict):
            errors = {api_settings.NON_FIELD_ERRORS_KEY: errors}
        extra["errors"] = errors
        code, detail = "invalid", str(exceptions.ValidationError.default_detail)
    else:
        code = getattr(exc.detail, "code", None) or exc.default_code
        detail = str(exc.detail)
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        extra["retry_after"] = math.ceil(exc.wait)
    return problem(status, code, detail, getattr(exc, "title", None), extra)


def problem_response(status: int, code: str, detail: str) -> JsonResponse:
    return JsonResponse(
        problem(status, code, detail),
        status=status,
        content_type=PROBLEM_CONTENT_TYPE,
        json_dumps_params={"separators": (",", ":"), "ensure_ascii": False},  # as DRF's JSONRenderer writes
    )


# Django's error views (handler400/403/404/500 in tute_api.urls): JSON for paths outside DRF views.


def bad_request(request: HttpRequest, exception: Exception) -> JsonResponse:
    return problem_response(400, "bad_request", "The request could not be understood.")


def permission_denied(request: HttpRequest, exception: Exception) -> JsonResponse:
    return problem_response(403, "permission_denied", str(exceptions.PermissionDenied.default_detail))


def page_not_found(request: HttpRequest, exception: Exception) -> JsonResponse:
    return problem_response(404, "not_found", str(exceptions.NotFound.default_detail))


@csrf_exempt  # an API client sends no CSRF token: its POST to a wrong path is a 404, not Django's HTML 403
def api_route_not_found(request: HttpRequest) -> JsonResponse:
    """The view of every unknown path under ``/api/``: a problem, naming the route when the path is one
    but for its trailing slash. Collections end in a slash (``/api/v1/players/``), their members and
    operations do not (``/api/v1/matches/{id}/actions``): ``POST /api/v1/players`` → ``/api/v1/players/``,
    ``GET /api/v1/matches/{id}/`` → ``/api/v1/matches/{id}``."""
    detail = str(exceptions.NotFound.default_detail)
    path = request.path
    other = path[:-1] if path.endswith("/") else path + "/"
    if other and _resolves(other):
        slash = "without" if path.endswith("/") else "with"
        detail = f"No route {path}; the route is {other} ({slash} the trailing slash)."
    return problem_response(404, "not_found", detail)


def _resolves(path: str) -> bool:
    from django.urls import Resolver404, resolve  # the URLconf imports this module

    try:
        return resolve(path).func is not api_route_not_found
    except Resolver404:
        return False


_UNAVAILABLE = (
    "The service could not complete the request with its database just now; retry after a moment (with the "
    "same Idempotency-Key, a retried action cannot be applied twice)."
)
_RETRY_LATER = {"Retry-After": str(UNAVAILABLE_RETRY_SECONDS)}


def server_error(request: HttpRequest) -> JsonResponse:
    """Django's 500 view (it logged the exception): a 503 to retry when the database failed (in a
    middleware, outside DRF's handler), else a 500."""
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        response = problem_response(503, "service_unavailable", _UNAVAILABLE)
        response["Retry-After"] = _RETRY_LATER["Retry-After"]
        return response
    return problem_response(500, "server_error", "A server error occurred.")


class UrlTooLongMiddleware:
    """A request line longer than ``MAX_URL_LENGTH`` characters (path and query) answers 414
    ``uri_too_long``, a problem. The server's own parser refuses longer request heads before Django sees
    them (uvicorn's h11: 16 KB, answered with a plain-text 400), so every URL up to there that the service
    refuses gets this problem instead."""

    sync_capable = async_capable = True  # under ASGI, a sync middleware would hold a thread while a view waits

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        refused = self._refused(request)
        if iscoroutinefunction(self):
            return self._acall(request, refused)
        return refused or self.get_response(request)

    async def _acall(self, request: HttpRequest, refused: Any) -> Any:
        return refused or await self.get_response(request)

    def _refused(self, request: HttpRequest) -> Any:
        if len(request.get_full_path()) > settings.MAX_URL_LENGTH:
            return problem_response(
                414, "uri_too_long", f"A URL (path and query) is at most {settings.MAX_URL_LENGTH:,} characters."
            )
        return None
