"""Liveness and readiness probes: ``GET /healthz`` and ``GET /readyz``.

``/healthz`` says the process answers; it touches nothing else. ``/readyz`` says the service can
do its work: the database answers a query, the cache (which counts the rate limits) keeps a value,
and, when they are set, the broker accepts a connection and the live updates' Redis answers. It
answers 503 with the failing checks otherwise. The probe is public: it says which check failed, and the log says why
(an error names hosts, ports and users).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET
from kombu import Connection

logger = logging.getLogger(__name__)

OK = "ok"
NOT_CONFIGURED = "not configured"
PASSING = (OK, NOT_CONFIGURED)
UNREACHABLE = "unreachable"
_CACHE_PROBE = "tute:readyz"


@csrf_exempt  # a probe that POSTs gets 405, not a CSRF page
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": OK})


@csrf_exempt
@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    found = {
        "database": check_database(),
        "cache": check_cache(),
        "broker": check_broker(),
        "live_updates": check_live_updates(),
    }
    failed = [name for name, result in found.items() if result not in PASSING]
    checks = {name: UNREACHABLE if name in failed else result for name, result in found.items()}
    if failed:
        logger.warning("Not ready: %s", "; ".join(f"{name} {found[name]}" for name in failed))
        reason = "; ".join(f"{name} {UNREACHABLE}" for name in failed)
        return JsonResponse({"status": "unavailable", "checks": checks, "reason": reason}, status=503)
    return JsonResponse({"status": OK, "checks": checks})


def check_database() -> str:
    """``"ok"`` when the default database answers ``SELECT 1``, else why not."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return _describe(exc)
    return OK


def check_cache() -> str:
    """``"ok"`` when the cache keeps a value a moment (the rate limits count in it), else why not."""
    try:
        cache.set(_CACHE_PROBE, OK, timeout=5)
        if cache.get(_CACHE_PROBE) != OK:
            return "unreachable (the value set was not read back)"
    except Exception as exc:
        return _describe(exc)
    return OK


def check_live_updates() -> str:
    """``"ok"`` when the Redis of the live updates (long polls, streams) answers a PING, ``"not
    configured"`` when they run in process."""
    url = settings.LIVE_UPDATES_URL
    if not url:
        return NOT_CONFIGURED
    import redis  # only with a Redis configured

    timeout = settings.HEALTH_CHECK_TIMEOUT
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout) as client:
            client.ping()
    except Exception as exc:
        return _describe(exc)
    return OK


def check_broker() -> str:
    """``"ok"`` when the broker accepts a connection, ``"not configured"`` without one."""
    url = settings.CELERY_BROKER_URL
    if not url:
        return NOT_CONFIGURED  # Tasks run in process.
    timeout = settings.HEALTH_CHECK_TIMEOUT
    transport_options = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    try:
        with Connection(url, connect_timeout=timeout, transport_options=transport_options) as conn:
            conn.ensure_connection(max_retries=0)
    except Exception as exc:
        return _describe(exc)
    return OK


def _describe(exc: Exception) -> str:
    return f"unreachable ({type(exc).__name__}: {exc})"[:300]
