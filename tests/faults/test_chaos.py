"""`make chaos` in its short form (scripts/chaos.py): half a minute of mixed play, 20 clients, with a
few faults injected; no acknowledged action lost and no 5xx but 503."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.timeout(280)
def test_a_short_chaos_run_loses_no_acknowledged_action_and_answers_no_5xx_but_503():
    run = subprocess.run(
        [sys.executable, "scripts/chaos.py", "--minutes", "0.75", "--every", "14", "--faults", "worker,broker",
         "--seed", "17", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=260,
    )  # fmt: skip
    assert run.returncode in (0, 1), run.stderr[-3000:]
    figures = json.loads(run.stdout)
    faults = [row for row in figures["faults"] if row["fault"] != "none"]
    assert len(faults) >= 2, figures
    assert figures["acknowledged"] > 50, figures
    assert figures["lost"] == 0, figures
    for row in figures["faults"]:
        assert all(status == "503" for status in row["statuses"] if status.startswith("5")), row
    assert run.returncode == 0, run.stderr[-3000:]
