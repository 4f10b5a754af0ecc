"""The health check of a Celery worker (docker-compose.yml's): ``python -m tute_api.worker_health``.

It fails (exit status 1, the reasons on stderr) while the worker cannot do its work: the database does
not answer a query, the broker refuses a connection, or, with ``--destination celery@host``, that
worker does not answer a ping through the broker within ``--timeout`` seconds. It passes (exit status
0, ``ok`` on stdout) otherwise. A worker heals its own connections after a database restart
(tute_api/celery.py), so a check that fails during an outage passes again once the database is back.
"""

from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tute_api.worker_health", description=__doc__.splitlines()[0])
    parser.add_argument("--destination", help="the worker node to ping, e.g. celery@$HOSTNAME")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the ping (default 5)")
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tute_api.settings")
    import django

    django.setup()
    from tute_api.celery import app
    from tute_api.health import PASSING, check_broker, check_database

    failed = {name: found for name, found in (("database", check_database()), ("broker", check_broker()))
              if found not in PASSING}  # fmt: skip
    if args.destination and "broker" not in failed:
        answers = app.control.ping(destination=[args.destination], timeout=args.timeout)
        if not any(args.destination in answer for answer in answers):
            failed["worker"] = f"{args.destination} did not answer a ping within {args.timeout:g} s"
    if failed:
        for name, found in failed.items():
            print(f"{name}: {found}", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
