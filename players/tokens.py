"""Bearer tokens: random, URL-safe, and stored only as a digest."""

from __future__ import annotations

import hashlib
import secrets


def token_new() -> str:
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What the database stores of a token: its hex SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()
