"""C12v: verifiable deals. The derivation of docs/fair-deals.md, its fixed vectors, and the engine
dealing a match's decks and first dealer from a key and the seats' seeds."""

from __future__ import annotations

import hashlib
import importlib.util
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import fair_deals, from_json, legal_actions, new_match, push, to_json
from games.engine.cards import CODES, parse

KEY = bytes(range(32))
SEEDS = ["alice", None, "bob's seed", None]
SCRIPT = Path(__file__).parents[2] / "examples" / "verify_deals.py"


def _codes(deck: list[int]) -> list[str]:
    return [CODES[c] for c in deck]


def _order(variant: str = "clasico", options: dict[str, object] | None = None) -> list[int]:
    return [parse(c) for c in fair_deals.deck_order(variant, options or {})]


def test_C12v_the_commitment_is_the_sha256_of_the_key_and_the_procedure_has_fixed_vectors() -> None:
    """Vectors that docs/fair-deals.md quotes: any reimplementation must give the same."""
    assert fair_deals.commitment(KEY) == hashlib.sha256(KEY).hexdigest()
    assert fair_deals.commitment(KEY) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    deck = _codes(fair_deals.deck_for(KEY, SEEDS, 1, _order()))
    assert deck[:8] == ["B12", "C4", "O2", "O10", "B10", "O7", "E10", "B5"]
    assert deck[-4:] == ["B4", "O5", "C11", "E4"]
    assert fair_deals.first_dealer(KEY, SEEDS, 4) == 2


def test_C12v_the_deck_order_is_the_engines_card_order_and_the_36_card_deck_has_no_2s() -> None:
    assert fair_deals.deck_order("clasico", {}) == list(CODES)
    assert fair_deals.deck_order("cabron", {"players": 3}) == [c for c in CODES if c[1:] != "2"]


def test_C12v_a_match_with_a_key_deals_every_deck_and_the_first_dealer_from_it() -> None:
    step = new_match("dos", {"games_to_win": 3}, deal_key=KEY, client_seeds=["x", "y"])
    state, events = step.state, list(step.events)
    while state.status == "active" and state.hand_number < 3:
        seat = state.turn
        events += push(state, seat, legal_actions(state, seat)[0])
    assert state.hand_number == 3, "three hands dealt, each from the key"
    started = [e["data"] for e in events if e["type"] == "hand_started"]
    assert started[0]["dealer"] == fair_deals.first_dealer(KEY, ["x", "y"], 2)
    for data in started:
        assert data["deck"] == _codes(fair_deals.deck_for(KEY, ["x", "y"], data["hand"], _order("dos")))
    again = from_json(to_json(state))
    assert again == state and again.fair_deals == {"key": KEY.hex(), "seeds": ["x", "y"], "first_dealer": "drawn"}


def test_C12v_every_seed_and_the_key_change_the_decks() -> None:
    first = fair_deals.deck_for(KEY, SEEDS, 1, _order())
    assert fair_deals.deck_for(KEY, SEEDS, 2, _order()) != first
    assert fair_deals.deck_for(bytes(32), SEEDS, 1, _order()) != first
    for seat in range(4):
        changed = list(SEEDS)
        changed[seat] = (changed[seat] or "") + "!"
        assert fair_deals.deck_for(KEY, changed, 1, _order()) != first, f"seat {seat}'s seed counts"
    # the seeds are length-prefixed: moving a character from one seat's seed to the next's changes the deck
    assert fair_deals.deck_for(KEY, ["ab", "c"], 1, _order()) != fair_deals.deck_for(KEY, ["a", "bc"], 1, _order())


def test_C12v_a_seeded_match_keeps_its_deterministic_deals() -> None:
    """C12: a seed wins over a key; the seeded deals are those of before C12v."""
    plain = new_match("clasico", {}, seed=7)
    keyed = new_match("clasico", {}, seed=7, deal_key=KEY, client_seeds=SEEDS)
    assert keyed.events == plain.events and keyed.state.fair_deals is None
    assert plain.events[0]["data"]["deck"][:4] == ["C1", "B3", "O3", "E4"]


@settings(max_examples=40, deadline=None)
@given(key=st.binary(min_size=32, max_size=32), seeds=st.lists(st.one_of(st.none(), st.text(max_size=8)), max_size=4))
def test_C12v_a_deck_is_a_permutation_of_the_deck_order(key: bytes, seeds: list[str | None]) -> None:
    order = _order("cabron", {"players": 3})
    assert sorted(fair_deals.deck_for(key, seeds, 1, order)) == sorted(order)


def test_C12v_the_shuffle_is_uniform_enough() -> None:
    """Each card lands at each place about as often as any other (a rough check of the Fisher-Yates draw)."""
    order = list(range(4))
    counts = Counter(tuple(fair_deals.deck_for(KEY, [str(i)], 1, order)) for i in range(2400))
    assert len(counts) == 24 and min(counts.values()) > 60


def test_C12v_the_standalone_script_derives_the_same_decks() -> None:
    """examples/verify_deals.py reimplements the procedure without the project: same numbers."""
    spec = importlib.util.spec_from_file_location("verify_deals", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    seeds = [s or "" for s in SEEDS]
    assert script.below(script.stream(KEY, seeds, "dealer"), 4) == fair_deals.first_dealer(KEY, SEEDS, 4)
    assert "import games" not in SCRIPT.read_text() and "from games" not in SCRIPT.read_text()


def test_C12v_a_first_dealer_the_rules_fix_is_recorded_as_fixed_and_the_decks_still_come_from_the_key():
    from games.engine import new_match
    from games.matches.management.commands.verify_deals import problems_of

    key = bytes(range(32))
    drawn = new_match("dos", {}, deal_key=key, client_seeds=[None, None]).state
    fixed = new_match("dos", {}, deal_key=key, client_seeds=[None, None], first_dealer=1 - drawn.dealer).state
    assert (drawn.fair_deals or {})["first_dealer"] == "drawn" and (fixed.fair_deals or {})["first_dealer"] == "fixed"
    deals = {"procedure": "tute-deals-v1", "key": key.hex(), "client_seeds": [None, None],
             "commitment": fair_deals.commitment(key), "deck_order": fair_deals.deck_order("dos", {})}  # fmt: skip
    deck = [CODES[c] for c in fair_deals.deck_for(key, ["", ""], 1, [parse(c) for c in deals["deck_order"]])]
    record = {"variant": "dos", "options": {}, "hands": [{"number": 1, "dealer": fixed.dealer, "deck": deck}],
              "events": []}  # fmt: skip
    assert problems_of({**record, "deals": {**deals, "first_dealer": "fixed"}}) == []
    drawn_record = {**record, "deals": {**deals, "first_dealer": "drawn"}}
    assert problems_of(drawn_record) == ["the first dealer is not the one drawn"]
