"""Django system checks of the games app (``manage.py check --deploy``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register

from games.bots import LEVELS


@register(Tags.compatibility, deploy=True)
def broker_configured(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    """A deployment without a broker plays bot turns inside web requests, and nothing runs the
    periodic sweeps (presence, turn clocks, lost bot turns) but a thread of one web process."""
    if settings.CELERY_BROKER_URL:
        return []
    return [
        Warning(
            "CELERY_BROKER_URL is not set: bot turns and webhook calls run inside the web requests, and the "
            "periodic sweeps (presence, turn clocks, lost bot turns) run only with BEAT_IN_PROCESS, in one process.",
            hint="Set CELERY_BROKER_URL (redis://…) and run a Celery worker and beat (docker-compose.yml).",
            id="tute.W001",
        )
    ]


@register(Tags.compatibility)
def bot_levels_in_process(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    """``BOT_LEVELS_IN_PROCESS`` names built-in levels: a misspelt one would send its bots to the worker
    without a word."""
    unknown = sorted(set(settings.BOT_LEVELS_IN_PROCESS) - set(LEVELS))
    if not unknown:
        return []
    return [
        Error(
            f"BOT_LEVELS_IN_PROCESS names no built-in level: {', '.join(unknown)}.",
            hint=f"The levels are {', '.join(LEVELS)}.",
            id="tute.E001",
        )
    ]
