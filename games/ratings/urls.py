from django.urls import path

from . import apis

urlpatterns = [
    path("players/<uuid:player_id>", apis.PlayerProfileApi.as_view(), name="players-profile"),
    path("leaderboards/<str:variant>", apis.LeaderboardApi.as_view(), name="leaderboards"),
]
