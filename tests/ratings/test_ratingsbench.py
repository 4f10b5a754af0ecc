"""``manage.py ratingsbench``: the leaderboard's first page timed on a database of its own."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection


@pytest.mark.django_db
def test_ratingsbench_needs_postgresql() -> None:
    if connection.vendor == "postgresql":
        pytest.skip("on PostgreSQL it runs: test_ratingsbench_times_the_first_page")
    with pytest.raises(CommandError, match="PostgreSQL"):
        call_command("ratingsbench", "--players", "10")


@pytest.mark.django_db(transaction=True)
def test_ratingsbench_times_the_first_page() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL)")
    out = io.StringIO()
    name = f"{connection.settings_dict['NAME']}_bench"
    call_command("ratingsbench", "--players", "2000", "--runs", "5", "--database", name, stdout=out)
    text = out.getvalue()
    assert "filled 2,000 ratings" in text and "rating_leaderboard" in text and "p95" in text
    assert connection.settings_dict["NAME"] != name, "the test database is the default again"
