from django.urls import path

from . import apis

urlpatterns = [
    path("players/", apis.PlayerCreateApi.as_view(), name="players-create"),
    path("players/me", apis.PlayerMeApi.as_view(), name="players-me"),
    path("players/me/token", apis.PlayerTokenRotateApi.as_view(), name="players-me-token"),
    path("bots/", apis.BotsApi.as_view(), name="bots"),
    path("bots/<uuid:bot_id>", apis.BotApi.as_view(), name="bot"),
    path("bots/<uuid:bot_id>/token", apis.BotTokenRotateApi.as_view(), name="bots-token"),
    path("bots/<uuid:bot_id>/stats", apis.BotStatsApi.as_view(), name="bots-stats"),
]
