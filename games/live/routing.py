"""The live updates' WebSocket routes (``tute_api.asgi`` serves them): a match's socket (:mod:`.sockets`)."""

from django.urls import path

from .sockets import MatchSocket

websocket_urlpatterns = [
    path("api/v1/matches/<uuid:match_id>/ws", MatchSocket.as_asgi(), name="match-socket"),
]
