"""Imported by the fault tests' Celery workers only (``--include tests.faults.holds``): a bot's turn
waits, inside its transaction (the match row locked, the message not yet acknowledged), while the file
named by ``FAULTS_HOLD_FILE`` exists, and marks which worker holds it (``held-by-<FAULTS_WORKER>``
beside the file), so that a test can kill that worker in the middle of the turn; and marks a worker's readiness."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from celery.signals import worker_ready

from games.matches import moves

_choose = moves.choose_action


def _held_choose(*args: Any, **kwargs: Any) -> Any:
    hold = Path(os.environ.get("FAULTS_HOLD_FILE", "/nonexistent"))
    if hold.exists():
        (hold.parent / f"held-by-{os.environ.get('FAULTS_WORKER', 'worker')}").touch()
        deadline = time.monotonic() + 120
        while hold.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    return _choose(*args, **kwargs)


moves.choose_action = _held_choose


@worker_ready.connect
def _mark_ready(**kwargs: Any) -> None:
    """``ready-<FAULTS_WORKER>`` beside the hold file once the worker consumes (its boot is over)."""
    hold = Path(os.environ.get("FAULTS_HOLD_FILE", "/nonexistent"))
    if hold.parent.exists():
        (hold.parent / f"ready-{os.environ.get('FAULTS_WORKER', 'worker')}").touch()
