"""Ratings in the admin, read-only: the service writes them when a match finishes (docs/ratings.md)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Rating


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("player", "variant", "rating", "deviation", "games", "played", "won", "updated_at")
    list_filter = ("variant",)
    search_fields = ("player__username",)
    raw_id_fields = ("player",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
