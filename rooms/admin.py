"""Rooms in the admin: their members, settings and latest match; tables and presence read-only."""

from __future__ import annotations

from django.contrib import admin

from tute_api.admin_views import ReadOnlyMixin

from .models import Presence, Room, RoomMember, Table


class RoomMemberInline(admin.TabularInline):  # type: ignore[type-arg]
    model = RoomMember
    fields = ("player", "joined_at")
    raw_id_fields = ("player",)
    extra = 0


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("code", "host", "variant", "closed", "match", "updated_at")
    list_filter = ("variant", "closed")
    search_fields = ("code", "host__username")
    raw_id_fields = ("host", "match")
    inlines = [RoomMemberInline]


@admin.register(Table)
class TableAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("match", "room", "presence_timeout", "reconnect_grace", "turn_seconds")
    raw_id_fields = ("match", "room")


@admin.register(Presence)
class PresenceAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("match", "seat", "player", "last_seen", "disconnected_at")
    readonly_fields = ("match", "seat", "player", "last_seen", "disconnected_at", "disconnected_seq")
