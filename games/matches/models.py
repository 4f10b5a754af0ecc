"""Models of the games app: they store matches; the rules live in :mod:`games.engine`.

A :class:`Match` keeps a snapshot of the engine's state (``games.engine.to_json``) and an
append-only log of :class:`Event` rows, numbered ``seq`` 1, 2, … with no gaps, from which the
snapshot can be rebuilt (``games.engine.replay``). :class:`Hand` rows summarise each deal and its
result; :class:`Seat` rows say who sits where.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from functools import cache
from typing import Any, NoReturn

from django.db import DatabaseError, connection, models
from django.utils import timezone

from players.models import Player
from tute_api.model_fields import JSONField
from tute_api.rows import Held, fetch_one, insert_statement, update_statement


class MatchStatus(models.TextChoices):
    WAITING = "waiting"  # some seat is open; the cards are not dealt yet
    ACTIVE = "active"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class MatchManager(models.Manager["Match"]):
    def fetch(self, match_id: object, *, lock: bool = False) -> Match | None:
        """The match by id, locked for update with ``lock`` (inside a transaction), or None.

        Plain SQL (:func:`tute_api.rows.fetch_one`): the hot path of every request reads one match
        row, and building that query with the ORM costs more CPU than running it.
        """
        table, pk = self.model._meta.db_table, self.model._meta.pk
        assert pk is not None
        lock_clause = " FOR UPDATE" if lock and connection.features.has_select_for_update else ""
        rest = f'FROM "{table}" m WHERE m."{pk.column}" = %s{lock_clause}'
        return fetch_one(self.model, "m", rest, [pk.get_db_prep_value(match_id, connection)])

    def save_with_events(self, match: Match, rows: Sequence[models.Model], fields: list[str]) -> None:
        """Insert ``rows`` (the events appended to the log, and what is written beside them: a player's
        message, a hand dealt; rows of one model go together, in order) and save the match's ``fields``: on
        PostgreSQL in one statement, whose SQL is built once per shape (:mod:`tute_api.rows`).

        Every action does both in its transaction; on a busy machine each round trip to the database
        waits for a CPU on both sides (docs/performance.md), so they go together.
        """
        update_sql, update_params = update_statement(match, fields)
        by_model: dict[type[models.Model], list[models.Model]] = {}
        for row in rows:
            by_model.setdefault(type(row), []).append(row)
        postgresql = connection.vendor == "postgresql"
        inserts = [
            (postgresql and model is Event and _events_insert(objs)) or insert_statement(model, objs)  # type: ignore[arg-type]
            for model, objs in by_model.items()
        ]
        with connection.cursor() as cursor:
            if inserts and postgresql:
                # Held (tute_api.rows): sent with the COMMIT, or with the transaction's next statement. Its
                # row count is not read: the caller locked the match (FOR UPDATE), whose row then stays until
                # the commit, and the update names it by its primary key.
                ctes = ", ".join(f"written_{n} AS ({sql})" for n, (sql, _) in enumerate(inserts))
                params = [value for _, values in inserts for value in values]
                cursor.execute(Held(f"WITH {ctes} {update_sql}"), (*params, *update_params))
                return
            for insert in inserts:
                cursor.execute(*insert)
            cursor.execute(update_sql, update_params)
            if cursor.rowcount != 1:
                raise DatabaseError(f"match {match.pk} was not saved")


@cache
def _events_sql() -> str:
    """PostgreSQL: the insert of one match's events, its id and their moment given once, the rest read from
    one JSON array of ``{seq, type, seat, data}`` (:func:`_events_insert`)."""
    fields = {field.name: field for field in Event._meta.concrete_fields}
    spread = ["seq", "type", "seat", "data"]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(fields[name].column) for name in ["match", "created_at", *spread])
    values = ", ".join(f"e.{quote(name)}" for name in spread)
    types = ", ".join(f"{quote(name)} {fields[name].db_type(connection)}" for name in spread)
    return (
        f"INSERT INTO {quote(Event._meta.db_table)} ({columns}) "
        f"SELECT %s, %s, {values} FROM jsonb_to_recordset(%s) AS e({types})"
    )


def _events_insert(events: Sequence[Event]) -> tuple[str, list[Any]] | None:
    """PostgreSQL: the SQL and parameters that insert the events of one match written at one moment (an
    action's, as ``records.event_rows`` builds them) from one JSON document: three parameters to quote,
    not six a row (quoting an action's parameters was 3-5% of a server's samples under load, its events
    most of them: docs/performance.md). None for events of several matches or moments."""
    first = events[0]
    if any(e.match_id != first.match_id or e.created_at != first.created_at for e in events):
        return None
    get = Event._meta.get_field
    rows = [{"seq": e.seq, "type": e.type, "seat": e.seat, "data": e.data} for e in events]
    return _events_sql(), [
        get("match").get_db_prep_save(first.match_id, connection),
        get("created_at").get_db_prep_save(first.created_at, connection),
        get("data").get_db_prep_save(rows, connection),  # the data column's JSON, as each event's is written
    ]


class Match(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    variant = models.CharField(max_length=32)
    options = JSONField(help_text="Every option of the variant, defaults filled in.")
    seed = models.BigIntegerField(null=True, blank=True, help_text="Deterministic deals (C12), if given.")
    deal_key = models.CharField(
        max_length=64, blank=True, help_text="The secret match key (C12v), hex; empty for a seeded match. Shown "
        "only in the record of a match that is over."
    )  # fmt: skip
    deal_commitment = models.CharField(
        max_length=64, blank=True, help_text="The SHA-256 of the deal key, hex: published from the match's creation."
    )
    client_seeds = JSONField(
        default=list, blank=True, help_text="Per seat, the client_seed its player gave (C12v), or null."
    )
    status = models.CharField(max_length=16, choices=MatchStatus.choices, default=MatchStatus.WAITING)
    seq = models.PositiveIntegerField(default=0, help_text="The seq of the latest event; 0 before any.")
    turn = models.SmallIntegerField(null=True, blank=True, help_text="The seat to act, if any.")
    state = JSONField(null=True, blank=True, help_text="The engine's state after event `seq`.")
    invite_code = models.CharField(max_length=16, blank=True)
    public = models.BooleanField(default=False, help_text="Any player may watch it (RULES.md M5).")
    rated = models.BooleanField(
        default=True, help_text="Asked to count for ratings (docs/ratings.md); false: a friendly match."
    )
    seating = JSONField(
        default=list, help_text="The seats as the API shows them: a copy of the Seat rows, read with the match."
    )
    created_by = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="created_matches")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = MatchManager()

    class Meta:
        verbose_name_plural = "matches"
        # No index holds a column that every action writes (``updated_at``, ``seq``, ``turn``, ``state``):
        # an action's update of the row is then a HOT update (a fillfactor leaves it room on its page,
        # migration 0006), and the sweeps and ``GET /matches/live`` read the matches in play, not every
        # match ever played, through the partial index (docs/scaling.md).
        indexes = [
            models.Index(fields=["public"], condition=models.Q(status="active"), name="match_active"),
        ]

    def __str__(self) -> str:
        return f"{self.variant} {self.id} ({self.status})"


class Seat(models.Model):
    """A seat of a match: a player, a built-in bot (``bot`` = its level), or open (neither)."""

    # No index of its own on ``match``: the unique ``(match, number)`` serves it (as for hands and events).
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats", db_index=False)
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True, related_name="seats")
    bot = models.CharField(max_length=32, blank=True, help_text="A built-in bot's level, e.g. level-2.")
    joined_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="seat_match_number_unique"),
            models.UniqueConstraint(
                fields=["match", "player"], condition=models.Q(player__isnull=False), name="seat_match_player_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.number}: {self.kind}"

    @property
    def kind(self) -> str:
        return "player" if self.player_id else "bot" if self.bot else "open"


class Hand(models.Model):
    """One deal of a match: written from its ``hand_started`` and ``hand_finished`` events."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="hands", db_index=False)
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    deck = JSONField(help_text="The shuffled deck as dealt, card codes.")
    started_seq = models.PositiveIntegerField()
    result = JSONField(null=True, blank=True)
    finished_seq = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="hand_match_number_unique")]

    def __str__(self) -> str:
        return f"hand {self.number} of {self.match_id}"


class AppendOnly(Exception):
    """Raised on any attempt to change or delete an event."""


class EventQuerySet(models.QuerySet["Event"]):
    def update(self, **kwargs: Any) -> NoReturn:
        raise AppendOnly("events are never updated")

    def delete(self) -> NoReturn:
        raise AppendOnly("events are never deleted")


class Event(models.Model):
    """One entry of a match's log, as the engine wrote it; never updated, never deleted."""

    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    seat = models.SmallIntegerField(null=True, blank=True)
    data = JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="event_match_seq_unique")]

    def __str__(self) -> str:
        return f"{self.seq} {self.type}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnly("events are never updated")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise AppendOnly("events are never deleted")

    def as_engine_event(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "data": self.data}


class IdempotencyRecord(models.Model):
    """The first answer to a POST sent with an ``Idempotency-Key``, to give again on a retry."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="idempotency_records")
    key = models.CharField(max_length=255)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = JSONField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)  # the hourly purge reads by it

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "key"], name="idempotency_player_key_unique")]

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}]"
