"""tute_api/gc_pauses.py: a server process's collections, counted and timed by generation, written where
``make loadtest`` reads them."""

from __future__ import annotations

import gc
import json
import os
import time
from pathlib import Path
from typing import Any

from tute_api import gc_pauses


def test_a_process_writes_its_collections_by_generation(tmp_path: Path) -> None:
    pauses = gc_pauses.install(str(tmp_path), every=0.05)
    try:
        garbage = [{"n": n, "self": None} for n in range(200_000)]
        for item in garbage:
            item["self"] = item  # cycles: only the collector frees them
        del garbage, item
        gc.collect(0)
        gc.collect(2)
        time.sleep(0.3)
    finally:
        gc.callbacks.remove(pauses)  # and the writer stops
    report = json.loads((tmp_path / f"{os.getpid()}.json").read_text())
    assert report["pid"] == os.getpid() and report["collections"][0] >= 1 and report["collections"][2] >= 1
    assert report["wall_seconds"][2] > 0 and report["cpu_seconds"][2] > 0
    assert sum(report["freed"]) >= 200_000  # the dicts that referred to themselves
    kept = [entry for entry in report["kept"] if entry[1] == 2]  # 200,000 cycles: a stop of more than 10 ms
    assert kept and all(wall >= gc_pauses.KEPT_SECONDS for _, _, wall in kept)
    assert not list(tmp_path.glob("*.part"))  # written whole, then renamed


def test_writing_the_report_leaves_no_garbage(tmp_path: Path) -> None:
    """The writer runs every second in each server process it measures: it must not bring about the
    collections it counts (``json.dump`` encodes in Python, through closures that refer to each other)."""
    pauses = gc_pauses.Pauses()
    gc_pauses.write(pauses, str(tmp_path))  # (the first write imports what it needs)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(5):
            gc_pauses.write(pauses, str(tmp_path))
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert not garbage, sorted({type(thing).__qualname__ for thing in garbage})


class _Knot:
    def __init__(self) -> None:
        self.me = self


def test_a_census_names_the_kinds_of_garbage_the_collections_found(tmp_path: Path, monkeypatch: Any) -> None:
    """With ``GC_CENSUS``, a diagnostic: what a collection found, kept and counted by kind, a function by name."""
    monkeypatch.setattr(gc_pauses, "CENSUS_EVERY", 0.1)
    monkeypatch.setattr(gc_pauses, "CENSUS_KINDS", 10**6)  # (a test process has more kinds than a report names)

    def looped() -> None:
        def again() -> None:  # refers to itself through its closure: a cycle
            again()

    report = tmp_path / f"{os.getpid()}.json"
    pauses = gc_pauses.install(str(tmp_path), every=0.05, census=True)
    try:
        for _ in range(7):
            _Knot()
            looped()
        garbage: dict[str, int] = {}
        deadline = time.monotonic() + 10
        while f"{__name__}._Knot" not in garbage and time.monotonic() < deadline:  # the writer collects, then reports
            time.sleep(0.1)
            garbage = json.loads(report.read_text()).get("garbage", {}) if report.exists() else {}
    finally:
        gc.callbacks.remove(pauses)
        gc.set_debug(0)
        gc.garbage.clear()
    assert garbage[f"{__name__}._Knot"] == 7
    functions = {kind: n for kind, n in garbage.items() if "looped.<locals>.again" in kind}
    assert list(functions.values()) == [7] and next(iter(functions)).startswith("builtins.function "), garbage


def test_a_report_without_a_census_names_no_garbage(tmp_path: Path) -> None:
    gc_pauses.write(gc_pauses.Pauses(), str(tmp_path))
    assert "garbage" not in json.loads((tmp_path / f"{os.getpid()}.json").read_text())
