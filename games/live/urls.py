from django.urls import path

from . import apis

urlpatterns = [
    path("matches/live", apis.LiveMatchesApi.as_view(), name="matches-live"),
    path("matches/<uuid:match_id>", apis.MatchDetailApi.as_async_view(), name="match"),
    path("matches/<uuid:match_id>/events", apis.MatchEventsApi.as_async_view(), name="match-events"),
    path("matches/<uuid:match_id>/stream", apis.MatchStreamApi.as_async_view(), name="match-stream"),
    path("me/turns", apis.MyTurnsApi.as_async_view(), name="me-turns"),
]
