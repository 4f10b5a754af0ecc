from django.urls import path

from . import apis

urlpatterns = [
    path("variants/", apis.VariantListApi.as_view(), name="variants"),
    path("rules", apis.RulesApi.as_view(), name="rules"),
    path("matches/", apis.MatchesApi.as_view(), name="matches"),
    path("matches/<uuid:match_id>/join", apis.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<uuid:match_id>/actions", apis.MatchActionApi.as_view(), name="match-actions"),
    path("matches/<uuid:match_id>/record", apis.MatchRecordApi.as_view(), name="match-record"),
    path("matches/<uuid:match_id>/replay", apis.MatchReplayApi.as_view(), name="match-replay"),
    path("matches/<uuid:match_id>/cancel", apis.MatchCancelApi.as_view(), name="match-cancel"),
]
