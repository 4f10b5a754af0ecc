"""games/matches/moves.py ``turn_random``: the random source of the moves the service makes (the built-in
bots', a stand-in's) is reproducible in a seeded match, and otherwise the process's, seeded from the
system's entropy, and seeded again in a forked child (the server's workers are forked)."""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any

from games.matches import moves


def _match(seed: int | None) -> Any:
    return SimpleNamespace(seed=seed)


def test_a_seeded_match_draws_the_same_at_the_same_seq_and_salt() -> None:
    one, two = moves.turn_random(_match(7), 12, 0), moves.turn_random(_match(7), 12, 0)
    assert [one.random() for _ in range(5)] == [two.random() for _ in range(5)]
    assert moves.turn_random(_match(7), 12, 1).random() != moves.turn_random(_match(7), 12, 0).random()


def test_an_unseeded_match_draws_from_the_process_s_source_not_a_new_one_a_move() -> None:
    """A generator seeded anew for each move read 2.5 KB from the system each time (12 µs a bot's turn)."""
    assert moves.turn_random(_match(None), 1, 0) is moves.turn_random(_match(None), 2, "stand-in")


def test_a_forked_process_draws_otherwise_than_its_parent() -> None:
    """Without a seed of its own, a worker forked from the server's master would play the bots' moves its
    sibling plays, in the same order."""
    source = moves.turn_random(_match(None), 1, 0)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's
        os.write(write, repr(source.random()).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    with os.fdopen(read) as pipe:
        childs = float(pipe.read())
    assert childs != source.random()
