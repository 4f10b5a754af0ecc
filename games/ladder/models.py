"""Models of the streak ladder (RULES.md L): a player's runs, the matches of each run, and each
player's best score (one row per player: the leaderboard reads its index, a profile reads its row).

The matches themselves are ordinary matches (:mod:`games.matches.models`); a :class:`LadderMatch`
only says which run a match belongs to and, once it is over, what it did to the run.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.matches.models import Match
from players.models import Player


class RunState(models.TextChoices):
    ACTIVE = "active"  # its current match is being played
    OVER = "over"


class RunEnd(models.TextChoices):
    LOST = "lost"
    TIED = "tied"
    ABANDONED = "abandoned"  # the player started a new run (L2)
    CANCELLED = "cancelled"  # its match was cancelled


class MatchResult(models.TextChoices):
    WON = "won"
    LOST = "lost"
    TIED = "tied"
    CANCELLED = "cancelled"


class LadderRun(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ladder_runs")
    state = models.CharField(max_length=16, choices=RunState.choices, default=RunState.ACTIVE)
    ended_by = models.CharField(max_length=16, choices=RunEnd.choices, blank=True, help_text="Why the run is over.")
    streak = models.PositiveIntegerField(default=0, help_text="Matches won (L2).")
    margin = models.PositiveIntegerField(default=0, help_text="The won matches' margins, at most 9,999 (L3).")
    score = models.PositiveIntegerField(default=0, help_text="streak × 10,000 + margin (L3).")
    level = models.CharField(max_length=32, help_text="The level of the current (or last) match's bot.")
    match = models.ForeignKey(
        Match, on_delete=models.PROTECT, related_name="+", help_text="The run's current (or last) match."
    )
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player"], condition=Q(state="active"), name="ladder_one_active_run")
        ]
        indexes = [
            models.Index(fields=["player", "-started_at"], name="ladder_run_player_started"),
            models.Index(fields=["state", "match"], name="ladder_run_state_match"),
        ]

    def __str__(self) -> str:
        return f"ladder run {self.id} of {self.player_id}"


class LadderMatch(models.Model):
    run = models.ForeignKey(LadderRun, on_delete=models.CASCADE, related_name="matches")
    number = models.PositiveSmallIntegerField(help_text="1 for the run's first match.")
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="ladder_match")
    level = models.CharField(max_length=32, help_text="The bot's level.")
    dealer = models.PositiveSmallIntegerField(help_text="The seat that dealt (L1): 1 the bot's, 0 the player's.")
    result = models.CharField(max_length=16, choices=MatchResult.choices, blank=True, help_text="Once it is over.")
    margin = models.IntegerField(null=True, blank=True, help_text="The player's total minus the bot's (L3).")

    class Meta:
        ordering = ["run", "number"]
        constraints = [models.UniqueConstraint(fields=["run", "number"], name="ladder_match_number")]

    def __str__(self) -> str:
        return f"match {self.number} of ladder run {self.run_id}"

    @property
    def result_or_none(self) -> str | None:
        return self.result or None


class LadderBest(models.Model):
    """A player's best ladder score (L3), and the run and moment that reached it."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, primary_key=True, related_name="ladder_best")
    score = models.PositiveIntegerField()
    streak = models.PositiveIntegerField()
    margin = models.PositiveIntegerField()
    run = models.ForeignKey(LadderRun, on_delete=models.CASCADE, related_name="+")
    achieved_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["-score", "achieved_at", "player"], name="ladder_best_rank")]

    def __str__(self) -> str:
        return f"best ladder score {self.score} of {self.player_id}"
