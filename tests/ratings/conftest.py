"""The games tests' fixtures: bot turns in process (a broker may be configured), and every match made
replays to its snapshot."""

from tests.games.conftest import bot_turns_in_process, every_match_replays_to_its_snapshot

__all__ = ["bot_turns_in_process", "every_match_replays_to_its_snapshot"]
