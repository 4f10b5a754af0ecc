"""What level-3 and level-4 deduce from a view (C5 inferences) and the deals they sample from it."""

from __future__ import annotations

import random

from games.bots.deals import Deal, build_state, count_deals, sample_deal
from games.bots.knowledge import infer_cannot, read_view
from games.engine import legal_cards, play_card, view
from games.engine.cards import SUIT_MASK, mask_of, parse

from .helpers import positions


def _c(*names: str) -> list[int]:
    return [parse(n) for n in names]


def test_c5_inferences_of_the_worked_example_1() -> None:
    """Clásico, trump O: lead C12; C1 beats; O5 trumps; a non-trump, non-copas card shows no trump above O5."""
    trump = 0
    cannot = [0] * 4
    plays = list(zip([0, 1, 2, 3], _c("C12", "C1", "O5", "E3"), strict=True))
    infer_cannot(plays, trump, cannot)
    assert cannot[0] == 0 and cannot[1] == 0
    assert cannot[2] == SUIT_MASK[1]  # C5.a: no copas (and it trumped, as it had to)
    above_o5 = mask_of(_c("O6", "O7", "O10", "O11", "O12", "O3", "O1"))
    assert cannot[3] == SUIT_MASK[1] | above_o5  # C5.d: could not over-trump; lower trumps stay possible


def test_c5b_following_below_shows_no_higher_card() -> None:
    cannot = [0] * 4
    infer_cannot(list(zip([0, 1], _c("E12", "E4"), strict=True)), 2, cannot)
    assert cannot[1] == mask_of(_c("E3", "E1"))


def test_c5g_no_inference_before_a_trump_exists() -> None:
    cannot = [0] * 4
    infer_cannot(list(zip([0, 1], _c("B4", "O7"), strict=True)), -1, cannot)
    assert cannot[1] == SUIT_MASK[3]  # void in bastos, nothing about any trump


def test_real_deal_is_always_consistent_with_the_knowledge() -> None:
    for variant, _options, state in positions(15, seed=11):
        seat = state.turn
        k = read_view(view(state, seat))
        for other in range(state.players):
            if other != seat:
                assert not state.hands[other] & k.cannot[other], variant
                assert state.hands[other] & k.known[other] == k.known[other], variant


def test_sampled_deals_are_consistent_with_the_view() -> None:
    """Hand sizes, shown cards, inferred voids; and a state built on a deal plays like the real one."""
    rng = random.Random(4)
    for variant, _options, state in positions(12, seed=12):
        seat = state.turn
        seen = view(state, seat)
        k = read_view(seen)
        assert count_deals(k, 2) >= 1
        for _ in range(5):
            deal = sample_deal(k, rng)
            assert deal.hands[seat] == state.hands[seat]
            assert len(deal.stock) == len(state.stock)
            everything = sum(deal.hands) | mask_of(deal.stock)
            assert everything & k.played == 0
            for other in range(state.players):
                hand = deal.hands[other]
                assert hand.bit_count() == state.hands[other].bit_count(), variant
                assert hand & k.known[other] == k.known[other]
                if other != seat:
                    assert not hand & k.cannot[other], variant
        if state.phase == "play":
            built = build_state(seen, k, Deal(list(state.hands), list(state.stock)))
            real = state.copy()
            while built.status == "active" and built.hand_number == state.hand_number:
                assert legal_cards(built) == legal_cards(real)
                card = min(range(40), key=lambda c: (not legal_cards(real) >> c & 1, rng.random()))
                play_card(built, card, None)
                play_card(real, card, None)
            assert built.results[-1]["points"] == real.results[len(state.results)]["points"], variant


def test_all_deals_lists_every_consistent_deal_once() -> None:
    from games.bots.deals import all_deals

    for variant, _options, state in positions(6, seed=13):
        seat = state.turn
        k = read_view(view(state, seat))
        deals = all_deals(k, 50)
        if deals is None:
            continue
        assert count_deals(k, 60) == len(deals)
        keys = {tuple(d.hands) for d in deals}
        assert len(keys) == len(deals)
        assert tuple(state.hands) in keys, variant
