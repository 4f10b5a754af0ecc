from django.urls import path

from . import apis

urlpatterns = [
    path("matches/<uuid:match_id>/heartbeat", apis.HeartbeatApi.as_view(), name="match-heartbeat"),
]
