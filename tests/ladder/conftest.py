"""The games tests' fixtures apply here too: bot turns in process, and every match must replay to its
snapshot."""

from tests.games.conftest import bot_turns_in_process, every_match_replays_to_its_snapshot

__all__ = ["bot_turns_in_process", "every_match_replays_to_its_snapshot"]
