"""Models of play-now: the matchmaking queue, the open tables, and the notices of a player's channel.

The queue lives in the database, so it survives a restart of any process: a :class:`QueueEntry` per
waiting player (one at a time: the player is unique), locked by the pairing service while it seats
them, and stamped with the match once seated (so no entry is seated twice). A :class:`Notice` is one
message of a player's own live channel; its id is the channel's cursor (``?after=``).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from games.matches.models import Match
from players.models import Player
from tute_api.model_fields import JSONField


class QueueEntry(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="queue_entry")
    variant = models.CharField(max_length=32)
    options = JSONField(help_text="Every option of the variant, defaults filled in.")
    pool = models.CharField(max_length=255, help_text="The pool: variant, options and flags, as one key.")
    rated = models.BooleanField(default=True)
    humans_only = models.BooleanField(default=False, help_text="No registered HTTP bot at the table.")
    is_bot = models.BooleanField(default=False, help_text="The player is a registered HTTP bot.")
    rating = models.FloatField(help_text="The player's rating in the variant when they queued.")
    entered_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(default=timezone.now, help_text="The player's last sign of life.")
    match = models.ForeignKey(Match, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    seated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "queue entries"
        indexes = [
            models.Index(fields=["pool", "entered_at"], condition=models.Q(match__isnull=True), name="queue_waiting"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.pool}"


class OpenTable(models.Model):
    """A match created ``open``: listed until its seats are taken; anyone may sit without a code."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="open_table")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"open table {self.match_id}"


class NoticeKind(models.TextChoices):
    MATCH_READY = "match_ready"  # the queue seated you
    YOUR_TURN = "your_turn"  # it is your turn in a match
    SEAT_TAKEN = "seat_taken"  # someone sat at your open table
    QUEUE_LEFT = "queue_left"  # the service took you out of the queue


class Notice(models.Model):
    """A message of a player's own channel: ids and counts only, never a card."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=16, choices=NoticeKind.choices)
    match_id = models.UUIDField(null=True, blank=True)
    data = JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["player", "id"], name="notice_player_id")]

    def __str__(self) -> str:
        return f"{self.kind} for {self.player_id}"
