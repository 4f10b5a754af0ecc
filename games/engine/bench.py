"""Random full hands of every variant, on one core: ``python -m games.engine.bench [--json]``.

Two figures per variant:

- ``hands_per_second``: the simulation path that bots use (:func:`legal_cards`, :func:`play_card`,
  no event log), with a random legal card at every turn and a random bid or pass in the auctions;
- ``api_hands_per_second``: the path of the HTTP API (:func:`legal_actions` as dicts, :func:`push`
  validating each action and recording every event).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from .cards import cards_of
from .game import legal_actions, new_match, play_card, push
from .state import State
from .tricks import legal_cards

#: (variant, options) pairs benchmarked, one per variant and player count.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("clasico", {}),
    ("cabron", {"players": 3}),
    ("cabron", {"players": 4}),
    ("subastado", {}),
    ("dos", {"hand_size": 8}),
    ("dos", {"hand_size": 6}),
    ("individual", {"players": 3}),
    ("individual", {"players": 4}),
    ("subastado_parejas", {}),
]


def simulate_hand(state: State, rnd: Any) -> None:
    """Play the current hand to its end with random legal actions, recording nothing."""
    hand = state.hand_number
    while state.hand_number == hand and state.status == "active":
        if state.phase == "play":
            cards = cards_of(legal_cards(state))
            play_card(state, cards[int(rnd() * len(cards))], None)
        else:
            actions = legal_actions(state)
            push(state, state.turn, actions[int(rnd() * len(actions))])


def api_hand(state: State, rnd: Any) -> None:
    """Play the current hand to its end as the API does: dict actions, validated, every event recorded."""
    hand = state.hand_number
    while state.hand_number == hand and state.status == "active":
        seat = state.turn
        actions = legal_actions(state, seat)
        push(state, seat, actions[int(rnd() * len(actions))])


def hands_per_second(variant: str, options: dict[str, Any], play: Any, seconds: float, seed: int = 1) -> float:
    """Hands played per second by ``play`` over about ``seconds``; a finished match is replaced by a new one."""
    rnd = random.Random(seed).random
    state = new_match(variant, options, seed=seed).state
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            if state.status != "active":
                state = new_match(variant, options, seed=seed + hands).state
            play(state, rnd)
            hands += 1
        now = time.perf_counter()
        if now >= deadline:
            return hands / (now - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per variant")
    parser.add_argument("--seconds", type=float, default=2.0, help="time spent on each figure")
    parser.add_argument("--variant", help="only this variant")
    args = parser.parse_args(argv)
    for variant, options in CASES:
        if args.variant and variant != args.variant:
            continue
        players = new_match(variant, options, seed=0).state.players
        sim = hands_per_second(variant, options, simulate_hand, args.seconds)
        api = hands_per_second(variant, options, api_hand, args.seconds)
        if args.json:
            print(json.dumps({
                "variant": variant, "players": players, "options": options,
                "hands_per_second": round(sim), "api_hands_per_second": round(api),
            }))
        else:
            label = f"{variant} {players}p {json.dumps(options) if options else ''}"
            print(f"{label:40s} {sim:8.0f} hands/s   (API path {api:6.0f} hands/s)")


if __name__ == "__main__":
    main()
