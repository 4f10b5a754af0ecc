from django.apps import AppConfig


class LadderConfig(AppConfig):
    """The streak ladder (RULES.md L): runs, their matches and the players' best scores."""

    name = "games.ladder"
    label = "ladder"
    default_auto_field = "django.db.models.BigAutoField"
