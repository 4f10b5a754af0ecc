"""The ratings' errors: each a status and a stable code (rendered by tute_api.errors)."""

from __future__ import annotations

from tute_api.errors import ApiError


class PlayerNotFound(ApiError):
    status_code = 404
    default_code = "player_not_found"
    default_detail = "No such player."


class UnknownVariant(ApiError):
    status_code = 404
    default_code = "unknown_variant"
    default_detail = "No such variant: see GET /variants/."


class PageNotFound(ApiError):
    status_code = 404
    default_code = "not_found"
    default_detail = "That page is past the last."
