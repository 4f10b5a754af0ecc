"""Test-only Celery tasks; the ``celery_worker`` fixture's worker imports this module too."""

from celery import shared_task
from django.contrib.auth.models import Group


@shared_task
def create_group(name: str) -> None:
    """Write a row, for a test to see that the worker shares its database."""
    Group.objects.create(name=name)
