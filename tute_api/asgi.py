"""ASGI entry point: HTTP through Django, WebSockets through Django Channels (games/live/sockets.py)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tute_api.settings")

django_asgi_app = get_asgi_application()  # first: it sets Django up before the routes import models

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.live.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter({"http": django_asgi_app, "websocket": URLRouter(websocket_urlpatterns)})
