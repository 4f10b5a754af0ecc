"""Reads of the games app: a player's matches, views, events, records and the variants."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db import connection
from django.db.models import OuterRef, QuerySet, Subquery

from games import engine, live
from players.models import Player

from . import adapter
from .errors import ErrorCode, Forbidden, NotFound
from .models import Event, Hand, Match, MatchStatus, Seat

#: The longest a request may wait for a match to move on (``?wait=``).
MAX_WAIT_SECONDS = 30


@dataclass
class Membership:
    """A match as one player relates to it: their seat (None for a creator who does not play)."""

    match: Match
    seat: int | None


def seats_of(match: Match) -> list[Seat]:
    """The match's seat rows (writes need them; reads use ``Match.seating``)."""
    return list(Seat.objects.filter(match=match).select_related("player").order_by("number"))


def match_membership(*, match_id: UUID, player: Player) -> Membership:
    """The match and the caller's seat, in one query; 404 unless the caller sits at it or created it."""
    found = Match.objects.fetch(match_id)
    if found is None:
        raise NotFound()
    seat = adapter.seat_in(found.seating, player.pk)
    if seat is None and found.created_by_id != player.pk:
        raise NotFound()
    return Membership(found, seat)


def match_membership_or_over(*, match_id: UUID, player: Player) -> Membership:
    """As :func:`match_membership`, but a match that is over may be read by anyone: match histories
    can be replayed card by card by anyone once a match is over. An active match stays private."""
    found = Match.objects.filter(pk=match_id).first()
    if found is None:
        raise NotFound()
    seat = adapter.seat_in(found.seating, player.pk)
    over = found.status in (MatchStatus.FINISHED, MatchStatus.CANCELLED)
    if seat is None and found.created_by_id != player.pk and not over:
        raise NotFound()
    return Membership(found, seat)


def match_view(*, membership: Membership) -> dict[str, Any]:
    return adapter.match_body(membership.match, membership.seat)


def match_events(*, membership: Membership, after: int, limit: int) -> list[dict[str, Any]]:
    """The events after ``after``, oldest first, as the caller's seat may see them."""
    rows = Event.objects.filter(match=membership.match, seq__gt=after).order_by("seq")[:limit]
    return [adapter.event_body(row, membership.seat) for row in rows]


def match_record(*, membership: Membership) -> dict[str, Any]:
    """Everything about a match that is over: every deal in full, every action, every event."""
    match = membership.match
    if match.status not in (MatchStatus.FINISHED, MatchStatus.CANCELLED):
        raise Forbidden(
            "The record shows every hand in full: it is available once the match is over.",
            code=ErrorCode.MATCH_NOT_OVER,
        )
    rows = list(Event.objects.filter(match=match).order_by("seq"))
    hands = Hand.objects.filter(match=match).order_by("number")
    actions = []
    for row in rows:
        for seat, action in engine.actions_of([row.as_engine_event()]):
            actions.append({"seq": row.seq, "seat": seat, "action": action})
    final = adapter.match_body(match, None)
    return {
        "id": str(match.id),
        "variant": match.variant,
        "options": match.options,
        "seed": match.seed,
        "status": match.status,
        "seq": match.seq,
        "seats": final["seats"],
        "scoreboard": final["scoreboard"],
        "winners": final["winners"],
        "created_at": final["created_at"],
        "started_at": final["started_at"],
        "finished_at": final["finished_at"],
        "hands": [
            {"number": h.number, "dealer": h.dealer, "deck": h.deck, "result": h.result, "started_seq": h.started_seq}
            for h in hands
        ],
        "actions": actions,
        "events": [adapter.event_body_full(row) for row in rows],
    }


def moved_on(match: Match, *, since: int) -> bool:
    """Whether the game moved after event ``since``: an event of the engine's came after it."""
    later = Event.objects.filter(match=match, seq__gt=since).exclude(type__in=adapter.SERVICE_EVENTS)
    return later.exists()


def match_list(*, player: Player, status: str | None = None, variant: str | None = None) -> QuerySet[Match]:
    """The matches the player sits at or created, latest activity first, with ``my_seat``."""
    my_seat = Seat.objects.filter(match=OuterRef("pk"), player=player).values("number")[:1]
    matches = Match.objects.filter(pk__in=Seat.objects.filter(player=player).values("match")) | Match.objects.filter(
        created_by=player
    )
    matches = matches.annotate(my_seat=Subquery(my_seat)).order_by("-updated_at", "-created_at")
    if status:
        matches = matches.filter(status=status)
    if variant:
        matches = matches.filter(variant=variant)
    return matches.defer("state")


def match_summaries(matches: list[Match]) -> list[dict[str, Any]]:
    """A list entry per match: who sits where and whether the caller is to act; no cards."""
    out = []
    for match in matches:
        my_seat = getattr(match, "my_seat", None)
        out.append(
            {
                "id": str(match.id),
                "variant": match.variant,
                "options": match.options,
                "status": match.status,
                "seq": match.seq,
                "seats": match.seating,
                "my_seat": my_seat,
                "turn": match.turn,
                "my_turn": my_seat is not None and match.turn == my_seat and match.status == MatchStatus.ACTIVE,
                "invite_code": match.invite_code if match.status == MatchStatus.WAITING else None,
                "created_at": adapter.iso(match.created_at),
                "updated_at": adapter.iso(match.updated_at),
            }
        )
    return out


def match_membership_after(*, match_id: UUID, player: Player, after: int | None, wait: float) -> Membership:
    """:func:`match_membership`, as a long poll when ``after`` and ``wait`` are given: the match once
    its ``seq`` is past ``after``, or as it is after ``wait`` seconds.

    Answers at once when the match is already past ``after``, or over (nothing more will happen).
    It subscribes before it reads, so that news published in between is not missed, and holds no
    database connection while it waits (games.live).
    """
    if after is None or wait <= 0:
        return match_membership(match_id=match_id, player=player)
    with live.subscribe(live.match_channel(match_id)) as subscription:
        membership = match_membership(match_id=match_id, player=player)
        match = membership.match
        if match.seq > after or match.status in (MatchStatus.FINISHED, MatchStatus.CANCELLED):
            return membership
        if not connection.in_atomic_block:
            connection.close()  # back to the pool, if any; the next query reconnects
        subscription.wait(min(wait, MAX_WAIT_SECONDS))
        fresh = Match.objects.fetch(match_id)
    return Membership(fresh or match, membership.seat)


def variants() -> list[dict[str, Any]]:
    """Every variant of RULES.md with its seats and options (names, defaults, allowed values)."""
    return [
        {
            "name": info.name,
            "title": info.title,
            "rule": info.rule,
            "players": list(info.players),
            "options": [
                {
                    "name": o.name,
                    "default": o.default,
                    "choices": list(o.choices),
                    "rule": o.rule,
                    "description": o.description,
                }
                for o in info.options
            ],
        }
        for info in engine.VARIANTS.values()
    ]
