"""The ratings' bodies: output serializers that render the selectors' objects (docs/ratings.md).

(Comments, not docstrings, on the output serializers: drf-spectacular puts a docstring in the schema.)
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from .models import LEADERBOARD_MAX_DEVIATION, Rating
from .selectors import Leaderboard

PLAYER_ID = "5b0e3c1e-8a47-4d51-9a0c-2f1f6f9a3b10"


# Renders a models.Rating in a profile.
class VariantRatingSerializer(serializers.Serializer):
    variant = serializers.CharField()
    rating = serializers.FloatField(help_text="Glicko-2 rating; 1500 before any rated match.")
    deviation = serializers.FloatField(help_text="The rating deviation (RD): 350 before any rated match.")
    games = serializers.IntegerField(help_text="Rated matches in the variant.")
    played = serializers.IntegerField(help_text="Finished matches in the variant, rated or not.")
    won = serializers.IntegerField(help_text="Of those, the ones the player's side won.")
    ranked = serializers.SerializerMethodField(
        help_text="Whether the deviation is low enough for the leaderboard (docs/ratings.md)."
    )

    def get_ranked(self, rating: Rating) -> bool:
        return rating.deviation < LEADERBOARD_MAX_DEVIATION


# Renders a selectors.Profile.
class ProfileSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="player.id")
    username = serializers.CharField(source="player.username")
    is_bot = serializers.BooleanField(help_text="A registered HTTP bot (docs/http-bots.md).")
    ratings = VariantRatingSerializer(many=True, help_text="One per variant the player has finished a match of.")
    matches_played = serializers.IntegerField(help_text="Finished matches, every variant, rated or not.")
    matches_won = serializers.IntegerField()
    best_ladder_score = serializers.IntegerField(
        allow_null=True, help_text="The best score of their ladder runs (L3); null until they win a ladder match."
    )


class RankedPlayerSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    username = serializers.CharField()


# Renders a selectors.Ranked.
class RankedSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 for the best rating.")
    player = RankedPlayerSerializer(source="rating.player")
    rating = serializers.FloatField(source="rating.rating")
    deviation = serializers.FloatField(source="rating.deviation")
    games = serializers.IntegerField(source="rating.games", help_text="Rated matches in the variant.")


# Renders a selectors.Leaderboard.
class LeaderboardSerializer(serializers.Serializer):
    variant = serializers.CharField()
    max_deviation = serializers.FloatField(help_text="Only ratings with a deviation below this are ranked.")
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    next = serializers.SerializerMethodField(help_text="The next page's number, or null on the last.")
    results = RankedSerializer(many=True)

    def get_next(self, board: Leaderboard) -> int | None:
        return board.page + 1 if board.has_next else None


PROFILE = OpenApiExample(
    "A profile",
    response_only=True,
    status_codes=["200"],
    value={
        "id": PLAYER_ID,
        "username": "ana",
        "is_bot": False,
        "ratings": [
            {
                "variant": "dos",
                "rating": 1612.4,
                "deviation": 68.2,
                "games": 41,
                "played": 44,
                "won": 27,
                "ranked": True,
            }
        ],
        "matches_played": 44,
        "matches_won": 27,
        "best_ladder_score": None,
    },
)

LEADERBOARD = OpenApiExample(
    "A leaderboard's first page",
    response_only=True,
    status_codes=["200"],
    value={
        "variant": "dos",
        "max_deviation": 75.0,
        "page": 1,
        "page_size": 50,
        "next": None,
        "results": [
            {
                "rank": 1,
                "player": {"id": PLAYER_ID, "username": "ana"},
                "rating": 1612.4,
                "deviation": 68.2,
                "games": 41,
            }
        ],
    },
)
