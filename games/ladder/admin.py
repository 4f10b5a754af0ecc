"""The ladder in the admin, read-only (the service's records): runs with their matches, and the best
scores."""

from __future__ import annotations

from django.contrib import admin

from tute_api.admin_views import ReadOnlyMixin

from .models import LadderBest, LadderMatch, LadderRun


class LadderMatchInline(ReadOnlyMixin, admin.TabularInline):  # type: ignore[type-arg]
    model = LadderMatch
    fields = ("number", "match", "level", "dealer", "result", "margin")
    readonly_fields = fields
    extra = 0


@admin.register(LadderRun)
class LadderRunAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "player", "state", "ended_by", "streak", "margin", "score", "level", "started_at")
    list_filter = ("state", "ended_by")
    search_fields = ("player__username",)
    raw_id_fields = ("player", "match")
    inlines = [LadderMatchInline]


@admin.register(LadderBest)
class LadderBestAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("player", "score", "streak", "margin", "achieved_at")
    search_fields = ("player__username",)
    raw_id_fields = ("player", "run")
