from django.urls import path

from . import apis

urlpatterns = [
    path("players/<uuid:player_id>", apis.PlayerProfileApi.as_view(), name="players-profile"),
]
