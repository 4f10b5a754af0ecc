"""Writes of the games app: create and join matches, act, let the bots play, cancel.

Every service runs in one transaction and locks the match row (``select_for_update``) before it
reads the match, so that actions on one match are applied one at a time, in ``seq`` order. An
action is applied through the engine; its events are appended to the log, the snapshot is saved,
and, once the transaction commits, waiting requests are woken and the next bot turn is queued
(after the answer is sent, when a request made the change: ``tute_api.after_response``).
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from games import engine, live
from games.bots import LEVELS, choose_action
from players.models import Bot, Player
from tute_api.after_response import on_commit_later

from . import adapter, selectors, tasks, turns
from .errors import Conflict, ErrorCode, Forbidden, NotFound, Unprocessable, engine_error
from .models import Hand, IdempotencyRecord, Match, MatchStatus, Seat

logger = logging.getLogger(__name__)

#: Bot actions played in one transaction before the task commits and queues itself again.
BOT_TURNS_PER_TASK = 200
INVITE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


@dataclass(frozen=True)
class Idempotency:
    """An ``Idempotency-Key`` and what identifies the request it came with."""

    key: str
    method: str
    path: str
    request_hash: str


@dataclass(frozen=True)
class Reply:
    """A service's answer, as the API sends it (and as a retry with the same key gets it again)."""

    status: int
    body: dict[str, Any]
    replayed: bool = False


# -- matches ------------------------------------------------------------------------------------


@transaction.atomic
def match_create(
    *,
    player: Player,
    variant: str,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    seats: list[Any],
    idempotency: Idempotency | None = None,
) -> Reply:
    """A new match; it starts at once when no seat is open, else waits for players to join."""
    if idempotency is not None and (first := _idempotent_reply(player, idempotency)):
        return first
    try:
        checked = engine.validate_options(variant, options)
        players = engine.new_match(variant, checked, seed=0).state.players
    except engine.EngineError as exc:
        raise engine_error(exc) from None
    specs = _seat_specs(seats, players, variant)
    if "me" in specs and f"player:{player.pk}" in specs:
        raise Unprocessable("You may take one seat only.", code=ErrorCode.INVALID_SEATS, field="seats")
    registered = {str(k): v for k, v in Player.objects.in_bulk([s[7:] for s in specs if s[:7] == "player:"]).items()}
    if seed is not None and not settings.SEEDS_AT_SHARED_TABLES:
        _check_seeded_table(player, specs)
    now = timezone.now()
    match = Match(
        variant=variant,
        options=checked,
        seed=seed,
        created_by=player,
        created_at=now,
        updated_at=now,
        invite_code="".join(secrets.choice(INVITE_ALPHABET) for _ in range(10)) if "open" in specs else "",
    )
    rows = [
        Seat(
            match=match,
            number=n,
            player=player if spec == "me" else registered.get(spec[7:]),
            bot=spec[4:] if spec.startswith("bot:") else "",
            joined_at=now if spec != "open" else None,
        )
        for n, spec in enumerate(specs)
    ]
    match.seating = adapter.seating_of(rows)
    match.save(force_insert=True)
    Seat.objects.bulk_create(rows)
    if "open" not in specs:
        _match_start(match)
    body = adapter.match_body(match, adapter.seat_in(match.seating, player.pk))
    return _reply(player, idempotency, Reply(201, body))


@transaction.atomic
def match_join(
    *,
    player: Player,
    match_id: UUID,
    invite_code: str,
    seat: int | None = None,
    idempotency: Idempotency | None = None,
) -> Reply:
    """The player takes an open seat; the match starts when its last open seat is taken."""
    if idempotency is not None and (first := _idempotent_reply(player, idempotency)):
        return first
    match = _locked(match_id)
    if turns.retired_bot(player.pk):  # retired while this request was on its way: its token is gone
        raise Forbidden("A retired bot takes no seat.", code=ErrorCode.UNKNOWN_BOT)
    typed = invite_code.lower().encode()  # as a person reads it out: in either case
    if not match.invite_code or not secrets.compare_digest(match.invite_code.encode(), typed):
        raise Forbidden("That is not the match's invite code.", code=ErrorCode.INVALID_INVITE_CODE)
    if adapter.seat_in(match.seating, player.pk) is not None:
        raise Conflict("You already sit at this match.", code=ErrorCode.ALREADY_SEATED)
    if match.status != MatchStatus.WAITING:
        raise Conflict(f"The match is {match.status}; it has no open seat.", code=ErrorCode.MATCH_NOT_WAITING)
    seats = selectors.seats_of(match)
    open_seats = [s for s in seats if s.kind == "open"]
    if seat is None:
        if not open_seats:
            raise Conflict("The match has no open seat.", code=ErrorCode.NO_OPEN_SEAT)
        taken = open_seats[0]
    else:
        if not 0 <= seat < len(seats):
            raise Unprocessable(
                f"Seats are numbered 0 to {len(seats) - 1}.", code=ErrorCode.INVALID_SEATS, field="seat"
            )
        taken = seats[seat]
        if taken.kind != "open":
            raise Conflict(f"Seat {seat} is taken.", code=ErrorCode.SEAT_TAKEN)
    now = timezone.now()
    taken.player, taken.joined_at = player, now
    taken.save(update_fields=["player", "joined_at"])
    match.seating, match.updated_at = adapter.seating_of(seats), now
    if len(open_seats) == 1:
        _match_start(match)
    else:
        on_commit_later(lambda: _announce(match.id))
    match.save(update_fields=["seating", "updated_at"])
    return _reply(player, idempotency, Reply(200, adapter.match_body(match, taken.number)))


@transaction.atomic
def match_act(
    *,
    player: Player,
    match_id: UUID,
    action: dict[str, Any],
    expected_seq: int | None = None,
    idempotency: Idempotency | None = None,
    own_move: bool = True,
) -> Reply:
    """The player's action, applied through the engine; 409/422 if the match or the rules refuse it.

    ``own_move`` False: the action is not a poll bot's own move to count in its stats: a webhook bot's
    reply, which its delivery counts (should the bot have turned to polling during the call), or a
    move the turn clock plays for the seat."""
    if idempotency is not None and (first := _idempotent_reply(player, idempotency)):
        return first
    match = _locked(match_id)
    seat = adapter.seat_in(match.seating, player.pk)
    if seat is None:
        if match.created_by_id != player.pk:
            raise NotFound()
        raise Forbidden("You watch this match; you have no seat to play.", code=ErrorCode.NOT_SEATED)
    if match.status != MatchStatus.ACTIVE:
        detail = "The match waits for players to join." if match.status == MatchStatus.WAITING else "The match is over."
        raise Conflict(f"{detail} It takes no actions (status {match.status}).", code=engine.Code.MATCH_NOT_ACTIVE)
    if expected_seq is not None and expected_seq != match.seq:
        _check_expected_seq(match, expected_seq)
    state = adapter.state_of(match)
    try:
        events = engine.push(state, seat, action)
    except engine.EngineError as exc:
        raise engine_error(exc) from None
    if own_move:
        turns.poll_action_record(player=player, match=match)  # a poll bot's move counts in its stats
    _record(match, state, events)
    return _reply(player, idempotency, Reply(200, adapter.match_body(match, seat, state)))


def _check_expected_seq(match: Match, expected_seq: int) -> None:
    """409 ``stale_seq`` unless the only events since ``expected_seq`` are the service's own (a seat
    disconnected or back), which change no card, bid or turn: a presence blip fails no action."""
    if expected_seq > match.seq:
        detail = f"The match is at seq {match.seq}; there is no seq {expected_seq} yet."
    elif selectors.moved_on(match, since=expected_seq):
        detail = f"The match has moved on: it is at seq {match.seq}, not {expected_seq}."
    else:
        return
    raise Conflict(detail, code=ErrorCode.STALE_SEQ, seq=match.seq)


@transaction.atomic
def match_cancel(*, player: Player, match_id: UUID) -> Reply:
    """The creator calls off a match that still waits for players."""
    match = _locked(match_id)
    seat = adapter.seat_in(match.seating, player.pk)
    if match.created_by_id != player.pk:
        if seat is None:
            raise NotFound()
        raise Forbidden("Only the match's creator may cancel it.", code="permission_denied")
    if match.status != MatchStatus.WAITING:
        raise Conflict(
            f"The match is {match.status}; only a waiting match may be cancelled.", code=ErrorCode.MATCH_NOT_WAITING
        )
    now = timezone.now()
    event = {"type": "match_cancelled", "seat": None, "data": {"reason": "cancelled_by_creator"}}
    rows = adapter.event_rows(match, [event], now)
    match.status, match.updated_at, match.finished_at = MatchStatus.CANCELLED, now, now
    Match.objects.save_with_events(match, rows, ["status", "seq", "updated_at", "finished_at"])
    on_commit_later(lambda: _announce(match.id))
    return Reply(200, adapter.match_body(match, seat))


# -- bots ---------------------------------------------------------------------------------------


@transaction.atomic
def bot_turns_play(*, match_id: UUID | str, seq: int) -> int:
    """Play the bots' turns from ``seq`` on until a human must act; returns the actions played.

    Idempotent: if the match has moved past ``seq`` (another task played, or a human acted), it
    does nothing. Each bot sees only its own seat's view of the table.
    """
    match = Match.objects.fetch(match_id, lock=True)
    if match is None or match.status != MatchStatus.ACTIVE or match.seq != seq:
        return 0
    state = adapter.state_of(match)
    events: list[engine.Event] = []
    played = 0
    while (level := adapter.bot_at(match.seating, engine.current_seat(state))) and played < BOT_TURNS_PER_TASK:
        seat = engine.current_seat(state)
        assert seat is not None
        rng = random.Random(f"{match.seed}:{seq}:{played}") if match.seed is not None else random.Random()
        action = choose_action(level, engine.view(state, seat), rng)
        events += engine.push(state, seat, action)
        played += 1
    if events:
        _record(match, state, events)
    return played


def bot_turns_sweep(*, idle_seconds: float = 30) -> int:
    """Queue bot turns that were lost (a broker down at the moment of queuing); returns how many."""
    cutoff = timezone.now() - timedelta(seconds=idle_seconds)
    stuck = Match.objects.filter(status=MatchStatus.ACTIVE, updated_at__lt=cutoff, turn__isnull=False)
    stuck = stuck.filter(seats__number=F("turn"), seats__bot__gt="").values_list("id", "seq")
    count = 0
    for match_id, seq in stuck:
        _queue_bot_turns(match_id, seq)
        count += 1
    return count


# -- idempotency --------------------------------------------------------------------------------


@transaction.atomic
def idempotent(*, player: Player, idempotency: Idempotency | None, run: Callable[[], Reply]) -> Reply:
    """``run()``'s reply, once per ``Idempotency-Key``: a retry with the key gets the first reply and
    runs nothing; the key with another request is 422 ``idempotency_key_reused``. An error that
    ``run`` raises changes nothing and is not kept, so a retry runs again."""
    if idempotency is not None and (first := _idempotent_reply(player, idempotency)):
        return first
    return _reply(player, idempotency, run())


# -- helpers ------------------------------------------------------------------------------------


def _locked(match_id: UUID) -> Match:
    match = Match.objects.fetch(match_id, lock=True)
    if match is None:
        raise NotFound()
    return match


def _check_seeded_table(player: Player, specs: list[str]) -> None:
    """Whoever knows a match's seed can compute every deal (C12), so a seeded match seats only its
    creator, built-in bots and the creator's own bots: nobody else plays against someone who knows
    their cards, unless the service allows seeds at shared tables (``SEEDS_AT_SHARED_TABLES``)."""
    bots = [spec[7:] for spec in specs if spec.startswith("player:")]
    others = "open" in specs or Bot.objects.filter(pk__in=bots).exclude(owner=player).exists()
    if others:
        raise Unprocessable(
            "Whoever knows the seed knows every deal: a seeded match seats only you, built-in bots and "
            "your own bots. Leave `seed` out to play with others.",
            code=ErrorCode.SEED_NOT_ALLOWED,
            field="seed",
        )


def _seat_specs(seats: list[Any], players: int, variant: str) -> list[str]:
    """Each seat spec as ``"me"``, ``"open"``, ``"bot:<level>"`` or ``"player:<id>"`` (a registered bot,
    docs/http-bots.md); 422 for anything else."""
    if len(seats) != players:
        counts = engine.variant_info(variant).players
        hint = f" For {len(seats)}, set options.players to {len(seats)}." if len(seats) in counts else ""
        raise Unprocessable(
            f"A {variant} match with these options has {players} seats, not {len(seats)}.{hint}",
            code=ErrorCode.INVALID_SEATS,
            field="seats",
        )
    # The registered bots' rows are locked (turns.registered_bot) in one order, by id, whatever their
    # seats: two creates seating the same bots in other orders would otherwise wait for each other.
    named = {s["bot"] for s in seats if isinstance(s, dict) and isinstance(s.get("bot"), str)} - set(LEVELS)
    registered = {bot_id: turns.registered_bot(bot_id) for bot_id in sorted(named)}
    specs = []
    for n, spec in enumerate(seats):
        field = f"seats[{n}]"
        if spec == {"player": "me"}:
            specs.append("me")
        elif spec == {"open": True}:
            specs.append("open")
        elif isinstance(spec, dict) and set(spec) == {"bot"} and isinstance(spec["bot"], str):
            if spec["bot"] in LEVELS:
                specs.append(f"bot:{spec['bot']}")
            elif (bot_player := registered[spec["bot"]]) is not None:
                if f"player:{bot_player.pk}" in specs:
                    raise Unprocessable("A bot takes one seat only.", code=ErrorCode.INVALID_SEATS, field=field)
                specs.append(f"player:{bot_player.pk}")
            else:
                raise Unprocessable(
                    f"No bot {spec['bot'][:50]!r}: the built-in bots are {', '.join(LEVELS)}, or give the id "
                    "of a registered bot.",
                    code=ErrorCode.UNKNOWN_BOT,
                    field=field,
                )
        else:
            raise Unprocessable(
                'A seat is {"player": "me"}, {"open": true} or {"bot": "<level or bot id>"}.',
                code=ErrorCode.INVALID_SEATS,
                field=field,
            )
    if specs.count("me") > 1:
        raise Unprocessable("You may take one seat only.", code=ErrorCode.INVALID_SEATS, field="seats")
    return specs


def _match_start(match: Match) -> None:
    """Deal the first hand (every seat is filled)."""
    step = engine.new_match(match.variant, match.options, seed=match.seed)
    match.status = MatchStatus.ACTIVE
    match.started_at = timezone.now()
    _record(match, step.state, step.events)


def _record(match: Match, state: engine.State, events: list[engine.Event]) -> None:
    """Append the events to the log, write the hands, save the snapshot; wake and queue on commit."""
    now = timezone.now()
    rows = adapter.event_rows(match, events, now)
    started = {hand.number: hand for hand in adapter.hands_started(match, rows)}
    for number, result, seq in adapter.hands_finished(rows):
        if number in started:  # dealt and ended in this batch (bots playing a whole hand, a tute on the deal)
            started[number].result, started[number].finished_seq = result, seq
        else:
            Hand.objects.filter(match=match, number=number).update(result=result, finished_seq=seq)
    if started:
        Hand.objects.bulk_create(started.values())
    adapter.update_from_state(match, state, now)
    fields = ["status", "seq", "turn", "state", "updated_at", "started_at", "finished_at"]
    Match.objects.save_with_events(match, rows, fields)
    match_id, seq, turn = match.id, match.seq, match.turn
    bot_next = adapter.bot_at(match.seating, turn) is not None
    on_commit_later(lambda: _announce(match_id))
    if bot_next:
        on_commit_later(lambda: _queue_bot_turns(match_id, seq))
    turns.after_record(match)  # a registered bot or a player to act: wake their polls, call a webhook


def event_append(match: Match, event: engine.Event, now: datetime) -> None:
    """Append one event of the service's own (presence, a turn clock: no move) to the log with the
    next seq, in the caller's transaction, and announce it on commit.

    ``updated_at`` is left alone: it dates the latest move, which the turn clock counts from. A bot
    turn queued at the old seq would find the match moved on, so it is queued again."""
    Match.objects.save_with_events(match, adapter.event_rows(match, [event], now), ["seq"])
    match_id, seq = match.id, match.seq
    on_commit_later(lambda: _announce(match_id))
    if match.status == MatchStatus.ACTIVE and adapter.bot_at(match.seating, match.turn):
        on_commit_later(lambda: _queue_bot_turns(match_id, seq))


def _announce(match_id: UUID) -> None:
    try:
        live.publish(live.match_channel(match_id))
    except Exception:  # waiters time out and read again; the news is in the database
        logger.exception("Could not announce news of match %s", match_id)


def _queue_bot_turns(match_id: UUID, seq: int) -> None:
    try:
        tasks.play_bot_turns.delay(str(match_id), seq)
    except BrokerError:  # the sweep (tasks.sweep_bot_turns) queues it again later
        logger.exception("Could not queue the bot turns of match %s at seq %s", match_id, seq)


def _idempotent_reply(player: Player, idempotency: Idempotency) -> Reply | None:
    """The first answer to this key, if any; 422 if the key came with another request."""
    Player.objects.lock(player.pk)  # one keyed request at a time
    record = IdempotencyRecord.objects.filter(player=player, key=idempotency.key).first()
    if record is None:
        return None
    if (record.method, record.path, record.request_hash) != (
        idempotency.method,
        idempotency.path,
        idempotency.request_hash,
    ):
        raise Unprocessable(
            "This Idempotency-Key was used with another request; use a new key for a new request.",
            code=ErrorCode.IDEMPOTENCY_KEY_REUSED,
        )
    return Reply(record.status_code, record.body, replayed=True)


def idempotency_records_purge(*, now: datetime | None = None) -> int:
    """Delete the recorded answers older than ``IDEMPOTENCY_KEY_HOURS``; returns how many."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted


def _reply(player: Player, idempotency: Idempotency | None, reply: Reply) -> Reply:
    if idempotency is not None:
        IdempotencyRecord.objects.create(
            player=player,
            key=idempotency.key,
            method=idempotency.method,
            path=idempotency.path,
            request_hash=idempotency.request_hash,
            status_code=reply.status,
            body=reply.body,
        )
    return reply
