"""Writes of the matches: create and join them, act, record the turn takers' moves, cancel.

Every service runs in one transaction and locks the match row (:meth:`MatchManager.fetch` with
``lock=True``) before it reads the match, so that actions on one match are applied one at a time,
in ``seq`` order. An action is applied through the engine; its events are appended to the log and
the snapshot saved; once the transaction commits, the layers above are told (:mod:`.news`): they
wake the waiting requests and hand the next turn to whoever takes it.

Services return the game's objects (a :class:`~.selectors.Membership`, a :class:`Played`); the
API builds the bodies (:mod:`.bodies`).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from games import engine
from games.bots import LEVELS
from games.ratings.services import Sitter, is_rated, ratings_record
from players.models import Bot, Player
from players.selectors import bot_player_locked, retired_bot
from tute_api.rows import copied, insert

from . import kept, moves, news, records, selectors
from .errors import Conflict, ErrorCode, Forbidden, NotFound, Unprocessable, engine_error
from .models import Hand, Match, MatchStatus, Seat
from .selectors import Membership

logger = logging.getLogger(__name__)

INVITE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


@dataclass(frozen=True)
class Played:
    """An action applied: the match right after it, the seat that acted, the engine state then and the
    action's events; ``latest`` and ``latest_state``: the match as saved, with the turns of the quick bots
    recorded with the action (the same as ``match`` and ``state`` when none followed)."""

    match: Match
    seat: int
    state: engine.State
    events: list[engine.Event]
    latest: Match
    latest_state: engine.State


# -- matches ------------------------------------------------------------------------------------


@transaction.atomic
def match_create(
    *,
    player: Player,
    variant: str,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    seats: list[Any],
    public: bool = False,
    rated: bool = True,
    client_seed: str | None = None,
    first_dealer: int | None = None,
) -> Membership:
    """A new match; it starts at once when no seat is open, else waits for players to join.
    ``public``: any player may watch it (M5). ``rated``: false for a friendly match, which counts as
    played but changes no rating (docs/ratings.md). ``first_dealer``: the seat that deals first (the service's
    own matches, such as the ladder's, L1); drawn otherwise (C11, C12v). Not an option of the API.

    C12v: a match without a ``seed`` draws its secret deal key and its commitment first of all, before
    it uses anything of the request (the key depends on none of it); the creator's ``client_seed`` is
    then stored for their seat (docs/fair-deals.md says what that ordering proves)."""
    deal_key = engine.fair_deals.new_key() if seed is None else None
    commitment = engine.fair_deals.commitment(deal_key) if deal_key is not None else ""
    try:
        checked = engine.validate_options(variant, options)
    except engine.EngineError as exc:
        raise engine_error(exc) from None
    specs = _seat_specs(seats, engine.player_count(variant, checked), variant)
    if "me" in specs and f"player:{player.pk}" in specs:
        raise Unprocessable("You may take one seat only.", code=ErrorCode.INVALID_SEATS, field="seats")
    registered = {str(k): v for k, v in Player.objects.in_bulk([s[7:] for s in specs if s[:7] == "player:"]).items()}
    if seed is not None and not settings.SEEDS_AT_SHARED_TABLES:
        _check_seeded_table(player, specs)
    if client_seed is not None:
        _check_client_seed(seed, "me" in specs)
    now = timezone.now()
    match = Match(
        variant=variant,
        options=checked,
        seed=seed,
        public=public,
        rated=rated,
        deal_key=deal_key.hex() if deal_key is not None else "",
        deal_commitment=commitment,
        client_seeds=[client_seed if spec == "me" else None for spec in specs] if deal_key is not None else [],
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
    match.seating = records.seating_of(rows)
    # Plain SQL, held (tute_api.rows): sent with the transaction's next statement (the start's save, or
    # the COMMIT of a match that waits for players), not compiled by the ORM nor sent alone.
    insert(Match, [match], held=True)
    insert(Seat, rows, held=True)
    seat = records.seat_in(match.seating, player.pk)
    if "open" in specs:
        return Membership(match, seat, None)
    shown, state = _match_start(match, first_dealer=first_dealer)
    return Membership(shown, seat, state)


@transaction.atomic
def match_join(
    *, player: Player, match_id: UUID, invite_code: str, seat: int | None = None, client_seed: str | None = None
) -> Membership:
    """The player takes an open seat; the match starts when its last open seat is taken.

    ``client_seed`` (C12v): the joiner's contribution to the deals, given after the match's
    commitment was published (in the create answer and every view of the match)."""
    match = match_locked(match_id)
    if retired_bot(player.pk):  # retired while this request was on its way: its token is gone
        raise Forbidden("A retired bot takes no seat.", code=ErrorCode.UNKNOWN_BOT)
    typed = invite_code.lower().encode()  # as a person reads it out: in either case
    if not match.invite_code or not secrets.compare_digest(match.invite_code.encode(), typed):
        if selectors.membership_of(match, player) is None:
            raise NotFound()  # as a GET of the match: a wrong code tells a stranger nothing, not that it exists
        raise Forbidden("That is not the match's invite code.", code=ErrorCode.INVALID_INVITE_CODE)
    if records.seat_in(match.seating, player.pk) is not None:
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
    if client_seed is not None:
        _check_client_seed(match.seed, True)
    now = timezone.now()
    taken.player, taken.joined_at = player, now
    taken.save(update_fields=["player", "joined_at"])
    match.seating, match.updated_at = records.seating_of(seats), now
    if match.deal_key:
        match.client_seeds = records.seeds_with(match.client_seeds, len(seats), taken.number, client_seed)
    fields = ["seating", "updated_at", "client_seeds"]
    if len(open_seats) == 1:
        shown, state = _match_start(match)
        match.save(update_fields=fields)
        return Membership(shown, taken.number, state)
    match_save(match, [], fields, moved=False)
    return Membership(match, taken.number, None)


@transaction.atomic
def match_act(
    *,
    player: Player,
    match_id: UUID,
    action: dict[str, Any],
    expected_seq: int | None = None,
    stand_in: bool = False,
) -> Played:
    """The player's action, applied through the engine; 409/422 if the match or the rules refuse it.

    ``stand_in``: the move is not the player's own but made for their seat (a webhook bot's reply,
    which its delivery counts; a turn clock's move): the news names no one who moved."""
    match = match_locked(match_id)
    seat = records.seat_in(match.seating, player.pk)
    if seat is None:
        if match.created_by_id != player.pk and not match.public:
            raise NotFound()
        raise Forbidden("You watch this match; you have no seat to play.", code=ErrorCode.NOT_SEATED)
    if match.status != MatchStatus.ACTIVE:
        detail = "The match waits for players to join." if match.status == MatchStatus.WAITING else "The match is over."
        raise Conflict(f"{detail} It takes no actions (status {match.status}).", code=engine.Code.MATCH_NOT_ACTIVE)
    if expected_seq is not None and expected_seq != match.seq:
        _check_expected_seq(match, expected_seq)
    state = records.state_of(match)
    turn_seq, turn_began = match.seq, match.updated_at  # where the turn stood, and since when
    try:
        events = engine.push(state, seat, action)
    except engine.EngineError as exc:
        raise engine_error(exc) from None
    mover = None if stand_in else news.Mover(str(player.pk), turn_seq, turn_began, timezone.now())
    shown, latest_state = _moves_record_with_quick_bots(match, state, events, mover=mover)
    return Played(shown, seat, state, events, match, latest_state)


def _moves_record_with_quick_bots(
    match: Match, state: engine.State, events: list[engine.Event], *, mover: news.Mover | None = None
) -> tuple[Match, engine.State]:
    """Record a player's move (an action, a match's start) with the turns of the quick built-in bots that
    follow it (:func:`_quick_bots_after`), in this transaction: ``match`` is then saved as it stands after
    them. Returns the match right after the move, as its answer shows it (the bots' events follow it in
    the log; ``match`` itself when no bot followed), and the state after the bots' turns."""
    followed = _quick_bots_after(match, state, events)
    if followed is None:
        moves_record(match, state, events, mover=mover)
        return match, state
    shown = copied(match)
    shown.seq, shown.turn = match.seq + len(events), engine.current_seat(state)
    after, bot_events = followed
    moves_record(match, after, [*events, *bot_events], mover=mover)
    shown.updated_at = match.updated_at
    return shown, after


def _quick_bots_after(
    match: Match, state: engine.State, events: list[engine.Event]
) -> tuple[engine.State, list[engine.Event]] | None:
    """The turns of the quick built-in bots (``settings.BOT_LEVELS_IN_PROCESS``) that follow a player's
    move (an action, a match's start), played in its transaction on a copy of ``state``, at most
    ``moves.BOTS_PER_RUN``: the state after them and their events; None when no such bot is to act, or when
    their play failed (the news of the move then hands the turn on).

    Their decision costs microseconds; played here, they save a transaction, a read of the match and a
    wake of the waiting requests per action (docs/performance.md)."""
    quick = settings.BOT_LEVELS_IN_PROCESS
    if state.status != "active" or moves.next_bot(match, state) not in quick:
        return None
    try:
        after = state.copy()
        bot_events, _ = moves.bots_play(
            match, after, seq=match.seq + len(events), levels=quick, limit=moves.BOTS_PER_RUN
        )
    except Exception:  # noqa: BLE001 - a bot's failure fails no player's action: its turn is handed on
        logger.warning("The quick bots after a move in match %s failed; handed on", match.pk, exc_info=True)
        return None
    return after, bot_events


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
def match_cancel(*, player: Player, match_id: UUID) -> Membership:
    """The creator calls off a match that still waits for players."""
    match = match_locked(match_id)
    seat = records.seat_in(match.seating, player.pk)
    if match.created_by_id != player.pk:
        if seat is None and not match.public:
            raise NotFound()
        raise Forbidden("Only the match's creator may cancel it.", code="permission_denied")
    if match.status != MatchStatus.WAITING:
        raise Conflict(
            f"The match is {match.status}; only a waiting match may be cancelled.", code=ErrorCode.MATCH_NOT_WAITING
        )
    match_cancel_record(match=match, data={"reason": "cancelled_by_creator"}, now=timezone.now())
    return Membership(match, seat)


# -- what the turn takers record --------------------------------------------------------------------


def match_locked(match_id: UUID | str) -> Match:
    """The match, locked until the transaction ends (the one lock-and-load of a match); 404 if none."""
    match = Match.objects.fetch(match_id, lock=True)
    if match is None:
        raise NotFound()
    return match


def moves_record(
    match: Match, state: engine.State, events: list[engine.Event], *, mover: news.Mover | None = None
) -> None:
    """Record moves of a locked match: append their events to the log, write the hands, save the
    snapshot (:func:`match_save`; ``mover``: the player whose own action it was). The moves that finish
    the match also write its ratings (:func:`_ratings_events`)."""
    now = timezone.now()
    if state.status == "finished" and match.status != MatchStatus.FINISHED:
        events = [*events, *_ratings_events(match, state)]
    rows = records.event_rows(match, events, now)
    started = {hand.number: hand for hand in records.hands_started(match, rows)}
    for number, result, seq in records.hands_finished(rows):
        if number in started:  # dealt and ended in this batch (bots playing a whole hand, a tute on the deal)
            started[number].result, started[number].finished_seq = result, seq
        else:
            Hand.objects.filter(match=match, number=number).update(result=result, finished_seq=seq)
    records.update_from_state(match, state, now)
    fields = ["status", "seq", "turn", "state", "updated_at", "started_at", "finished_at"]
    match_save(match, [*rows, *started.values()], fields, moved=True, mover=mover)


def match_save(
    match: Match, rows: list[Model], fields: list[str], *, moved: bool, mover: news.Mover | None = None
) -> None:
    """Save the ``fields`` of a locked match and insert ``rows`` (its new events, hands), with what the
    layers above write beside the change (``settings.MATCH_RECORDERS``), in one statement; tell them once
    it commits (``settings.MATCH_LISTENERS``), and keep the row for the long polls that follow (:mod:`.kept`).
    ``moved``: a move made the change (:class:`news.MatchNews`)."""
    told = news.MatchNews.of(match, moved=moved, mover=mover)
    Match.objects.save_with_events(match, [*rows, *news.recorded(told)], fields)
    kept.keep(match)
    news.tell_on_commit(told)


def _ratings_events(match: Match, state: engine.State) -> list[engine.Event]:
    """The match just finished: count it for its players and rate it if rated (docs/ratings.md), in this
    transaction; a ``ratings_updated`` event of the service's own follows ``match_finished`` if rated."""
    sitters = [Sitter(player=s["player"]["id"] if s["player"] else None, bot=s["bot"]) for s in match.seating]
    changes = ratings_record(
        variant=match.variant,
        options=match.options,
        sitters=sitters,
        scoreboard=list(state.scoreboard),
        winners=list(state.winners or []),
        rated=match.rated and is_rated(seeded=match.seed is not None, cancelled=False, sitters=sitters),
    )
    return [] if changes is None else [{"type": "ratings_updated", "seat": None, "data": {"seats": changes}}]


def event_append(match: Match, event: engine.Event, now: datetime) -> None:
    """Append one event of the service's own (presence, a turn clock: no move) to a locked match's
    log with the next seq, in the caller's transaction, and announce it on commit.

    ``updated_at`` is left alone: it dates the latest move, which the turn clock counts from."""
    match_save(match, records.event_rows(match, [event], now), ["seq"], moved=False)


def match_cancel_record(*, match: Match, data: dict[str, Any], now: datetime) -> None:
    """Cancel a locked match: a ``match_cancelled`` event saying why (``data``) and the status, in one
    statement; announced on commit. The creator's cancel and an abandoned seat's (M2) both end so."""
    rows = records.event_rows(match, [{"type": "match_cancelled", "seat": None, "data": data}], now)
    match.status, match.updated_at, match.finished_at = MatchStatus.CANCELLED, now, now
    match_save(match, rows, ["status", "seq", "updated_at", "finished_at"], moved=False)


# -- helpers ------------------------------------------------------------------------------------


def _check_seeded_table(player: Player, specs: list[str]) -> None:
    """Whoever knows a match's seed can compute every deal (C12), so a seeded match seats only its
    creator, built-in bots and the creator's own bots: nobody else plays against someone who knows
    their cards, unless the service allows seeds at shared tables (``SEEDS_AT_SHARED_TABLES``)."""
    bots = [spec[7:] for spec in specs if spec.startswith("player:")]
    others = "open" in specs or Bot.objects.filter(pk__in=bots).exclude(owner=player).exists()
    if others:
        raise Unprocessable(
            "Whoever knows the seed knows every deal: a seeded match seats only you, built-in bots and "
            "your own bots. Leave the seed out to play with others.",
            code=ErrorCode.SEED_NOT_ALLOWED,
            field="seed",
        )


def _check_client_seed(seed: int | None, seated: bool) -> None:
    """422 for a ``client_seed`` that would count for nothing: a seeded match deals from its seed alone
    (C12), and a creator who watches has no seat to give one for."""
    if seed is not None:
        raise Unprocessable(
            "A seeded match deals from its seed alone (C12): leave out the client seed, or the seed.",
            code=ErrorCode.CLIENT_SEED_NOT_ALLOWED,
            field="client_seed",
        )
    if not seated:
        raise Unprocessable(
            "A client seed is a seated player's contribution to the deals (C12v); you take no seat.",
            code=ErrorCode.CLIENT_SEED_NOT_ALLOWED,
            field="client_seed",
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
    # The registered bots' rows are locked (bot_player_locked) in one order, by id, whatever their
    # seats: two creates seating the same bots in other orders would otherwise wait for each other.
    named = {s["bot"] for s in seats if isinstance(s, dict) and isinstance(s.get("bot"), str)} - set(LEVELS)
    registered = {bot_id: bot_player_locked(bot_id) for bot_id in sorted(named)}
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


def _match_start(match: Match, *, first_dealer: int | None = None) -> tuple[Match, engine.State]:
    """Deal the first hand (every seat is filled): from the seed (C12), or from the deal key and the
    seats' client seeds (C12v); ``first_dealer`` when the service fixes who deals (the ladder, L1). The
    quick bots' turns that follow are recorded with it: the match as dealt, and its state."""
    key = bytes.fromhex(match.deal_key) if match.deal_key else None
    seeds = records.seeds_with(match.client_seeds, len(match.seating)) if key is not None else ()
    step = engine.new_match(
        match.variant, match.options, seed=match.seed, deal_key=key, client_seeds=seeds, first_dealer=first_dealer
    )
    match.status = MatchStatus.ACTIVE
    match.started_at = timezone.now()
    return _moves_record_with_quick_bots(match, step.state, step.events)[0], step.state
