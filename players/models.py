"""Players and their API tokens.

A :class:`Player` is whoever sits at a table through the API; it is not a Django admin user. A
player authenticates with a bearer token, of which only the SHA-256 digest is stored
(:class:`Token`): the token itself is shown once, when it is issued.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from tute_api.rows import fetch_one


class PlayerManager(models.Manager["Player"]):
    def lock(self, player_id: object) -> None:
        """Lock the player's row until the transaction ends: the caller's writes for that player
        (its tokens, its bots, its keyed requests) then happen one at a time."""
        list(self.select_for_update().filter(pk=player_id).values_list("pk"))

    def by_token_digest(self, digest: str) -> Player | None:
        """The player holding the token of this digest, or None: one query in plain SQL
        (:func:`tute_api.rows.fetch_one`), because every authenticated request runs it and the ORM
        spends more CPU building it than PostgreSQL spends answering it."""
        player, token = self.model._meta.db_table, Token._meta.db_table
        rest = f'FROM "{player}" p JOIN "{token}" t ON t."player_id" = p."id" WHERE t."digest" = %s'
        return fetch_one(self.model, "p", rest, [digest])


class Player(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    username = models.CharField(max_length=30)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = PlayerManager()

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

    digest = models.CharField(max_length=64)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="tokens")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # A constraint, not ``unique=True``: on PostgreSQL that adds a second index (``varchar_pattern_ops``,
        # for LIKE) on the digest, which is only ever compared whole.
        constraints = [models.UniqueConstraint(fields=["digest"], name="token_digest_unique")]

    def __str__(self) -> str:
        return f"{self.player} {self.digest[:8]}…"


class BotDelivery(models.TextChoices):
    POLL = "poll"  # the bot asks GET /api/v1/me/turns?wait=N
    WEBHOOK = "webhook"  # the service POSTs each turn to the bot's URL


class Bot(models.Model):
    """A player that a program plays for (``docs/http-bots.md``): its owner and how it gets its turns.

    The bot *is* its :class:`Player` (the primary key is the player's id), so its bearer token, its
    seats and the actions endpoint work as for anyone. The ``secret`` keys the HMAC that signs each
    webhook call, so, unlike a token, it is stored as issued. A retired bot (``retired_at``) keeps its
    player, whose seats in finished matches refer to it, but has no token and takes no new seat.
    """

    player = models.OneToOneField(Player, on_delete=models.CASCADE, primary_key=True, related_name="bot")
    owner = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="bots")
    delivery = models.CharField(max_length=8, choices=BotDelivery.choices)
    webhook_url = models.URLField(max_length=500, blank=True)
    timeout_ms = models.PositiveIntegerField(
        default=2000, help_text="How long the bot may take on a turn (a webhook call, or a polled turn)."
    )
    secret = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    retired_at = models.DateTimeField(
        null=True, blank=True, help_text="When the owner retired the bot: its tokens are gone and it takes no seat."
    )

    def __str__(self) -> str:
        return f"bot {self.player_id} ({self.delivery})"


class BotCallOutcome(models.TextChoices):
    OK = "ok"  # the reply's action (or a poll bot's own action) was played
    TIMEOUT = "timeout"  # no reply (or no polled action) within timeout_ms: a level-2 move was played instead
    ERROR = "error"  # no usable reply (connection refused, HTTP error, not an action): level-2 instead
    ILLEGAL = "illegal"  # an action the rules refuse: level-2 instead


class BotCall(models.Model):
    """One turn of a bot and how it went: a webhook call, or a poll bot's turn (its action, or the
    level-2 move played when it did not act within ``timeout_ms``). What ``GET /api/v1/bots/{id}/stats``
    counts."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="calls")
    match_id = models.UUIDField()
    seq = models.PositiveIntegerField()
    outcome = models.CharField(max_length=8, choices=BotCallOutcome.choices)
    latency_ms = models.PositiveIntegerField()
    detail = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["bot", "-created_at"], name="botcall_bot_created")]

    def __str__(self) -> str:
        return f"{self.bot_id} {self.match_id}@{self.seq}: {self.outcome}"


class SignupAnswer(models.Model):
    """The first answer to a sign-up sent with an ``Idempotency-Key`` (players.signup), sealed with a
    key derived from the ``Idempotency-Key``: the token in it cannot be read without that key, which
    the service never stores (only a keyed digest of it, to find the answer)."""

    key_digest = models.CharField(max_length=64, unique=True)
    request_hash = models.CharField(max_length=64)
    sealed = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"sign-up answer {self.key_digest[:12]}"
