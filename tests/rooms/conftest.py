"""The games tests' fixtures apply here too: bot turns in process (but under a real worker), and
every match must replay to its snapshot, service events and all."""

from tests.games.conftest import bot_turns_in_process, every_match_replays_to_its_snapshot

__all__ = ["bot_turns_in_process", "every_match_replays_to_its_snapshot"]
