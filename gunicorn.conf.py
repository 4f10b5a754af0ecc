"""gunicorn's settings for the service (gunicorn reads this file from the working directory): the
Docker image and ``make loadtest`` use it. Command-line options override it.

ASGI: uvicorn workers (``uvicorn_worker.UvicornWorker``) under gunicorn, which restarts a worker that
dies and drains them on SIGTERM. A long poll, an event stream or a ``/me/turns?wait=`` waits in a
coroutine and holds no thread (``tute_api/asgi.py``, ``games/live/deferred.py``), so a process holds
thousands; the other requests run on Django's WSGI handler in threads. Several processes, since Python
runs one thread of a process at a time (docs/performance.md). Each process's sync code has a pool of
``ASGI_THREADS`` threads (the requests that do not wait, the waits' short reads), and a database pool
to match the threads.
"""

import gc
import os

worker_class = "uvicorn_worker.UvicornWorker"
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))  # on 2 cores (docs/performance.md)
keepalive = 30
# SIGTERM: each worker wakes its waits at once (games/live/shutdown.py: streams end with server_closing),
# then finishes its open answers within this.
graceful_timeout = 10
os.environ.setdefault("ASGI_THREADS", "8")  # tute_api/threads.py reads it
os.environ.setdefault("DATABASE_POOL_SIZE", "12")
# gunicorn 24+ opens a control socket under $HOME/.gunicorn/, which the image's user cannot write and
# two servers on one machine would share; nothing here uses it (older versions ignore the name).
control_socket_disable = True


def post_worker_init(worker: object) -> None:
    """Once a worker has loaded the app: its modules, settings and URL patterns live as long as the
    process, so the garbage collector stops scanning them (each full collection then looks at a
    request's objects only, not at the whole of Django)."""
    gc.freeze()
