"""Matches in the admin, read-only: their seats, hands and events as the service stored them."""

from __future__ import annotations

from django.contrib import admin

from tute_api.admin_views import ReadOnlyMixin

from .models import Event, Hand, Match, Seat


class SeatInline(ReadOnlyMixin, admin.TabularInline):  # type: ignore[type-arg]
    model = Seat
    fields = ("number", "player", "bot", "joined_at")
    readonly_fields = fields
    extra = 0


class HandInline(ReadOnlyMixin, admin.TabularInline):  # type: ignore[type-arg]
    model = Hand
    fields = ("number", "dealer", "started_seq", "finished_seq", "result")
    readonly_fields = fields
    extra = 0


class EventInline(ReadOnlyMixin, admin.TabularInline):  # type: ignore[type-arg]
    model = Event
    fields = ("seq", "type", "seat", "data", "created_at")
    readonly_fields = fields
    extra = 0


@admin.register(Match)
class MatchAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "variant", "status", "seq", "created_by", "created_at", "updated_at")
    list_filter = ("status", "variant")
    search_fields = ("id", "created_by__username")
    readonly_fields = (
        "id", "variant", "options", "seed", "status", "seq", "turn", "invite_code", "created_by",
        "created_at", "updated_at", "started_at", "finished_at", "state",
    )  # fmt: skip
    inlines = [SeatInline, HandInline, EventInline]


@admin.register(Event)
class EventAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("match", "seq", "type", "seat", "created_at")
    list_filter = ("type",)
    search_fields = ("match__id",)
    readonly_fields = ("match", "seq", "type", "seat", "data", "created_at")
    list_select_related = ("match",)
