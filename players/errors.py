"""The players app's errors: each a status and a stable code (rendered by tute_api.errors)."""

from __future__ import annotations

from tute_api.errors import ApiError


class UsernameTaken(ApiError):
    status_code = 409
    default_code = "username_taken"
    default_detail = "That username is taken."
