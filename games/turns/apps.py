from django.apps import AppConfig


class TurnsConfig(AppConfig):
    """The turn takers: built-in bots, registered HTTP bots, the turn clock and presence."""

    name = "games.turns"
    label = "turns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks, tasks  # noqa: F401  (registers the system checks; the tasks, queued by name)
