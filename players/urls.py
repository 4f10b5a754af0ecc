from django.urls import path

from . import apis

urlpatterns = [
    path("players/", apis.PlayerCreateApi.as_view(), name="players-create"),
    path("players/me", apis.PlayerMeApi.as_view(), name="players-me"),
    path("players/me/token", apis.PlayerTokenRotateApi.as_view(), name="players-me-token"),
]
