"""Every rule id of docs/RULES.md (but the service rules M1–M3 and M5) has a test named after it."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

RULE_IDS = [
    *(f"C{i}" for i in range(1, 14) if i != 5),
    *(f"C5{letter}" for letter in "abcdefgh"),
    *(f"CL{i}" for i in range(1, 6)),
    *(f"CB{i}" for i in range(1, 7)),
    *(f"SU{i}" for i in range(1, 7)),
    *(f"D{i}" for i in range(1, 7)),
    *(f"IN{i}" for i in range(1, 4)),
    *(f"SP{i}" for i in range(1, 4)),
    "M4",
    "C12v",
    "C10m",
    *(f"L{i}" for i in range(1, 4)),
]
RULES = Path(__file__).parents[2] / "docs" / "RULES.md"


def rule_ids_of(text: str) -> set[str]:
    """The ids the rules document defines: ``**C4 …``, ``**C12v …``, ``- CL1 …``, and C5's letters as ``C5a``."""
    ids = set(re.findall(r"^\*\*(C\d+[a-z]?) ", text, re.M)) | set(re.findall(r"^- ([A-Z]{1,2}\d+) ", text, re.M))
    duties = text.split("**C5 ", 1)[1].split("**C6 ", 1)[0]
    return ids | {f"C5{letter}" for letter in re.findall(r"^- ([a-h])\. ", duties, re.M)}


def test_the_rule_ids_are_those_of_the_rules_document() -> None:
    service_rules = {"M1", "M2", "M3", "M5"}  # the service's, tested in tests/rooms and tests/games/test_spectators.py
    assert rule_ids_of(RULES.read_text()) - service_rules - {"C5"} == set(RULE_IDS)


def test_every_rule_id_and_worked_example_has_a_test() -> None:
    names: set[str] = set()
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if module.name.startswith("test_"):
            names |= {n for n in vars(importlib.import_module(f"{__package__}.{module.name}")) if n.startswith("test_")}
    tested = {m.group(1) for n in names if (m := re.match(r"test_([A-Z]+\d+[a-z]?)_", n))}
    assert not [rule for rule in RULE_IDS if rule not in tested]
    assert {n.split("_")[3] for n in names if n.startswith("test_worked_example_")} == set("123456")
