"""The project's URLs: probes, the OpenAPI schema and docs, the API under /api/v1/, the admin."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from tute_api import admin_login, errors, health

# The versioned API: each package's routes.
api_v1_urlpatterns: list[object] = [
    path("", include("players.urls")),
    path("", include("games.matches.urls")),
    path("", include("games.live.urls")),
    path("", include("games.turns.urls")),
    path("", include("games.rooms.urls")),
    path("", include("games.ladder.urls")),
    path("", include("games.ratings.urls")),
    path("", include("games.profiles.urls")),
    path("", include("games.lobby.urls")),
]

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/v1/", include((api_v1_urlpatterns, "api_v1"))),
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
