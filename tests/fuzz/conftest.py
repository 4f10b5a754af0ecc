"""The schema fuzzing's figures in pytest's summary: how many cases it sent, per operation."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from tests.fuzz.test_schema import SENT

    if SENT:
        terminalreporter.write_sep("-", f"schema fuzzing: {sum(SENT.values()):,} cases over {len(SENT)} operations")
        for label, count in sorted(SENT.items()):
            terminalreporter.write_line(f"{count:6,}  {label}")
