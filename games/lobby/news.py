"""A ``settings.MATCH_RECORDERS`` entry: "your turn in match X" on the channel of the player to act,
written in the move's own statement."""

from __future__ import annotations

from games.matches.news import MatchNews

from .models import Notice, NoticeKind


def your_turn(news: MatchNews) -> list[Notice]:
    """After a move, the player (not a built-in bot) whose turn it is gets a ``your_turn`` message, stored
    with the move. Its readers are woken by the move's news, which wakes that player's channel once it
    commits (:func:`games.live.channels.match_news`): no second publish."""
    seat = news.seat
    if not news.moved or not news.active or seat is None or not seat["player"]:
        return []
    player_id, data = seat["player"]["id"], {"seq": news.seq}
    return [Notice(player_id=player_id, kind=NoticeKind.YOUR_TURN, match_id=news.match_id, data=data)]
