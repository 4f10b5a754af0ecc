"""A client generated from the schema by openapi-python-client plays a match to its end, and its code
passes ``mypy --strict``: what an app developer gets from the schema works as it is."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

BIN = Path(sys.executable).parent
# The generator's own client.py template does not pass mypy --strict (its __exit__ signatures, 12 errors
# with mypy 2); the code generated from the schema (models and operations) is checked in full.
MYPY_CONFIG = """[mypy]
strict = True
[mypy-tute_client.client]
ignore_errors = True
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("client")
    call_command("spectacular", "--file", str(root / "schema.yaml"))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # it formats with ruff
    done = subprocess.run(
        [BIN / "openapi-python-client", "generate", "--path", "schema.yaml", "--meta", "none",
         "--output-path", "tute_client"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "tute_client" or m.startswith("tute_client.")]:
            del sys.modules[name]


def test_the_generated_code_passes_mypy_strict(generated: Path) -> None:
    (generated / "mypy.ini").write_text(MYPY_CONFIG)
    done = subprocess.run(
        [BIN / "mypy", "--config-file", "mypy.ini", "tute_client"],
        cwd=generated, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]


@pytest.mark.django_db(transaction=True)
def test_the_generated_client_plays_a_match_to_its_end(generated: Path, live_server: Any) -> None:
    client_module = importlib.import_module("tute_client.client")
    models = importlib.import_module("tute_client.models")
    api = "tute_client.api"
    players_create = importlib.import_module(f"{api}.players.players_create")
    matches_create = importlib.import_module(f"{api}.matches.matches_create")
    matches_retrieve = importlib.import_module(f"{api}.matches.matches_retrieve")
    matches_actions_create = importlib.import_module(f"{api}.matches.matches_actions_create")
    matches_record = importlib.import_module(f"{api}.matches.matches_record")

    anyone = client_module.Client(base_url=live_server.url)
    sign_up = models.PlayerCreateInput(username="gen")
    created = players_create.sync(client=anyone, body=sign_up, idempotency_key="k-gen-1")
    assert isinstance(created, models.PlayerWithTokenOutput), created
    me = client_module.AuthenticatedClient(base_url=live_server.url, token=created.token)
    seats = [models.MeSeat(player=models.PlayerEnum("me")), models.BotSeat(bot="level-1")]
    body = models.MatchCreateInput(variant="dos", seats=seats, options=models.MatchCreateInputOptions.from_dict(
        {"games_to_win": 1}))  # fmt: skip
    match = matches_create.sync(client=me, body=body)
    assert isinstance(match, models.Match), match
    for _ in range(200):
        view = matches_retrieve.sync(client=me, match_id=match.id, after=match.seq, wait=5)
        assert isinstance(view, models.Match), view
        if view.status != models.MatchStatusEnum.ACTIVE:
            break
        if view.legal_actions:
            action = view.legal_actions[0]  # a request body as it is: post it, with the seq seen
            action.expected_seq = view.seq
            played = matches_actions_create.sync(client=me, match_id=match.id, body=action)
            assert isinstance(played, models.Match), played
        match = view
    assert view.status == models.MatchStatusEnum.FINISHED
    record = matches_record.sync(client=me, match_id=match.id)
    assert isinstance(record, models.Record) and record.winners and len(record.hands) == 1
