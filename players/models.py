"""Players and their API tokens.

A :class:`Player` is whoever sits at a table through the API; it is not a Django admin user. A
player authenticates with a bearer token, of which only the SHA-256 digest is stored
(:class:`Token`): the token itself is shown once, when it is issued.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models.functions import Lower


class Player(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    username = models.CharField(max_length=30)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="player_username_unique_ci"),
        ]

    def __str__(self) -> str:
        return self.username

    # What DRF's permissions and throttles ask of ``request.user``.
    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def is_anonymous(self) -> bool:
        return False


class Token(models.Model):
    """A bearer token, stored as the hex SHA-256 of the token; a player holds one at a time."""

    digest = models.CharField(max_length=64, unique=True)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="tokens")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.player} {self.digest[:8]}…"
