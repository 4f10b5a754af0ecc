from django.urls import path

from . import apis

urlpatterns = [
    path("ladder/runs/", apis.RunsApi.as_view(), name="ladder-runs"),
    path("ladder/runs/current", apis.RunCurrentApi.as_view(), name="ladder-run-current"),
    path("ladder/leaderboard", apis.LeaderboardApi.as_view(), name="ladder-leaderboard"),
]
