from django.apps import AppConfig
from django.db.models.signals import post_delete


class PlayersConfig(AppConfig):
    name = "players"

    def ready(self) -> None:
        from .models import Token
        from .token_cache import token_deleted

        # Every deleted token is revoked in every process's cache (players/token_cache.py).
        post_delete.connect(token_deleted, sender=Token, dispatch_uid="players.token_deleted")
