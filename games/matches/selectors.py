"""Reads of the matches: a player's matches, a match as a seat sees it, its events and its record,
the public matches being played (RULES.md M5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple
from uuid import UUID

from django.db import connection
from django.db.models import OuterRef, QuerySet, Subquery

from games import engine
from players.models import Player
from tute_api.rows import fetch_beside

from . import records
from .errors import ErrorCode, Forbidden, NotFound
from .models import Event, Hand, Match, MatchStatus, Seat

#: The longest a request may wait for a match to move on (``?wait=``).
MAX_WAIT_SECONDS = 30


@dataclass(frozen=True)
class Membership:
    """A match as one player relates to it: their seat (None for a creator who does not play, or a
    spectator), whether they only watch a public match they neither sit at nor created (M5), and the
    engine state when the service that returns it has it at hand (else it is read from the snapshot)."""

    match: Match
    seat: int | None
    state: engine.State | None = None
    spectator: bool = False


@dataclass(frozen=True)
class Record:
    """Everything stored of a match that is over: its log and its hands."""

    match: Match
    events: list[Event]
    hands: list[Hand]


def seats_of(match: Match) -> list[Seat]:
    """The match's seat rows (writes need them; reads use ``Match.seating``)."""
    return list(Seat.objects.filter(match=match).select_related("player").order_by("number"))


def membership_of(match: Match, player: Player) -> Membership | None:
    """How the player relates to the match: seated, its creator, a spectator of a public match
    (seat None, M5); None for a stranger to a match that is not public."""
    seat = records.seat_in(match.seating, player.pk)
    if seat is not None or match.created_by_id == player.pk:
        return Membership(match, seat)
    if match.public:
        return Membership(match, None, spectator=True)
    return None


def match_membership(*, match_id: UUID, player: Player) -> Membership:
    """The match and the caller's seat, in one query; 404 unless the caller sits at it, created it
    or the match is public (a spectator, seat None: M5)."""
    found = Match.objects.fetch(match_id)
    membership = membership_of(found, player) if found is not None else None
    if membership is None:
        raise NotFound()
    return membership


def match_membership_or_over(*, match_id: UUID, player: Player) -> Membership:
    """As :func:`match_membership`, but a match that is over may be read by anyone: match histories
    can be replayed card by card by anyone once a match is over. An active match that is not public
    stays private."""
    found = Match.objects.fetch(match_id)
    if found is None:
        raise NotFound()
    membership = membership_of(found, player)
    if membership is not None:
        return membership
    if found.status in (MatchStatus.FINISHED, MatchStatus.CANCELLED):
        return Membership(found, None, spectator=True)
    raise NotFound()


class EventsAfter(NamedTuple):
    """A match's events after a seq, read in one statement with where the match stands."""

    status: str | None  # None: no such match
    events: list[Event]  # oldest first
    seq: int | None  # the match's seq as read with them
    turn: int | None  # the seat to act then, if any


def events_after(*, match_id: object, after: int, limit: int) -> EventsAfter:
    """What a subscriber of the match reads once woken: its status, seq and turn, and its events after
    ``after``, oldest first, at most ``limit``. One statement, so one snapshot: a match read as over comes
    with every event of its log, and one read at the last event's seq with the turn that event left.
    Plain SQL (:func:`tute_api.rows.fetch_beside`): every subscriber of a match reads it at each of its
    events."""
    pk, event_match, event_seq = Match._meta.pk, Event._meta.get_field("match"), Event._meta.get_field("seq")
    assert pk is not None
    rest = (
        f'FROM "{Match._meta.db_table}" m LEFT JOIN "{Event._meta.db_table}" e '
        f'ON e."{event_match.column}" = m."{pk.column}" AND e."{event_seq.column}" > %s '
        f'WHERE m."{pk.column}" = %s ORDER BY e."{event_seq.column}" LIMIT %s'
    )
    leading = ['m."status"', 'm."seq"', 'm."turn"']
    rows = fetch_beside(leading, Event, "e", rest, [after, pk.get_db_prep_value(match_id, connection), limit])
    if not rows:
        return EventsAfter(None, [], None, None)
    (status, seq, turn), _ = rows[0]
    return EventsAfter(status, [event for _, event in rows if event is not None], seq, turn)


def match_events(*, match: Match, after: int, limit: int) -> list[Event]:
    """The match's events after ``after``, oldest first (the API shows each as the caller may see it)."""
    return list(Event.objects.filter(match=match, seq__gt=after).order_by("seq")[:limit])


def match_record(*, membership: Membership) -> Record:
    """Everything about a match that is over: every deal in full, every event."""
    match = membership.match
    if match.status not in (MatchStatus.FINISHED, MatchStatus.CANCELLED):
        raise Forbidden(
            "The record shows every hand in full: it is available once the match is over.",
            code=ErrorCode.MATCH_NOT_OVER,
        )
    rows = list(Event.objects.filter(match=match).order_by("seq"))
    return Record(match, rows, list(Hand.objects.filter(match=match).order_by("number")))


def moved_on(match: Match, *, since: int) -> bool:
    """Whether the game moved after event ``since``: an event of the engine's came after it."""
    later = Event.objects.filter(match=match, seq__gt=since).exclude(type__in=records.SERVICE_EVENTS)
    return later.exists()


#: How many public matches in play ``GET /matches/live`` ranks (the latest moved): a bound on its work.
LIVE_MATCHES_RANKED = 1000


def live_match_ids() -> list[UUID]:
    """The ids of the public matches in play (M5), the latest moved first, at most
    :data:`LIVE_MATCHES_RANKED` (the partial index ``match_active``: the matches in play, not those over)."""
    matches = Match.objects.filter(public=True, status=MatchStatus.ACTIVE).order_by("-updated_at", "-id")
    return list(matches.values_list("id", flat=True)[:LIVE_MATCHES_RANKED])


def matches_in_order(ids: list[UUID]) -> list[Match]:
    """The matches of ``ids`` in that order, without their state (no card is read)."""
    found = Match.objects.defer("state").in_bulk(ids)
    return [found[i] for i in ids if i in found]


def match_list(*, player: Player, status: str | None = None, variant: str | None = None) -> QuerySet[Match]:
    """The matches the player sits at or created, latest activity first, with ``my_seat``.

    The ids come from two index scans, the player's seats (``games_seat_player_id``) and the matches
    they created (``games_match_created_by_id``), joined in a UNION: the work is the caller's own
    matches, whatever the number of matches stored (an ``OR`` of the two was a scan of every match,
    docs/scaling.md)."""
    mine = Seat.objects.filter(player=player).order_by().values("match_id").union(
        Match.objects.filter(created_by=player).order_by().values("id")
    )
    my_seat = Seat.objects.filter(match=OuterRef("pk"), player=player).values("number")[:1]
    matches = Match.objects.filter(pk__in=mine)
    matches = matches.annotate(my_seat=Subquery(my_seat)).order_by("-updated_at", "-created_at")
    if status:
        matches = matches.filter(status=status)
    if variant:
        matches = matches.filter(variant=variant)
    return matches.defer("state")
