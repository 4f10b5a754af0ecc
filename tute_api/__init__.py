"""The tute-api Django project: settings, URLs, the Celery app and project-wide plumbing."""

from tute_api.celery import app as celery_app

__all__ = ("celery_app",)
