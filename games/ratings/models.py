"""A player's rating in one variant, and what they played in it (docs/ratings.md)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from players.models import Player

#: Only ratings with a deviation below this are ranked on the leaderboards (Lichess's bound for its own).
LEADERBOARD_MAX_DEVIATION = 75.0


class Rating(models.Model):
    """A player's (or a registered bot's) Glicko-2 rating in one variant, and their finished matches in it.

    ``games`` counts the rated matches; ``played`` and ``won`` every finished match of the variant."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    variant = models.CharField(max_length=32)
    rating = models.FloatField(default=1500.0)
    deviation = models.FloatField(default=350.0)
    volatility = models.FloatField(default=0.06)
    games = models.PositiveIntegerField(default=0, help_text="Rated matches.")
    played = models.PositiveIntegerField(default=0, help_text="Finished matches, rated or not.")
    won = models.PositiveIntegerField(default=0, help_text="Finished matches won, rated or not.")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "variant"], name="rating_player_variant_unique")]
        indexes = [
            # The leaderboards' index: only the ratings sure enough to be ranked, best first.
            models.Index(
                "variant",
                models.F("rating").desc(),
                "player",
                name="rating_leaderboard",
                condition=Q(deviation__lt=LEADERBOARD_MAX_DEVIATION),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.variant} {self.rating:.0f} ± {self.deviation:.0f}"
