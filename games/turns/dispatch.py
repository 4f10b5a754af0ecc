"""The turn takers hear of every committed change of a match (``settings.MATCH_LISTENERS``) and hand
the next turn to whoever takes it: a built-in bot's task, a webhook bot's call, a poll bot's clock."""

from __future__ import annotations

from games.matches.news import MatchNews

from . import builtin, http_bots


def next_turn(news: MatchNews) -> None:
    """Queue what the match now waits for, and count a poll bot's own move in its stats."""
    if news.mover is not None:
        http_bots.poll_action_record(news.mover, news.match_id)
    if news.seat is None:
        return
    if news.seat["bot"]:  # a built-in bot: again after a service event, whose seq its task would miss
        builtin.bot_turns_next(news.match_id, news.seq, news.seat["bot"])
    elif news.seat["player"] and news.moved:
        http_bots.turn_announce(news.match_id, news.seq, news.seat["player"]["id"])
