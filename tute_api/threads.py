"""Sync code (the ORM, DRF) called from the waiting coroutines of ASGI."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.db import connection


def in_thread(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as a coroutine, run in the process's pool of threads (``ASGI_THREADS``), its database
    connection given back after. Not asgiref's default (``thread_sensitive``): under Django's ASGI handler
    that gives each request a thread of its own for as long as the request lasts, a waiting one too."""

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:
                connection.close()  # back to the pool, if any

    return sync_to_async(run, thread_sensitive=False)


def in_pool(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as a coroutine, run in the process's pool of threads, as it is."""
    return sync_to_async(function, thread_sensitive=False)
