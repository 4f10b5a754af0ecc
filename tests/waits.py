"""A spy on the waits of long polls, streams and turn polls, so that tests say what happened (a wait
was entered; news or the time ended it) rather than how long it took. The ``waits`` fixture of
tests/conftest.py installs it."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from games.live import channels as live


class Waits(list[tuple[float, bool]]):
    """(timeout, woken by news) of every wait on a subscription that ended; ``begun`` is set when one begins."""

    def __init__(self) -> None:
        super().__init__()
        self.begun = threading.Event()


def spy_on_waits(monkeypatch: pytest.MonkeyPatch) -> Waits:
    """Record every wait on a subscription, whichever broker serves it: Redis's hands news on to
    local subscriptions."""
    seen = Waits()
    wait = live._LocalSubscription.wait

    def spy(self: Any, timeout: float) -> bool:
        seen.begun.set()
        woken = wait(self, timeout)
        seen.append((timeout, woken))
        return woken

    monkeypatch.setattr(live._LocalSubscription, "wait", spy)
    return seen
