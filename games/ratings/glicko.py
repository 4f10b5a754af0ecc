"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013) as pure arithmetic: no Django.

A rating is ``(rating, deviation, volatility)`` on the Glicko scale (1500, 350, 0.06 for a newcomer);
:func:`update` rates one rating period, a list of games against opponents whose ratings are taken as
they were before the period. :func:`elo_difference` turns a measured win rate into a rating difference
(the scale's logistic curve with the opponent's deviation at zero), which anchors the built-in bots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALE = 173.7178  # 400 / ln(10): Glicko-2's step 2
BASE = 1500.0
EPSILON = 0.000001  # the volatility iteration's tolerance (step 5)


@dataclass(frozen=True)
class Glicko:
    """A rating on the Glicko scale: ``rating``, its ``deviation`` (RD) and ``volatility`` (sigma)."""

    rating: float = BASE
    deviation: float = 350.0
    volatility: float = 0.06


@dataclass(frozen=True)
class Game:
    """One game of a rating period: the opponent's rating before it and the score (1, 0.5 or 0)."""

    opponent: Glicko
    score: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(
    player: Glicko, games: list[Game], *, tau: float = 0.5, max_deviation: float = 350.0, min_deviation: float = 0.0
) -> Glicko:
    """The player's rating after a rating period of ``games`` (Glickman's steps 2 to 8).

    With no games only the deviation grows (step 6). The deviation is kept within
    ``[min_deviation, max_deviation]``."""
    mu, phi, sigma = (player.rating - BASE) / SCALE, player.deviation / SCALE, player.volatility
    if not games:
        grown = math.sqrt(phi * phi + sigma * sigma) * SCALE
        return Glicko(player.rating, min(max(grown, min_deviation), max_deviation), sigma)
    v_inv, total = 0.0, 0.0
    for game in games:
        mu_j, phi_j = (game.opponent.rating - BASE) / SCALE, game.opponent.deviation / SCALE
        g, e = _g(phi_j), _expected(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        total += g * (game.score - e)
    v = 1.0 / v_inv
    sigma_new = _volatility(phi, sigma, v * total, v, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    deviation = min(max(phi_new * SCALE, min_deviation), max_deviation)
    return Glicko(mu_new * SCALE + BASE, deviation, sigma_new)


def composite(side: list[Glicko]) -> Glicko:
    """One opponent standing for a side of several: the mean rating and the root mean square deviation."""
    n = len(side)
    rating = sum(r.rating for r in side) / n
    deviation = math.sqrt(sum(r.deviation * r.deviation for r in side) / n)
    return Glicko(rating, deviation, sum(r.volatility for r in side) / n)


def elo_difference(win_rate: float) -> float:
    """The rating difference at which the stronger side wins ``win_rate`` of its games:
    ``400 * log10(p / (1 - p))``, the inverse of the scale's expected score with no deviation."""
    return 400.0 * math.log10(win_rate / (1.0 - win_rate))
