from django.apps import AppConfig


class MatchesConfig(AppConfig):
    """The matches: their rows, the event log, and the services that create, join, play and cancel them.

    The app label stays ``games`` (its tables are ``games_*``, its migrations ``games.000N``)."""

    name = "games.matches"
    label = "games"
