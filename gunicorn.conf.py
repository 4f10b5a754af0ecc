"""gunicorn's settings for the service (gunicorn reads this file from the working directory): the
Docker image and ``make loadtest`` use it. Command-line options override it.

ASGI: uvicorn workers (``tute_api.serving.Worker``, uvicorn-worker's) under gunicorn, which restarts a
worker that dies and drains them on SIGTERM. A long poll, an event stream or a ``/me/turns?wait=`` waits
in a coroutine and holds no thread (``tute_api/asgi.py``, ``games/live/deferred.py``), so a process holds
thousands; the other requests run on Django's WSGI handler in threads. One process per core (two at
least), since Python runs one thread of a process at a time (docs/performance.md). Each process's sync
code has a pool of ``ASGI_THREADS`` threads (the requests that do not wait, the waits' short reads), and
a database pool to match the threads.
"""

import os

from tute_api.serving import default_workers as _default_workers
from tute_api.serving import settle_collector as _settle_collector

worker_class = "tute_api.serving.Worker"
workers = int(os.environ.get("WEB_CONCURRENCY") or _default_workers())  # one per core (tute_api/serving.py)
keepalive = 30
# The arbiter restarts a worker that has not signalled for this long. A uvicorn worker signals from its
# event loop's ticks, every timeout / 2, so a busy loop signals late: at gunicorn's 30 s a worker that
# was only slow (1,250 open connections, the box 100% busy: docs/performance.md) was killed with every
# connection it held, which then all came back at once. 120 s still restarts a loop that is stuck.
timeout = 120
# SIGTERM: each worker wakes its waits at once (games/live/shutdown.py: streams end with server_closing),
# then finishes its open answers within this.
graceful_timeout = 10
# Two threads per process for the requests that do not wait (tute_api/threads.py reads it): with eight, the
# threads of four processes fought over two cores and Python's lock; two gave 1.35x the actions per second
# and 0.57x the POST's p99 of make loadtest, the web's CPU per action 0.78x (medians: docs/performance.md).
os.environ.setdefault("ASGI_THREADS", "2")
os.environ.setdefault("DATABASE_POOL_SIZE", "6")  # the threads', and the event streams' sync steps
# gunicorn 24+ opens a control socket under $HOME/.gunicorn/, which the image's user cannot write and
# two servers on one machine would share; nothing here uses it (older versions ignore the name).
control_socket_disable = True


def post_worker_init(worker: object) -> None:
    """Once a worker has loaded the app: the garbage collector leaves what lives as long as the process
    alone, and collects less often (``GC_THRESHOLDS``: tute_api/serving.py's ``settle_collector``)."""
    _settle_collector()
    if os.environ.get("GC_PAUSES_DIR"):  # make loadtest: the collector's stops of each process
        from tute_api import gc_pauses

        gc_pauses.install(os.environ["GC_PAUSES_DIR"], census=bool(os.environ.get("GC_CENSUS")))
