from django.apps import AppConfig


class LobbyConfig(AppConfig):
    """Play now: the matchmaking queue, the open tables, and each player's own notices."""

    name = "games.lobby"
    label = "lobby"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import tasks  # noqa: F401  (the tasks, queued by name)
