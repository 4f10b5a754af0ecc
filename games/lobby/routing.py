"""Play-now's WebSocket route (``tute_api.asgi`` serves it): the player's own channel (:mod:`.sockets`)."""

from django.urls import path

from .sockets import NoticeSocket

websocket_urlpatterns = [
    path("api/v1/me/ws", NoticeSocket.as_asgi(), name="me-socket"),
]
