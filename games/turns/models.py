"""Models of the turn takers: a match's timings and the presence of its human seats (M2, M3).

A :class:`Table` holds a match's service options (``presence_timeout``, ``reconnect_grace``,
``turn_seconds``: not engine options) and the room it was started from, if any. A
:class:`Presence` row per human seat of a match with more than one human says when its player
was last heard from and since when the seat is disconnected (M2).

Both tables were created by the rooms app and keep their names (``rooms_table``,
``rooms_presence``); ``turns.0001`` moved them here without touching the database.
"""

from __future__ import annotations

from django.db import models

from games.matches.models import Match
from players.models import Player


class Table(models.Model):
    """A match's service options, and the room it was started from."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="table")
    room = models.ForeignKey("rooms.Room", on_delete=models.SET_NULL, null=True, blank=True, related_name="tables")
    presence_timeout = models.PositiveIntegerField()
    reconnect_grace = models.PositiveIntegerField()
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        db_table = "rooms_table"

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
        db_table = "rooms_presence"
        ordering = ["seat"]
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="presence_match_seat_unique")]
        indexes = [models.Index(fields=["match", "player"], name="presence_match_player")]

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.match_id}"

    @property
    def connected(self) -> bool:
        return self.disconnected_at is None
