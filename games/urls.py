from django.urls import path

from . import apis, turn_apis

urlpatterns = [
    path("variants/", apis.VariantListApi.as_view(), name="variants"),
    path("matches/", apis.MatchesApi.as_view(), name="matches"),
    path("matches/<uuid:match_id>", apis.MatchDetailApi.as_view(), name="match"),
    path("matches/<uuid:match_id>/join", apis.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<uuid:match_id>/actions", apis.MatchActionApi.as_view(), name="match-actions"),
    path("matches/<uuid:match_id>/events", apis.MatchEventsApi.as_view(), name="match-events"),
    path("matches/<uuid:match_id>/record", apis.MatchRecordApi.as_view(), name="match-record"),
    path("matches/<uuid:match_id>/cancel", apis.MatchCancelApi.as_view(), name="match-cancel"),
    path("me/turns", turn_apis.MyTurnsApi.as_view(), name="me-turns"),
]
