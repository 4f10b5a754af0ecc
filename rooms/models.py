"""Models of the rooms app: rooms of friends, and the table of each match (timings, presence).

A :class:`Room` gathers players by invite code; its host picks the variant and starts matches
from it. A :class:`Table` holds a match's service options (``presence_timeout``,
``reconnect_grace``, ``turn_seconds``: not engine options) and its room, if any. A
:class:`Presence` row per human seat of a match with more than one human says when its player
was last heard from and since when the seat is disconnected (M2).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from games.models import Match
from players.models import Player


class Room(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    code = models.CharField(max_length=16, unique=True, help_text="The invite code friends join with.")
    host = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="hosted_rooms")
    variant = models.CharField(max_length=32, default="clasico")
    options = models.JSONField(default=dict, blank=True, help_text="Engine options of the next match.")
    bot = models.CharField(max_length=32, default="level-2", help_text="The bot that fills empty seats.")
    presence_timeout = models.PositiveIntegerField(null=True, blank=True)
    reconnect_grace = models.PositiveIntegerField(null=True, blank=True)
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    match = models.ForeignKey(
        Match, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", help_text="The latest match."
    )
    closed = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"room {self.code}"


class RoomMember(models.Model):
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="members")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="room_memberships")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [models.UniqueConstraint(fields=["room", "player"], name="room_member_unique")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.room_id}"


class Table(models.Model):
    """A match's service options, and the room it was started from."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="table")
    room = models.ForeignKey(Room, on_delete=models.SET_NULL, null=True, blank=True, related_name="tables")
    presence_timeout = models.PositiveIntegerField()
    reconnect_grace = models.PositiveIntegerField()
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"table of {self.match_id}"


class Presence(models.Model):
    """A human seat of a match with more than one human: when its player was last heard from."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="presences")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="presences")
    last_seen = models.DateTimeField()
    disconnected_at = models.DateTimeField(null=True, blank=True)
    disconnected_seq = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["seat"]
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="presence_match_seat_unique")]
        indexes = [models.Index(fields=["match", "player"], name="presence_match_player")]

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.match_id}"
