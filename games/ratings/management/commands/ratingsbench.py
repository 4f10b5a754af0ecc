"""``python manage.py ratingsbench``: the leaderboard's first page on a database of ratings of its own.

It creates a PostgreSQL database beside the configured one (``--database``, dropped at the end unless
``--keep``), migrates it, fills it by bulk SQL with ``--players`` players rated in ``--variant`` (ratings
spread around 1500, deviations from 45 to 350, so that some are ranked and some not), and times
``selectors.leaderboard`` with its body, page 1, ``--runs`` times: it prints p50, p95 and the plan.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import psycopg
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, connections
from psycopg import sql

from games import engine
from games.ratings import selectors
from games.ratings.models import LEADERBOARD_MAX_DEVIATION, Rating
from games.ratings.serializers import LeaderboardSerializer

FILL = """
INSERT INTO players_player (id, username, created_at)
SELECT md5('bench' || g)::uuid, 'bench' || g, now() FROM generate_series(1, %(players)s) g;
INSERT INTO ratings_rating (player_id, variant, rating, deviation, volatility, games, played, won, updated_at)
SELECT md5('bench' || g)::uuid, %(variant)s,
       1500 + 350 * (random() + random() + random() - 1.5), 45 + 305 * random() ^ 2, 0.06,
       (random() * 200)::int, 0, 0, now()
FROM generate_series(1, %(players)s) g;
ANALYZE players_player;
ANALYZE ratings_rating;
"""


class Command(BaseCommand):
    help = "Time the first page of a leaderboard on a database of its own filled with --players ratings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=1_000_000)
        parser.add_argument("--variant", default="dos", choices=sorted(engine.VARIANTS))
        parser.add_argument("--runs", type=int, default=500, help="timed reads of page 1")
        parser.add_argument("--database", default="ratingsbench", help="the database to create (and drop)")
        parser.add_argument("--keep", action="store_true", help="keep the database (and reuse it if it exists)")

    def handle(self, *args: Any, **opts: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("ratingsbench needs PostgreSQL: set DATABASE_URL.")
        base = dict(settings.DATABASES["default"])
        name = opts["database"]
        created = self._create(base, name)
        conn = connections["default"]
        conn.close()
        original = conn.settings_dict["NAME"]
        conn.settings_dict["NAME"] = name
        try:
            if created:
                call_command("migrate", verbosity=0)
                started = time.perf_counter()
                with connection.cursor() as cursor:
                    cursor.execute(FILL, {"players": opts["players"], "variant": opts["variant"]})
                self.stdout.write(f"filled {opts['players']:,} ratings in {time.perf_counter() - started:.1f} s")
            self._time(opts["variant"], opts["runs"])
        finally:
            conn.close()
            conn.settings_dict["NAME"] = original
            if not opts["keep"]:
                self._drop(base, name)

    def _time(self, variant: str, runs: int) -> None:
        ranked = Rating.objects.filter(variant=variant, deviation__lt=LEADERBOARD_MAX_DEVIATION).count()
        bound = f"deviation < {LEADERBOARD_MAX_DEVIATION:g}"
        self.stdout.write(f"{Rating.objects.count():,} ratings, {ranked:,} ranked ({bound})")
        board = Rating.objects.filter(variant=variant, deviation__lt=LEADERBOARD_MAX_DEVIATION)
        self.stdout.write(board.order_by("-rating", "player_id").select_related("player")[:51].explain())
        for _ in range(20):  # warm the cache and the connection
            LeaderboardSerializer(selectors.leaderboard(variant=variant)).data  # noqa: B018
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            LeaderboardSerializer(selectors.leaderboard(variant=variant)).data  # noqa: B018
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        p95 = times[max(0, round(0.95 * len(times)) - 1)]
        self.stdout.write(f"leaderboard page 1, {runs} reads: p50 {statistics.median(times):.2f} ms, p95 {p95:.2f} ms")

    def _admin(self, base: dict[str, Any]) -> psycopg.Connection[Any]:
        return psycopg.connect(
            dbname="postgres", user=base.get("USER") or None, password=base.get("PASSWORD") or None,
            host=base.get("HOST") or None, port=base.get("PORT") or None, autocommit=True,
        )  # fmt: skip

    def _create(self, base: dict[str, Any], name: str) -> bool:
        with self._admin(base) as admin:
            if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
                return False
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            return True

    def _drop(self, base: dict[str, Any], name: str) -> None:
        with self._admin(base) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
