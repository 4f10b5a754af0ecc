"""The messages of a player's own live channel, defined once for every transport.

Long poll (``GET /me/notices?after=&wait=``), SSE (``GET /me/notices/stream``) and, later, a WebSocket
consumer all send :func:`notice_body` of each :class:`~.models.Notice` after the client's cursor (its id).
A message carries ids, seats and counts only, never a card (hidden information first: a client reads
the match itself for what its seat may see). Each kind and its ``data``:

- ``match_ready``: the queue seated you: ``{"seat", "variant"}``;
- ``your_turn``: it is your turn in ``match_id``: ``{"seq"}`` (answer with ``expected_seq``);
- ``seat_taken``: someone sat at your open table: ``{"seat", "seats_free"}``;
- ``queue_left``: the service took you out of the queue: ``{"reason"}`` (``gone``: no sign of life).
"""

from __future__ import annotations

import json
from typing import Any

from .models import Notice


def notice_body(notice: Notice) -> dict[str, Any]:
    return {
        "id": notice.pk,
        "kind": notice.kind,
        "match_id": str(notice.match_id) if notice.match_id else None,
        "data": notice.data,
        "at": notice.created_at.isoformat().replace("+00:00", "Z"),
    }


def sse_frame(notice: Notice) -> str:
    """One message as a server-sent event: ``id:`` the cursor, ``event:`` the kind."""
    body = json.dumps(notice_body(notice), separators=(",", ":"))
    return f"id: {notice.pk}\nevent: {notice.kind}\ndata: {body}\n\n"
