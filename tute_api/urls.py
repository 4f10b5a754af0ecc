"""The project's URLs: probes, the OpenAPI schema and docs, the API under /api/v1/, the admin."""

from importlib import import_module

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from tute_api import admin_login, errors, health

#: The packages whose ``urls`` make the versioned API, the waiting and most frequent requests' first.
API_APPS = (
    "games.live",  # a match, its long polls and streams; /me/turns
    "games.matches",  # the actions
    "games.lobby",  # a player's own channel: /me/notices and its stream
    "games.turns",
    "players",
    "games.rooms",
    "games.ladder",
    "games.ratings",
    "games.profiles",
)

#: The API's routes as one list (no two of them match the same path, so their order is free). Django
#: tries a path's patterns in order and keeps a list for each one passed in the request's
#: ``resolver_match.tried`` as long as the request lives, and an app's ``include`` that does not match
#: raises and catches an exception: with an ``include`` per package, a match's long poll held 76 such
#: lists through its wait, and resolving its path took twice as long (docs/performance.md).
api_v1_urlpatterns: list[object] = [pattern for app in API_APPS for pattern in import_module(f"{app}.urls").urlpatterns]

urlpatterns = [
    path("api/v1/", include((api_v1_urlpatterns, "api_v1"))),  # first, as the most frequent
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    # Any other path under /api/ is a JSON 404, also with DEBUG on, and instead of the slash-appending
    # redirect of CommonMiddleware (which cannot redirect a POST: a 500 with DEBUG on).
    re_path(r"^api/", errors.api_route_not_found),
    path("admin/login/", admin_login.login, name="admin-login"),  # throttled (tute_api/admin_login.py)
    path("admin/", admin.site.urls),
]

handler400 = "tute_api.errors.bad_request"
handler403 = "tute_api.errors.permission_denied"
handler404 = "tute_api.errors.page_not_found"
handler500 = "tute_api.errors.server_error"
