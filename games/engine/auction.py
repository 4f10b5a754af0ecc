"""The auction of the subastado variants (SU2, SU3, SP1, SP2)."""

from __future__ import annotations

from .errors import Code, IllegalAction
from .state import Rules, State

MAX_BID = 230


def bid_amounts(state: State, variant: Rules) -> range:
    """Every bid the seat to act may make: on the steps from ``min_bid``, above the highest so far."""
    step, lowest = variant.options["bid_step"], variant.options["min_bid"]
    assert isinstance(step, int) and isinstance(lowest, int)
    start = state.high_bid + step if state.high_bid else lowest
    return range(start, MAX_BID + 1, step)


def check_bid(state: State, variant: Rules, amount: int) -> None:
    """Refuse a bid that is not one of :func:`bid_amounts`, naming why."""
    amounts = bid_amounts(state, variant)
    if amount in amounts:
        return
    rule = "SP1" if variant.pairs else "SU2"
    if amount < amounts.start:
        floor = f"above {state.high_bid}" if state.high_bid else f"at least {amounts.start}"
        raise IllegalAction(Code.BID_TOO_LOW, f"a bid of {amount} is too low: bid {floor}", rule=rule)
    raise IllegalAction(
        Code.INVALID_BID,
        f"a bid of {amount} is not allowed: bids go from {variant.options['min_bid']} to {MAX_BID}"
        f" in steps of {amounts.step}",
        rule=rule,
    )


def record_bid(state: State, variant: Rules, seat: int, amount: int) -> bool:
    """Record a bid (``amount`` > 0) or a pass (0) and move the turn on; True when the auction is over."""
    n = variant.players
    state.bids.append([seat, amount])
    state.auction_turns += 1
    if amount:
        state.high_bid, state.high_bidder = amount, seat
    else:
        state.passed |= 1 << seat  # a pass is final
    if not variant.pairs and variant.options["auction_rounds"] == 1:
        if state.auction_turns == n:  # SU2: once round
            return True
        state.turn = (seat + 1) % n
        return False
    active = [s for s in range(n) if not state.passed >> s & 1]
    if not active or active == [state.high_bidder]:  # until all but one have passed
        return True
    state.turn = next(s % n for s in range(seat + 1, seat + n + 1) if not state.passed >> (s % n) & 1)
    return False
