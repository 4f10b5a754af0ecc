"""Django system checks of the games app (``manage.py check --deploy``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register


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
