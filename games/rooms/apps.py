from django.apps import AppConfig


class RoomsConfig(AppConfig):
    """The lobby: rooms of friends that start matches. The app label stays ``rooms``."""

    name = "games.rooms"
    label = "rooms"
    default_auto_field = "django.db.models.BigAutoField"
