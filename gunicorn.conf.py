"""gunicorn's settings for the service (gunicorn reads this file from the working directory): the
Docker image and ``make loadtest`` use it. Command-line options override it.

Threads, not sync workers: a long poll or an event stream holds its thread while it waits. Several
processes of a few threads each, since Python runs one thread of a process at a time (measured in
docs/performance.md), and each new connection goes to the process that holds the fewest
(``tute_api.web_worker``); a database pool of one connection per thread.
"""

import gc
import os

worker_class = "tute_api.web_worker.BalancedThreadWorker"  # gthread, balanced
workers = int(os.environ.get("WEB_CONCURRENCY", "5"))  # on 2 cores: twice the cores and one, gunicorn's rule
threads = int(os.environ.get("WEB_THREADS", "6"))
keepalive = 30
graceful_timeout = 5
# gunicorn's most (its default, 4094, answered longer URLs with its own HTML 414): Django answers a
# URL over MAX_URL_LENGTH (4096) with a 414 problem (tute_api/errors.py); only lines over this get HTML.
limit_request_line = 8190
os.environ.setdefault("DATABASE_POOL_SIZE", str(threads))
# gunicorn 24+ opens a control socket under $HOME/.gunicorn/, which the image's user cannot write and
# two servers on one machine would share; nothing here uses it (older versions ignore the name).
control_socket_disable = True


def post_worker_init(worker: object) -> None:
    """Once a worker has loaded the app: its modules, settings and URL patterns live as long as the
    process, so the garbage collector stops scanning them (each full collection then looks at a
    request's objects only, not at the whole of Django)."""
    gc.freeze()
