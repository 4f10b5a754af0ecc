"""Writes of the lobby: create a room, join it by code, configure it, start matches, leave.

A room is in its *lobby* when it has no match or its latest match is over (finished or
cancelled, M2): its host may then change the variant and options, remove a member, or start the
next match, which seats the members in the order they joined and fills the other seats with bots.
"""

from __future__ import annotations

import secrets
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from games import engine
from games.bots import LEVELS
from games.matches.errors import engine_error
from games.matches.services import match_create, match_join
from games.turns.presence import presences_start
from games.turns.tables import table_create
from players.models import Player

from .errors import Conflict, ErrorCode, Forbidden, NotFound, Unprocessable
from .models import Room, RoomMember
from .selectors import in_lobby, table_options_of

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: Sane bounds of the service options, in seconds.
TABLE_OPTION_BOUNDS = {"presence_timeout": (1, 600), "reconnect_grace": (1, 3600), "turn_seconds": (1, 3600)}


@transaction.atomic
def room_create(
    *,
    player: Player,
    variant: str = "clasico",
    options: dict[str, Any] | None = None,
    bot: str = "level-2",
    table_options: dict[str, int | None] | None = None,
    public: bool = False,
    open: bool = False,
) -> Room:
    """A new room with the player as its host and only member; ``public``: its matches may be
    watched by any player (M5); ``open``: anyone may join it without the code (:func:`room_join_open`)."""
    now = timezone.now()
    room = Room(host=player, code=_new_code(), created_at=now, updated_at=now, public=public, open=open)
    _configure(room, variant=variant, options=options, bot=bot, table_options=table_options)
    room.save(force_insert=True)
    RoomMember.objects.create(room=room, player=player, joined_at=now)
    return room


@transaction.atomic
def room_join(*, player: Player, code: str) -> Room:
    """Join a room by its invite code (joining again changes nothing)."""
    found = Room.objects.filter(code=code.strip().upper())
    return _join(player, found, "No open room has this invite code.")


@transaction.atomic
def room_join_open(*, player: Player, room_id: UUID) -> Room:
    """Join an open room without its code (joining again changes nothing, a private room's member's
    too); a room that is not open is 404 ``room_not_found`` to anyone else, as a wrong code is: it tells
    a stranger nothing."""
    mine = RoomMember.objects.filter(player=player).values("room")
    found = Room.objects.filter(Q(open=True) | Q(pk__in=mine), pk=room_id)
    return _join(player, found, "No open room has this id.")


def _join(player: Player, found: QuerySet[Room], missing: str) -> Room:
    """The player joins the room ``found`` names, locked, if it is not closed; 404 ``room_not_found``."""
    room = found.select_for_update().filter(closed=False).first()
    if room is None:
        raise NotFound(missing, code=ErrorCode.ROOM_NOT_FOUND)
    RoomMember.objects.get_or_create(room=room, player=player)
    room.updated_at = timezone.now()
    room.save(update_fields=["updated_at"])
    return room


@transaction.atomic
def room_update(
    *,
    player: Player,
    room_id: UUID,
    variant: str | None = None,
    options: dict[str, Any] | None = None,
    bot: str | None = None,
    table_options: dict[str, int | None] | None = None,
    public: bool | None = None,
    open: bool | None = None,
) -> Room:
    """The host changes the next match's variant, options, bot, table options, whether it is public or
    whether it is open (in the lobby)."""
    room = _hosted_in_lobby(player, room_id)
    if public is not None:
        room.public = public
    if open is not None:
        room.open = open
    _configure(
        room,
        variant=variant or room.variant,
        options=options if options is not None else (room.options if variant in (None, room.variant) else {}),
        bot=bot or room.bot,
        table_options={**table_options_of(room), **(table_options or {})},
    )
    room.updated_at = timezone.now()
    room.save()
    return room


@transaction.atomic
def room_leave(*, player: Player, room_id: UUID) -> Room:
    """The player leaves; a host who leaves hands the room to the next member, the last one closes it.

    Leaving during a match does not free the seat at once: it is held for the grace, as any
    disconnection (M2)."""
    room = _member_room(player, room_id)
    RoomMember.objects.filter(room=room, player=player).delete()
    rest = list(RoomMember.objects.filter(room=room).order_by("joined_at", "id"))
    if not rest:
        room.closed = True
    elif room.host_id == player.pk:
        room.host_id = rest[0].player_id
    room.updated_at = timezone.now()
    room.save(update_fields=["closed", "host", "updated_at"])
    return room


@transaction.atomic
def room_member_remove(*, player: Player, room_id: UUID, member_id: UUID) -> Room:
    """The host removes another member (in the lobby)."""
    room = _hosted_in_lobby(player, room_id)
    if str(member_id) == str(player.pk):
        raise Unprocessable("The host leaves with POST /rooms/{id}/leave.", code=ErrorCode.HOST_REMOVES_SELF)
    removed, _ = RoomMember.objects.filter(room=room, player_id=member_id).delete()
    if not removed:
        raise NotFound("No such member in this room.", code=ErrorCode.NOT_A_MEMBER)
    room.updated_at = timezone.now()
    room.save(update_fields=["updated_at"])
    return room


@transaction.atomic
def room_start(*, player: Player, room_id: UUID) -> Room:
    """The host starts a match: members in the order they joined, bots in the seats left."""
    room = _hosted_in_lobby(player, room_id)
    members = [m.player for m in RoomMember.objects.filter(room=room).select_related("player")]
    members.sort(key=lambda p: p.pk != room.host_id)  # the host sits first
    seats = engine.player_count(room.variant, room.options)
    if len(members) > seats:
        raise Conflict(
            f"A {room.variant} match has {seats} seats and the room has {len(members)} members.",
            code=ErrorCode.TOO_MANY_PLAYERS,
        )
    specs = [{"player": "me"}] + [{"open": True}] * (len(members) - 1) + [{"bot": room.bot}] * (seats - len(members))
    created = match_create(
        player=player, variant=room.variant, options=room.options, seats=specs, public=room.public
    ).match
    for number, guest in enumerate(members[1:], start=1):
        match_join(player=guest, match_id=created.id, invite_code=created.invite_code, seat=number)
    table_create(match_id=created.id, room_id=room.pk, **table_options_of(room))
    now = timezone.now()
    if len(members) > 1:  # M3: one human against bots is never timed out
        presences_start(match_id=created.id, players=members, now=now)
    room.match_id, room.updated_at = created.id, now
    room.save(update_fields=["match", "updated_at"])
    return Room.objects.select_related("match").get(pk=room.pk)


# -- helpers ------------------------------------------------------------------------------------


def _new_code() -> str:
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
        if not Room.objects.filter(code=code).exists():
            return code


def _member_room(player: Player, room_id: UUID) -> Room:
    room = Room.objects.select_for_update().filter(pk=room_id, closed=False).first()
    if room is None or not RoomMember.objects.filter(room=room, player=player).exists():
        raise NotFound("No such room among yours.", code=ErrorCode.ROOM_NOT_FOUND)
    return room


def _hosted_in_lobby(player: Player, room_id: UUID) -> Room:
    room = _member_room(player, room_id)
    if room.host_id != player.pk:
        raise Forbidden("Only the room's host may do this.", code=ErrorCode.NOT_HOST)
    if not in_lobby(room):
        raise Conflict("A match is being played in this room; wait until it is over.", code=ErrorCode.ROOM_PLAYING)
    return room


def _configure(
    room: Room, *, variant: str, options: dict[str, Any] | None, bot: str, table_options: dict[str, int | None] | None
) -> None:
    try:
        room.options = engine.validate_options(variant, options)
    except engine.EngineError as exc:
        raise engine_error(exc) from None
    room.variant = variant
    if bot not in LEVELS:
        raise Unprocessable(
            f"No built-in bot {bot[:50]!r}: a room fills its empty seats with one of {', '.join(LEVELS)}; a "
            'registered bot takes one seat of a match (POST /matches/ with {"bot": "<id>"}).',
            code="unknown_bot",
            field="bot",
        )
    room.bot = bot
    for name, value in (table_options or {}).items():
        if name not in TABLE_OPTION_BOUNDS:
            raise Unprocessable(f"No table option {name[:50]!r}.", code=ErrorCode.INVALID_TABLE_OPTION, field=name)
        low, high = TABLE_OPTION_BOUNDS[name]
        if value is not None and not (isinstance(value, int) and low <= value <= high):
            raise Unprocessable(
                f"{name} is a whole number of seconds from {low} to {high}.",
                code=ErrorCode.INVALID_TABLE_OPTION,
                field=f"table_options.{name}",
            )
        setattr(room, name, value)
