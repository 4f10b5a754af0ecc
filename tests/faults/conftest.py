"""Fixtures of the fault tests: a PostgreSQL and a Redis of the test's own (see services.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.faults.services import Postgres, Redis


@pytest.fixture
def own_postgres() -> Iterator[Postgres]:
    """A running PostgreSQL cluster of this test's own, removed after it."""
    with Postgres() as pg:
        yield pg


@pytest.fixture
def own_redis() -> Iterator[Redis]:
    """A running ``redis-server`` of this test's own, removed after it."""
    with Redis() as redis:
        yield redis
