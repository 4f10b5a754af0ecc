"""The admin's login, throttled: after ``ADMIN_LOGIN_FAILURES`` wrong passwords within
``ADMIN_LOGIN_WINDOW_SECONDS``, from one client address or for one username, the login answers 429
``too_many_login_failures`` (a problem, with ``Retry-After``) until the window is over, right password
or not. A successful login clears its username's count. The counts live in Django's cache (shared by
every process with ``CACHE_URL=redis://…``); while the cache is away the login is not throttled and the
log says so, as the API's rate limits (tute_api/throttling.py).
"""

from __future__ import annotations

import hashlib
import logging
import math
import time

from django.conf import settings
from django.contrib import admin
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect

from .errors import problem_response

logger = logging.getLogger(__name__)


def _keys(request: HttpRequest) -> list[str]:
    window = settings.ADMIN_LOGIN_WINDOW_SECONDS
    start = int(time.time() // window)
    address = request.META.get("REMOTE_ADDR", "")
    username = request.POST.get("username", "").strip().lower()
    keys = [f"admin-login:ip:{address}:{start}"]
    if username:
        keys.append(f"admin-login:user:{hashlib.sha256(username.encode()).hexdigest()[:32]}:{start}")
    return keys


def _retry_after() -> int:
    window = settings.ADMIN_LOGIN_WINDOW_SECONDS
    return max(1, math.ceil(window - time.time() % window))


@csrf_protect
@never_cache
def login(request: HttpRequest, extra_context: dict[str, object] | None = None) -> HttpResponse:
    """The admin site's login view, counting failed POSTs."""
    if request.method != "POST":
        return admin.site.login(request, extra_context)
    keys = _keys(request)
    try:
        found = cache.get_many(keys)
    except Exception as exc:  # the cache is away: log in unthrottled rather than not at all
        logger.warning("Admin login not throttled: the cache is unreachable (%s)", exc)
        return admin.site.login(request, extra_context)
    if any(int(found.get(key, 0)) >= settings.ADMIN_LOGIN_FAILURES for key in keys):
        logger.warning("Admin login refused: too many failures (%s)", request.META.get("REMOTE_ADDR", ""))
        response = problem_response(429, "too_many_login_failures", "Too many failed logins; try again later.")
        response["Retry-After"] = str(_retry_after())
        return response
    response = admin.site.login(request, extra_context)
    try:
        if response.status_code == 302:  # logged in
            cache.delete_many(keys[1:])
        else:
            for key in keys:
                cache.add(key, 0, settings.ADMIN_LOGIN_WINDOW_SECONDS + 1)
                cache.incr(key)
    except Exception as exc:
        logger.warning("Admin login failure not counted: the cache is unreachable (%s)", exc)
    return response
