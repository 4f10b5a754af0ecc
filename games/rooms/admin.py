"""Rooms in the admin: their members, settings and latest match."""

from __future__ import annotations

from django.contrib import admin

from .models import Room, RoomMember


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
