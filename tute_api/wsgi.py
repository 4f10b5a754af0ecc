"""WSGI entry point (``gunicorn tute_api.wsgi``): Django's WSGI handler with the service's versions of
Django's middlewares (``tute_api/stock_middleware.py``), as ``tute_api.asgi`` runs its requests."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tute_api.settings")
django.setup(set_prefix=False)

from tute_api.stock_middleware import WSGIHandler  # noqa: E402

application = WSGIHandler()
