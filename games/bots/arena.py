"""Duplicate-deal matches between two bots: who wins more hands, by how much, and how fast they decide.

Each deal is played twice with the same cards and dealer, the bots' seats swapped, so that luck of the
cards cancels out. Bot ``a`` takes the even seats in the first game of a deal and the odd seats in the
second (in the games of pairs, one pair each). Only single hands are played, never whole matches.

A deal is also scored as a board, as in duplicate bridge: ``a`` wins the board when its two hands
together scored more points than ``b``'s, that is, when it did better than ``b`` with the same
cards (a tie counts half). The hands won measure who won; the boards measure who played better,
since the luck of the deal cancels out in them.

A hand is won by the side that wins it under its variant's rule: the hand's winner (CL4, IN3, D6), the
soloist or the defenders by whether the bid was made (SU5), the pair with more points (SP3), or in
cabrón every player who is not a loser (CB4). When both bots have a winning seat, or neither, the hand
is a draw and counts half to each.

    report = run_arena("dos", {}, "level-3", "level-2", deals=200, seed=1)
"""

from __future__ import annotations

import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from games.engine import State, new_match, push, rules_for, validate_options, view
from games.engine.cards import cards_of

from . import make_policy
from .oracle import NAME as ORACLE
from .oracle import oracle_action


@dataclass
class GameRecord:
    """One hand of one deal: which bot won, the point margin of ``a`` and each bot's decision times."""

    deal: int
    swapped: bool
    score_a: float  # 1 won, 0 lost, 0.5 draw
    margin_a: int
    times: dict[str, list[float]] = field(default_factory=dict)
    choice_times: dict[str, list[float]] = field(default_factory=dict)  # decisions with more than one action


def _deck(variant: str, options: dict[str, Any], seed: int, deal: int) -> list[int]:
    deck = cards_of(rules_for(variant, options).deck)
    random.Random(f"arena:{seed}:{deal}").shuffle(deck)
    return deck


def winning_seats(state: State, result: dict[str, Any]) -> set[int]:
    """The seats that won the hand just scored (see the module's docstring); empty for a passed hand."""
    rules = state.rules
    n = state.players
    if result.get("passed"):
        return set()
    if state.variant == "cabron":
        return {s for s in range(n) if s not in result["losers"]}
    if state.variant == "subastado":
        soloist = result["soloist"]
        return {soloist} if result["made"] else {s for s in range(n) if s != soloist}
    if state.variant == "subastado_parejas":
        gains = result["gains"]
        if gains[0] == gains[1]:
            return set()
        side = 0 if gains[0] > gains[1] else 1
    else:
        side = result["winner"]
    return {s for s in range(n) if rules.side_of(s) == side}


def _points_of_seats(state: State, result: dict[str, Any], seats: list[int]) -> int:
    rules = state.rules
    points = result.get("points")
    if points is None:
        return 0
    sides = {rules.side_of(s) for s in seats}
    return sum(points[side] for side in sides)


def play_game(
    variant: str, options: dict[str, Any], seed: int, deal: int, swapped: bool, spec_a: str, spec_b: str
) -> GameRecord:
    """One hand of deal number ``deal``, bot ``a`` on the even seats (the odd ones when ``swapped``)."""
    checked = validate_options(variant, options)
    n = rules_for(variant, checked).players
    deck = _deck(variant, checked, seed, deal)
    state = new_match(variant, checked, first_dealer=deal % n, decks=[deck]).state
    roles = ["a" if (s % 2 == 0) != swapped else "b" for s in range(n)]
    policies = {"a": bot_policy(spec_a), "b": bot_policy(spec_b)}
    rngs = [random.Random(f"arena:{seed}:{deal}:{int(swapped)}:{s}") for s in range(n)]
    times: dict[str, list[float]] = {"a": [], "b": []}
    choice_times: dict[str, list[float]] = {"a": [], "b": []}
    while state.status == "active" and state.hand_number == 1:
        seat = state.turn
        seen = view(state, seat)
        start = time.perf_counter()
        policy = policies[roles[seat]]
        action = oracle_action(state, seat) if policy is None else policy(seen, rngs[seat])
        spent = time.perf_counter() - start
        times[roles[seat]].append(spent)
        if len(seen["legal_actions"]) > 1:
            choice_times[roles[seat]].append(spent)
        push(state, seat, action)
    result = state.results[0]
    won = winning_seats(state, result)
    a_seats = [s for s in range(n) if roles[s] == "a"]
    b_seats = [s for s in range(n) if roles[s] == "b"]
    a_won, b_won = bool(won & set(a_seats)), bool(won & set(b_seats))
    score = 0.5 if a_won == b_won else float(a_won)
    margin = _points_of_seats(state, result, a_seats) - _points_of_seats(state, result, b_seats)
    return GameRecord(deal, swapped, score, margin, times, choice_times)


def bot_policy(spec: str) -> Any:
    """The bot a spec names (KeyError or ValueError if none); None for the oracle, which reads the
    whole state (``oracle.py``)."""
    return None if spec == ORACLE else make_policy(spec)


def _play_deal(args: tuple[str, dict[str, Any], int, int, str, str]) -> list[GameRecord]:
    variant, options, seed, deal, spec_a, spec_b = args
    return [play_game(variant, options, seed, deal, swapped, spec_a, spec_b) for swapped in (False, True)]


def share_interval(values: list[float], z: float = 1.96) -> tuple[float, float]:
    """The 95% interval of a share, from one value in [0, 1] per deal (its hands' or its board's score).

    From 30 deals on, and when they are not all alike, the normal interval of the deals' mean (the two
    hands of a deal are not independent, so the deals are the samples). Otherwise Wilson's score
    interval with one trial a deal, which a value in [0, 1] with the same mean cannot be more spread
    than: it does not shrink to a point when every deal scored the same, nor cross 0 or 1."""
    n = len(values)
    if n == 0:
        return 0.0, 1.0
    p = statistics.fmean(values)
    if n >= 30 and (spread := statistics.stdev(values)) > 0:
        half = z * spread / math.sqrt(n)
        return max(0.0, p - half), min(1.0, p + half)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Report:
    """What :func:`run_arena` measured."""

    variant: str
    options: dict[str, Any]
    a: str
    b: str
    deals: int
    seed: int
    games: list[GameRecord]
    seconds: float

    def summary(self) -> dict[str, Any]:
        hands = len(self.games)
        won_a = sum(1 for g in self.games if g.score_a == 1)
        won_b = sum(1 for g in self.games if g.score_a == 0)
        draws = hands - won_a - won_b
        rate = sum(g.score_a for g in self.games) / hands if hands else 0.0
        # The two games of a deal are not independent: the interval comes from the deals' means.
        by_deal: dict[int, list[float]] = {}
        margins_by_deal: dict[int, list[int]] = {}
        for g in self.games:
            by_deal.setdefault(g.deal, []).append(g.score_a)
            margins_by_deal.setdefault(g.deal, []).append(g.margin_a)
        means = [sum(v) / len(v) for v in by_deal.values()]
        boards = [statistics.fmean(v) for v in margins_by_deal.values()]
        board_scores = [1.0 if m > 0 else 0.0 if m < 0 else 0.5 for m in boards]
        board_rate = statistics.fmean(board_scores) if board_scores else 0.0
        margins = [g.margin_a for g in self.games]
        margin_half = 1.96 * statistics.stdev(boards) / math.sqrt(len(boards)) if len(boards) > 1 else None
        out: dict[str, Any] = {
            "variant": self.variant,
            "options": self.options,
            "a": self.a,
            "b": self.b,
            "deals": self.deals,
            "hands": hands,
            "seed": self.seed,
            "won_a": won_a,
            "won_b": won_b,
            "draws": draws,
            "win_rate_a": round(rate, 4),
            "ci95_a": [round(bound, 4) for bound in share_interval(means)],
            "boards_won_a": board_scores.count(1.0),
            "boards_won_b": board_scores.count(0.0),
            "boards_tied": board_scores.count(0.5),
            "board_rate_a": round(board_rate, 4),
            "board_ci95_a": [round(bound, 4) for bound in share_interval(board_scores)],
            "mean_margin_a": round(statistics.fmean(margins), 2) if margins else 0.0,
            "margin_ci95_a": round(margin_half, 2) if margin_half is not None else None,
            "seconds": round(self.seconds, 1),
        }
        for role in ("a", "b"):
            timing = _timing([t for g in self.games for t in g.times.get(role, [])])
            choices = _timing([t for g in self.games for t in g.choice_times.get(role, [])])
            timing["choice_decisions"] = choices["decisions"]
            timing["choice_median_ms"] = choices["median_ms"]
            timing["choice_p95_ms"] = choices["p95_ms"]
            out[f"time_{role}"] = timing
        return out


def _timing(samples: list[float]) -> dict[str, Any]:
    if not samples:
        return {"decisions": 0, "median_ms": 0.0, "p95_ms": 0.0, "max_ms": 0.0}
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return {
        "decisions": len(ordered),
        "median_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(p95 * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


def run_arena(
    variant: str,
    options: dict[str, Any] | None,
    a: str,
    b: str,
    *,
    deals: int,
    seed: int = 1,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Play ``deals`` duplicate deals (two hands each) between bots ``a`` and ``b``."""
    checked = validate_options(variant, options)
    bot_policy(a), bot_policy(b)  # refuse an unknown bot before starting
    jobs = [(variant, dict(options or {}), seed, deal, a, b) for deal in range(deals)]
    games: list[GameRecord] = []
    start = time.perf_counter()
    results: Iterator[list[GameRecord]]
    pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
    try:
        results = pool.imap(_play_deal, jobs) if pool is not None else map(_play_deal, jobs)
        for done, pair in enumerate(results, 1):
            games.extend(pair)
            if progress is not None:
                progress(done, deals)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return Report(variant, checked, a, b, deals, seed, games, time.perf_counter() - start)


def progress_bar(write: Callable[[str], Any] | None = None, width: int = 30) -> Callable[[int, int], None]:
    """A progress bar redrawn in place by ``write`` (standard error by default)."""
    out = write if write is not None else _stderr
    started = time.perf_counter()

    def show(done: int, total: int) -> None:
        filled = width * done // total
        elapsed = time.perf_counter() - started
        eta = elapsed / done * (total - done) if done else 0.0
        end = "\n" if done == total else ""
        out(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} deals, {elapsed:.0f}s, eta {eta:.0f}s{end}")

    return show


def _stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def _time_line(bot: str, t: dict[str, Any]) -> str:
    line = f"time per decision, {bot}: median {t['median_ms']} ms, p95 {t['p95_ms']} ms ({t['decisions']} decisions)"
    if "choice_median_ms" in t:
        line += (
            f"; with a choice to make: median {t['choice_median_ms']} ms, p95 {t['choice_p95_ms']} ms"
            f" ({t['choice_decisions']})"
        )
    return line


def format_report(summary: dict[str, Any]) -> str:
    """The summary as a few lines of text."""
    s = summary
    lo, hi = s["ci95_a"]
    return "\n".join([
        f"{s['variant']} {s['options']}: {s['a']} vs {s['b']}, {s['deals']} duplicate deals ({s['hands']} hands),"
        f" seed {s['seed']}, {s['seconds']}s",
        f"hands won: {s['a']} {s['won_a']}, {s['b']} {s['won_b']}, draws {s['draws']}",
        f"{s['a']} wins {100 * s['win_rate_a']:.1f}% of hands (95% CI {100 * lo:.1f}%–{100 * hi:.1f}%)",
        f"duplicate boards (more points than the other with the same cards): {s['a']} {s['boards_won_a']},"
        f" {s['b']} {s['boards_won_b']}, tied {s['boards_tied']}; {s['a']} wins {100 * s['board_rate_a']:.1f}%"
        f" (95% CI {100 * s['board_ci95_a'][0]:.1f}%–{100 * s['board_ci95_a'][1]:.1f}%)",
        f"mean point margin of {s['a']}: {s['mean_margin_a']:+.1f}"
        + (f" (±{s['margin_ci95_a']:.1f})" if s["margin_ci95_a"] is not None else " (one deal: no interval)"),
        *(_time_line(s[key], s[role]) for key, role in (("a", "time_a"), ("b", "time_b"))),
    ])
