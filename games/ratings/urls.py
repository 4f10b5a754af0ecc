from django.urls import path

from . import apis

urlpatterns = [
    path("leaderboards/<str:variant>", apis.LeaderboardApi.as_view(), name="leaderboards"),
]
