"""Assertions on problem-details responses, shared by the API tests."""

from __future__ import annotations

from typing import Any


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """Assert a problem-details response with this status and code; returns its body."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    assert body["status"] == status
    return body
