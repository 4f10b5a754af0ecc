"""Players in the admin, read-only; tokens show only the start of their digest."""

from __future__ import annotations

from django.contrib import admin

from tute_api.admin_views import ReadOnlyMixin

from .models import Player


@admin.register(Player)
class PlayerAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("username", "id", "created_at")
    search_fields = ("username",)
    readonly_fields = ("id", "username", "created_at")
