"""Sign-up that survives a retry: ``POST /players/`` with an ``Idempotency-Key`` answers a retry with
its first answer, token included, for ``IDEMPOTENCY_KEY_HOURS``.

A lost answer would otherwise lose the account: the token is shown once and the retry finds the
username taken. The first answer is kept sealed (Fernet: AES-128-CBC and HMAC-SHA256, from the
``cryptography`` package) under a key derived from the ``Idempotency-Key`` and the service's
``SECRET_KEY``; the row holds only a keyed digest of the ``Idempotency-Key``. So the token can be read
back only by whoever sends the key again: not from the database alone, nor with the ``SECRET_KEY``
alone. The key must be secret to its client: a fresh random UUID, as for every keyed request.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import datetime, timedelta
from typing import Any

from cryptography.fernet import Fernet
from django.conf import settings
from django.utils import timezone

from tute_api.idempotency import Idempotency, IdempotencyKeyReused

from .models import SignupAnswer


def _derived(purpose: bytes, key: str) -> bytes:
    return hmac.new(settings.SECRET_KEY.encode(), purpose + b"\0" + key.encode(), hashlib.sha256).digest()


def _digest(key: str) -> str:
    return _derived(b"sign-up key", key).hex()


def _fernet(key: str) -> Fernet:
    return Fernet(base64.urlsafe_b64encode(_derived(b"sign-up answer", key)))


def signup_answer_first(idempotency: Idempotency) -> dict[str, Any] | None:
    """The first answer to a sign-up with this key, if it is still kept; 422 ``idempotency_key_reused``
    if the key came with another request."""
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    found = SignupAnswer.objects.filter(key_digest=_digest(idempotency.key), created_at__gte=cutoff).first()
    if found is None:
        return None
    if not hmac.compare_digest(found.request_hash, idempotency.request_hash):
        raise IdempotencyKeyReused()
    answer: dict[str, Any] = json.loads(_fernet(idempotency.key).decrypt(found.sealed.encode()))
    return answer


def signup_answer_keep(idempotency: Idempotency, answer: dict[str, Any]) -> None:
    """Keep the answer to a sign-up, sealed, in the caller's transaction (that of the new player)."""
    sealed = _fernet(idempotency.key).encrypt(json.dumps(answer, separators=(",", ":")).encode()).decode()
    SignupAnswer.objects.create(
        key_digest=_digest(idempotency.key), request_hash=idempotency.request_hash, sealed=sealed
    )


def signup_answers_purge(*, now: datetime) -> int:
    """Forget the sign-up answers older than ``IDEMPOTENCY_KEY_HOURS``; returns how many."""
    cutoff = now - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    deleted, _ = SignupAnswer.objects.filter(created_at__lt=cutoff).delete()
    return deleted
