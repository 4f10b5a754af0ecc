"""Models of the lobby: rooms of friends and their members.

A :class:`Room` gathers players by invite code; its host picks the variant and starts matches
from it. A match's timings and presence are the turn takers' (:mod:`games.turns.models`).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from games.matches.models import Match
from players.models import Player
from tute_api.model_fields import JSONField


class Room(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    code = models.CharField(max_length=16, unique=True, help_text="The invite code friends join with.")
    host = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="hosted_rooms")
    variant = models.CharField(max_length=32, default="clasico")
    options = JSONField(default=dict, blank=True, help_text="Engine options of the next match.")
    bot = models.CharField(max_length=32, default="level-2", help_text="The bot that fills empty seats.")
    presence_timeout = models.PositiveIntegerField(null=True, blank=True)
    reconnect_grace = models.PositiveIntegerField(null=True, blank=True)
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    public = models.BooleanField(default=False, help_text="Its matches may be watched by any player (M5).")
    open = models.BooleanField(
        default=False,
        help_text="Anyone may join without the invite code (POST /rooms/{id}/join); listed in GET /tables/open "
        "while in its lobby.",
    )
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
