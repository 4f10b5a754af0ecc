"""A ``settings.MATCH_RECORDERS`` entry: "your turn in match X" on the channel of the player to act,
written in the move's own transaction."""

from __future__ import annotations

from games.matches.news import MatchNews

from .models import Notice, NoticeKind
from .services import notices_add


def your_turn(news: MatchNews) -> None:
    """After a move, the player (not a built-in bot) whose turn it is gets a ``your_turn`` message, stored
    with the move. Its readers are woken by the move's news, which wakes that player's channel once it
    commits (:func:`games.live.channels.match_news`): no second publish."""
    seat = news.seat
    if not news.moved or not news.active or seat is None or not seat["player"]:
        return
    notices_add(
        [
            Notice(
                player_id=seat["player"]["id"],
                kind=NoticeKind.YOUR_TURN,
                match_id=news.match_id,
                data={"seq": news.seq},
            )
        ],
        wake=False,
    )
