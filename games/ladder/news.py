"""The ladder hears of every committed change of a match (``settings.MATCH_LISTENERS``) and moves a
run on when its match is over."""

from __future__ import annotations

from games.matches.news import MatchNews

from .services import OVER, run_advance


def match_ended(news: MatchNews) -> None:
    """Advance the run of a ladder match that has just ended (a no-op for any other match)."""
    if news.status in OVER:
        run_advance(match_id=news.match_id)
