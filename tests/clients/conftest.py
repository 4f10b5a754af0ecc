"""The generated clients' tests play against the service with its bot turns in process, as the games
tests do: a broker configured (CI) has no worker consuming the queue here."""

from tests.games.conftest import bot_turns_in_process

__all__ = ["bot_turns_in_process"]
