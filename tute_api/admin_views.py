"""What the apps' admins share."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


class ReadOnlyMixin:
    """An admin page (or inline) that shows rows as the service stored them: no add, change or delete."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
