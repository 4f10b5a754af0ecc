"""tute_api/negotiation.py: DRF's choice of a renderer, found without DRF's parsing for the common request."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from tute_api.negotiation import ContentNegotiation
from tute_api.renderers import JSONRenderer


class Markdown(BaseRenderer):
    media_type = "text/markdown"
    format = "md"


ACCEPTS = [None, "*/*", "application/json", "text/markdown", "application/json; indent=4", "text/*", "*/*;q=0.8",
           "text/html", "application/json, text/markdown"]  # fmt: skip
QUERIES = ["", "after=3&wait=10", "format=md", "format=json", "x=format%3Dmd", "%66ormat=md", "format=", "format"]


def _choice(negotiation: Any, request: Request, renderers: list[Any]) -> Any:
    try:
        renderer, media_type = negotiation.select_renderer(request, renderers)
    except Exception as exc:  # noqa: BLE001 - the same refusal, compared by type and detail
        return type(exc).__name__, str(getattr(exc, "detail", exc))
    return type(renderer).__name__, media_type


@pytest.mark.parametrize("renderers", [[JSONRenderer], [Markdown, JSONRenderer], [JSONRenderer, Markdown]])
def test_the_renderer_chosen_is_drfs_for_every_accept_and_query(renderers: list[type]) -> None:
    factory = APIRequestFactory()
    for accept in ACCEPTS:
        for query in QUERIES:
            headers = {} if accept is None else {"HTTP_ACCEPT": accept}
            request = Request(factory.get(f"/x?{query}", **headers))
            ours = _choice(ContentNegotiation(), request, [r() for r in renderers])
            if query in ("format=", "format"):  # ours: 400 for an empty format (DRF: as if absent)
                assert ours[0] == "ValidationError", (accept, ours)
                continue
            drfs = _choice(DefaultContentNegotiation(), Request(factory.get(f"/x?{query}", **headers)),
                           [r() for r in renderers])  # fmt: skip
            if ours[0] == "ValidationError":  # ours: 400 for a format the view lacks (DRF: 404)
                assert drfs[0] == "Http404", (accept, query, ours, drfs)
            else:
                assert ours == drfs, (accept, query)


def test_a_plain_request_is_answered_without_drfs_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ?format= and an Accept of */*, of none or of the first renderer: DRF's negotiation is not run."""

    def parsed(*args: object) -> None:
        raise AssertionError("DRF's negotiation ran")

    monkeypatch.setattr(DefaultContentNegotiation, "select_renderer", parsed)
    factory = APIRequestFactory()
    for headers in ({}, {"HTTP_ACCEPT": "*/*"}, {"HTTP_ACCEPT": "application/json"}):
        request = Request(factory.get("/x?after=3&wait=10", **headers))
        renderer, media_type = ContentNegotiation().select_renderer(request, [JSONRenderer(), Markdown()])
        assert isinstance(renderer, JSONRenderer) and media_type == "application/json"
    with pytest.raises(AssertionError, match="DRF's negotiation ran"):
        ContentNegotiation().select_renderer(Request(factory.get("/x?format=md")), [JSONRenderer(), Markdown()])
