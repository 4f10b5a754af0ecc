"""The queue's pairing is a task: it runs in process here, as under ``make run``, even when CI configures
a broker (nothing consumes its queue in these tests)."""

from tests.games.conftest import bot_turns_in_process  # noqa: F401  (an autouse fixture, used as it is)
