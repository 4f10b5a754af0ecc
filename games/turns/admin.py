"""The turn takers' rows in the admin, read-only: matches' tables and presence."""

from __future__ import annotations

from django.contrib import admin

from tute_api.admin_views import ReadOnlyMixin

from .models import Presence, Table


@admin.register(Table)
class TableAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("match", "room", "presence_timeout", "reconnect_grace", "turn_seconds")
    raw_id_fields = ("match", "room")


@admin.register(Presence)
class PresenceAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("match", "seat", "player", "last_seen", "disconnected_at")
    readonly_fields = ("match", "seat", "player", "last_seen", "disconnected_at", "disconnected_seq")
