"""WhiteNoise under ASGI: its middleware is sync only, and a sync middleware would hold a thread for
the whole of every request under it (a long poll's wait too). This one looks the static file up as
WhiteNoise does (a lookup in memory) and passes every other request on as a coroutine."""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings as django_settings
from django.http import HttpRequest
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    sync_capable = async_capable = True

    def __init__(self, get_response: Any = None, settings: Any = django_settings) -> None:
        super().__init__(get_response, settings)
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request: HttpRequest) -> Any:
        found = self.find_file(request.path_info) if self.autorefresh else self.files.get(request.path_info)
        if found is not None:  # a lookup in memory, as WhiteNoise's own __call__
            return self.serve(found, request)
        return await self.get_response(request)
