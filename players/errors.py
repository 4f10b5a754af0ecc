"""The players app's errors: each a status and a stable code (rendered by tute_api.errors)."""

from __future__ import annotations

from tute_api.errors import ApiError


class UsernameTaken(ApiError):
    status_code = 409
    default_code = "username_taken"
    default_detail = "That username is taken."


class InvalidWebhookUrl(ApiError):
    status_code = 422
    default_code = "invalid_webhook_url"
    default_detail = "A webhook URL is an absolute http(s) URL whose host resolves."


class WebhookAddressNotAllowed(ApiError):
    status_code = 422
    default_code = "webhook_address_not_allowed"
    default_detail = "The webhook's host resolves to a private, loopback or reserved address."


class UnknownBot(ApiError):
    status_code = 404
    default_code = "unknown_bot"
    default_detail = "No such bot."


class NotYourBot(ApiError):
    status_code = 403
    default_code = "not_your_bot"
    default_detail = "Only the bot's owner may do that."


class BotInPlay(ApiError):
    status_code = 409
    default_code = "bot_in_play"
    default_detail = "The bot sits in a match that is waiting or active."


class TooManyBots(ApiError):
    status_code = 409
    default_code = "too_many_bots"
    default_detail = "The player owns as many bots as allowed."
