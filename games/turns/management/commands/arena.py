"""``python manage.py arena``: duplicate-deal matches between two built-in bots (see games.bots.arena)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots import LEVELS
from games.bots.arena import bot_policy, format_report, progress_bar, run_arena
from games.engine import VARIANTS, InvalidOptions


class Command(BaseCommand):
    help = (
        "Play duplicate deals (each deal twice, seats swapped) between two bots and print the hands won by each"
        " with a 95% confidence interval, the mean point margin and the time per decision."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--variant", default="dos", choices=sorted(VARIANTS))
        parser.add_argument(
            "--a", default="level-4", help=f"the first bot: one of {', '.join(LEVELS)}; level-4 takes a budget,"
            " e.g. level-4:time=0.1,samples=40; or oracle, a cheat that sees every hand (a bound, docs/bots.md)"
        )
        parser.add_argument("--b", default="level-3", help="the second bot, as --a")
        parser.add_argument("--deals", type=int, default=100, help="duplicate deals (two hands each)")
        parser.add_argument("--seed", type=int, default=1, help="the deals' seed")
        parser.add_argument("--workers", type=int, default=1, help="processes playing deals in parallel")
        parser.add_argument(
            "--option", action="append", default=[], metavar="NAME=VALUE",
            help="a match option (JSON value), e.g. --option hand_size=6; repeatable",
        )
        parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar on standard error")

    def handle(self, *args: Any, **opts: Any) -> None:
        options: dict[str, Any] = {}
        for item in opts["option"]:
            name, sep, value = item.partition("=")
            if not sep:
                raise CommandError(f"--option takes NAME=VALUE, got {item!r}")
            try:
                options[name] = json.loads(value)
            except json.JSONDecodeError:
                options[name] = value
        for spec in (opts["a"], opts["b"]):
            try:
                bot_policy(spec)
            except (KeyError, ValueError) as error:
                raise CommandError(f"unknown bot {spec!r}: {error}") from None
        if opts["deals"] < 1:
            raise CommandError("--deals must be at least 1")
        progress = None if opts["no_progress"] else progress_bar(self._progress)
        try:
            report = run_arena(
                opts["variant"], options, opts["a"], opts["b"], deals=opts["deals"], seed=opts["seed"],
                workers=opts["workers"], progress=progress,
            )
        except InvalidOptions as error:
            raise CommandError(str(error)) from None
        summary = report.summary()
        self.stdout.write(json.dumps(summary) if opts["json"] else format_report(summary))

    def _progress(self, text: str) -> None:
        self.stderr.write(text, ending="")
        self.stderr.flush()
